#include "train/flops.h"

#include <stdexcept>
#include <string>

namespace train {

EpochFlops epoch_flops(int64_t rows, int64_t inputs, int64_t hidden, int64_t classes) {
  if (rows < 1 || inputs < 1 || hidden < 1 || classes < 1)
    throw std::invalid_argument("epoch_flops: rows, inputs, hidden and classes must be >= 1, got " +
                                std::to_string(rows) + ", " + std::to_string(inputs) + ", " +
                                std::to_string(hidden) + ", " + std::to_string(classes));
  const double n = static_cast<double>(rows), i = static_cast<double>(inputs),
               h = static_cast<double>(hidden), c = static_cast<double>(classes);
  EpochFlops f;
  // h = relu(x W1^T + b1): per row and hidden unit, i multiplies and i adds (i-1 + the
  // bias), then one max; z = h W2^T + b2 likewise with h inputs.
  f.forward = n * h * (2 * i) + n * h + n * c * (2 * h);
  // Per row: max over c logits (c-1), shift (c), exp (c), sum (c-1), log (1), log-sum +
  // max - z[label] (2); then the mean: n-1 adds and one divide.
  f.loss = n * ((c - 1) + c + c + (c - 1) + 1 + 2) + (n - 1) + 1;
  // dz = (e / sum - onehot) / n: 3 per logit. dW2 = dz^T h: 2 per (class, hidden, row);
  // db2: a sum over rows per class; dh = dz W2: (2c-1) per (row, hidden) plus the ReLU
  // mask (1); dW1 = dh^T x: 2 per (hidden, input, row); db1: a sum over rows per unit.
  f.backward = n * c * 3 + c * h * n * 2 + c * (n - 1) + n * h * (2 * c - 1) + n * h +
               h * i * n * 2 + h * (n - 1);
  const double params = h * i + h + c * h + c;
  f.update = 2 * params;
  return f;
}

}  // namespace train
