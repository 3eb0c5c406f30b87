// The article's training loop, once: MLP 4-10-3, cross-entropy, SGD(lr=0.01), full batch,
// on any torch device, with the article's .item() logging patterns (LoggingPolicy).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "iris/iris_data.h"
#include "train/logging_policy.h"

namespace train {

// Tensors on the CPU: x float32 [batch, 4] min-max scaled with the scaler fitted on the
// article's 120 training rows; y int64 [batch]; the 30 test rows scaled the same way.
struct TrainData {
  torch::Tensor x, y, x_test, y_test;
};
// batch_rows = 120 is the article's data; above that, iris::iris_like_batch fills it.
TrainData make_train_data(const iris::ArticleSplit& split, int64_t batch_rows = iris::kTrainRows);

// Linear(4,10) -> ReLU -> Linear(10,3), as in the article.
struct IrisMLPImpl : torch::nn::Module {
  IrisMLPImpl();
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(IrisMLP);

struct RunResult {
  int64_t epochs = 0;
  int64_t item_calls = 0;       // loss.item() calls made inside the loop
  double seconds = 0.0;         // wall time of the loop, the device drained at the end
  float final_loss = 0.0f;      // read after the clock stopped
  std::vector<float> recorded;  // the article's `losses` list
};

class Trainer {
 public:
  // Seeds torch, builds the model on the CPU (so initial weights do not depend on the
  // device) and moves model and data to `device`.
  Trainer(const TrainData& data, torch::Device device, uint64_t seed, double lr = 0.01);

  // Runs `epochs` epochs. Each printed line ("Epoch [100/20000], Loss: 1.1143") is
  // formatted as the article's print does; it is written to `echo` when non-null.
  // first_epoch: the policy's number of the first of them, so that short runs of one long
  // training log where it would (bench's Paired rows).
  RunResult run(int64_t epochs, const LoggingPolicy& policy, std::FILE* echo = nullptr,
                int64_t first_epoch = 1);

  double test_accuracy();
  IrisMLP& model() { return model_; }
  const torch::Device& device() const { return device_; }

 private:
  torch::Device device_;
  IrisMLP model_{nullptr};
  torch::Tensor x_, y_, x_test_, y_test_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
};

}  // namespace train
