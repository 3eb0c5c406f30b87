#include "train/ladder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace train {

// CUDA rungs live in ladder_cuda.cpp (built with the CUDA toolkit only).
LadderResult run_cuda_rung(Rung rung, const TrainData& data, int64_t epochs, int64_t record_every,
                           uint64_t seed);

const char* rung_name(Rung rung) {
  switch (rung) {
    case Rung::LibtorchEager:
      return "libtorch_eager";
    case Rung::DeviceLog:
      return "device_log";
    case Rung::PinnedEvent:
      return "pinned_event";
    case Rung::CudaGraph:
      return "cuda_graph";
    case Rung::FusedStepKernel:
      return "fused_step_kernel";
    case Rung::PersistentKernel:
      return "persistent_kernel";
    case Rung::FusedCpu:
      return "fused_cpu";
  }
  return "?";
}

bool rung_runs_on(Rung rung, bool cuda) {
  if (rung == Rung::LibtorchEager) return true;
  if (rung == Rung::FusedCpu) return !cuda;
  return cuda;
}

std::vector<Rung> all_rungs() {
  return {Rung::LibtorchEager,   Rung::DeviceLog,        Rung::PinnedEvent, Rung::CudaGraph,
          Rung::FusedStepKernel, Rung::PersistentKernel, Rung::FusedCpu};
}

namespace {
template <typename T>
void copy_out(const torch::Tensor& t, std::vector<T>& out) {
  const auto c = t.detach().to(torch::kCPU, c10::CppTypeToScalarType<T>::value).contiguous();
  out.assign(c.template data_ptr<T>(), c.template data_ptr<T>() + c.numel());
}
}  // namespace

MlpWeights<float> weights_of(IrisMLP& m) {
  MlpWeights<float> w;
  copy_out(m->fc1->weight, w.w1);
  copy_out(m->fc1->bias, w.b1);
  copy_out(m->fc2->weight, w.w2);
  copy_out(m->fc2->bias, w.b2);
  return w;
}

void set_weights(IrisMLP& m, const MlpWeights<float>& w) {
  torch::NoGradGuard no_grad;
  const auto put = [](torch::Tensor& p, const std::vector<float>& v) {
    p.copy_(torch::from_blob(const_cast<float*>(v.data()), p.sizes(), torch::kFloat32));
  };
  put(m->fc1->weight, w.w1);
  put(m->fc1->bias, w.b1);
  put(m->fc2->weight, w.w2);
  put(m->fc2->bias, w.b2);
}

MlpWeights<float> initial_weights(uint64_t seed) {
  torch::manual_seed(seed);  // as Trainer's constructor does, so the weights are the same
  IrisMLP model;
  return weights_of(model);
}

LadderResult run_rung(Rung rung, bool cuda, const TrainData& data, int64_t epochs,
                      int64_t record_every, uint64_t seed) {
  if (!rung_runs_on(rung, cuda))
    throw std::invalid_argument(std::string("rung ") + rung_name(rung) + " does not run on " +
                                (cuda ? "cuda" : "cpu"));
  if (rung == Rung::LibtorchEager) {
    Trainer trainer(data, cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU), seed);
    const auto r = trainer.run(epochs, LoggingPolicy{record_every, false});
    return {r.seconds, r.recorded, weights_of(trainer.model()), r.item_calls};
  }
  if (rung == Rung::FusedCpu) return run_fused_cpu(data, epochs, record_every, seed, 1);
  return run_cuda_rung(rung, data, epochs, record_every, seed);
}

LadderResult run_fused_cpu(const TrainData& data, int64_t epochs, int64_t record_every,
                           uint64_t seed, int threads) {
  LadderResult out;
  out.final_weights = initial_weights(seed);
  const auto x = data.x.contiguous();
  const std::vector<float> xs(x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
  const auto y = data.y.contiguous();
  const std::vector<int64_t> ys(y.data_ptr<int64_t>(), y.data_ptr<int64_t>() + y.numel());
  const auto start = std::chrono::steady_clock::now();
  const auto r =
      fused_cpu_train<float>(out.final_weights, xs, ys, epochs, 0.01f, record_every, threads);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.recorded.assign(r.recorded.begin(), r.recorded.end());
  return out;
}

Reference float64_reference(const TrainData& data, int64_t epochs, int64_t record_every,
                            uint64_t seed) {
  IrisMLP model;
  set_weights(model, initial_weights(seed));
  model->to(torch::kFloat64);  // float -> double is exact: the same start as every rung
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01));
  const auto x = data.x.to(torch::kFloat64);
  Reference ref;
  for (int64_t e = 1; e <= epochs; ++e) {
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), data.y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    if (record_every > 0 && e % record_every == 0) ref.recorded.push_back(loss.item<double>());
  }
  copy_out(model->fc1->weight, ref.final_weights.w1);
  copy_out(model->fc1->bias, ref.final_weights.b1);
  copy_out(model->fc2->weight, ref.final_weights.w2);
  copy_out(model->fc2->bias, ref.final_weights.b2);
  return ref;
}

// A NaN or an infinity is an infinite error: std::max(worst, NaN) would keep `worst` and let a
// diverged run pass as exact. Missing or extra values are an infinite error too.
namespace {
double relative_error(double a, double b, double floor) {
  const double e = std::abs(a - b) / std::max(std::abs(b), floor);
  return std::isfinite(e) ? e : INFINITY;
}
}  // namespace

double max_loss_error(const std::vector<float>& losses, const std::vector<double>& ref) {
  if (losses.size() != ref.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    worst = std::max(worst, relative_error(losses[i], ref[i], 1e-3));
  return worst;
}

double max_weight_error(const MlpWeights<float>& w, const MlpWeights<double>& ref) {
  double worst = 0;
  const auto cmp = [&](const std::vector<float>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) worst = INFINITY;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      worst = std::max(worst, relative_error(a[i], b[i], 1e-2));
  };
  cmp(w.w1, ref.w1);
  cmp(w.b1, ref.b1);
  cmp(w.w2, ref.w2);
  cmp(w.b2, ref.b2);
  return worst;
}

}  // namespace train
