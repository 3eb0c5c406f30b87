// The floating-point work of one full-batch epoch of the article's MLP, counted exactly
// from the shapes, per phase. It is the algorithm's count (what LibTorch computes), so the
// same number divides every rung's time: GFLOP/s = flops / seconds per epoch.
// Convention: each add, subtract, multiply, divide, max/compare (ReLU, max logit), exp and
// log counts 1; a fused multiply-add counts 2. Bias adds are counted; memory moves,
// one-hot building and the ReLU mask's select in backward are not arithmetic and are not.
#pragma once

#include <cstdint>

namespace train {

struct EpochFlops {
  double forward = 0;  // fc1 (with bias), ReLU, fc2 (with bias)
  double loss = 0;     // max logit, shift, exp, sum, log, picking the label's logit, mean
  double backward =
      0;  // softmax gradient, fc2 weight/bias/input gradients, ReLU mask, fc1 weight/bias gradients
  double update = 0;  // SGD: p -= lr * g for every parameter
  double total() const { return forward + loss + backward + update; }
};

// rows >= 1, inputs/hidden/classes >= 1 (the article's 4, 10, 3 by default).
// Throws std::invalid_argument otherwise.
EpochFlops epoch_flops(int64_t rows, int64_t inputs = 4, int64_t hidden = 10, int64_t classes = 3);

}  // namespace train
