#include "train/trainer.h"

#include <chrono>
#include <stdexcept>

#include "capture/nvtx_phase.h"
#include "iris/synthetic.h"

namespace train {

using trace::Phase;
using trace::PhaseRange;

TrainData make_train_data(const iris::ArticleSplit& split, int64_t batch_rows) {
  const auto scaler = iris::MinMaxScaler::fit(split.train);
  const auto to_tensors = [](const iris::Dataset& d, torch::Tensor& x, torch::Tensor& y) {
    x = torch::empty({d.rows(), iris::kFeatures}, torch::kFloat32);
    y = torch::empty({d.rows()}, torch::kInt64);
    auto xa = x.accessor<float, 2>();
    auto ya = y.accessor<int64_t, 1>();
    for (int64_t r = 0; r < d.rows(); ++r) {
      for (int f = 0; f < iris::kFeatures; ++f) xa[r][f] = static_cast<float>(d.features[r][f]);
      ya[r] = d.labels[r];
    }
  };
  TrainData data;
  to_tensors(scaler.transform(iris::iris_like_batch(split.train, batch_rows)), data.x, data.y);
  to_tensors(scaler.transform(split.test), data.x_test, data.y_test);
  return data;
}

IrisMLPImpl::IrisMLPImpl() {
  fc1 = register_module("fc1", torch::nn::Linear(iris::kFeatures, 10));
  fc2 = register_module("fc2", torch::nn::Linear(10, iris::kClasses));
}

torch::Tensor IrisMLPImpl::forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }

Trainer::Trainer(const TrainData& data, torch::Device device, uint64_t seed, double lr)
    : device_(device) {
  torch::manual_seed(seed);
  model_ = IrisMLP();
  model_->to(device_);
  x_ = data.x.to(device_);
  y_ = data.y.to(device_);
  x_test_ = data.x_test.to(device_);
  y_test_ = data.y_test.to(device_);
  optimizer_ =
      std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(lr));
}

namespace {

// The article's print: f'Epoch [{epoch+1}/{num_epochs}], Loss: {loss.item():.4f}'.
void print_line(int64_t epoch1, int64_t epochs, float loss, std::FILE* echo) {
  char line[96];
  std::snprintf(line, sizeof line, "Epoch [%lld/%lld], Loss: %.4f\n",
                static_cast<long long>(epoch1), static_cast<long long>(epochs),
                static_cast<double>(loss));
  if (echo) std::fputs(line, echo);
}

}  // namespace

RunResult Trainer::run(int64_t epochs, const LoggingPolicy& policy, std::FILE* echo,
                       int64_t first_epoch) {
  if (epochs < 1) throw std::invalid_argument("epochs must be >= 1, got " + std::to_string(epochs));
  if (first_epoch < 1)
    throw std::invalid_argument("first_epoch must be >= 1, got " + std::to_string(first_epoch));
  policy.validate();
  RunResult result;
  result.epochs = epochs;
  result.recorded.reserve(static_cast<size_t>(policy.expected_records(epochs) + 1));
  model_->train();

  // Each .item() is a device-to-host copy of one float and, on CUDA, a wait for every
  // kernel queued before it: the synchronisation the article is about.
  const auto item = [&](const torch::Tensor& loss) {
    PhaseRange range(Phase::Item);
    ++result.item_calls;
    return loss.item<float>();
  };

  torch::Tensor loss;
  const auto start = std::chrono::steady_clock::now();
  const int64_t last = first_epoch + epochs - 1;
  for (int64_t epoch1 = first_epoch; epoch1 <= last; ++epoch1) {
    PhaseRange epoch_range(Phase::Epoch);
    torch::Tensor out;
    {
      PhaseRange r(Phase::Forward);
      out = model_->forward(x_);
    }
    {
      PhaseRange r(Phase::Loss);
      loss = torch::nn::functional::cross_entropy(out, y_);
    }
    {
      PhaseRange r(Phase::ZeroGrad);
      optimizer_->zero_grad();
    }
    {
      PhaseRange r(Phase::Backward);
      loss.backward();
    }
    {
      PhaseRange r(Phase::Step);
      optimizer_->step();
    }
    if (policy.item_calls_at(epoch1) > 0) {
      PhaseRange r(Phase::Log);
      if (policy.records_at(epoch1)) {
        result.recorded.push_back(item(loss));
        if (policy.prints_record_at(epoch1)) print_line(epoch1, last, item(loss), echo);
      }
      if (policy.prints100_at(epoch1)) print_line(epoch1, last, item(loss), echo);
    }
  }
  // Without this the clock would stop while the GPU still has queued epochs to run.
  if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.final_loss = loss.item<float>();
  return result;
}

double Trainer::test_accuracy() {
  torch::NoGradGuard no_grad;
  model_->eval();
  const auto predicted = model_->forward(x_test_).argmax(1);
  const double acc = predicted.eq(y_test_).to(torch::kFloat64).mean().item<double>();
  model_->train();
  return acc;
}

}  // namespace train
