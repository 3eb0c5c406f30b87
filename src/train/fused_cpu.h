// The article's training step written out by hand: forward, cross-entropy, backward and
// SGD for the 4-10-3 MLP in one pass over the rows, no framework. The bottom rung of the
// overhead ladder on the CPU: what 20000 epochs cost when only the arithmetic is left.
// How it is made fast (and why each choice) is in fused_cpu.cpp's header comment.
#pragma once

#include <cstdint>
#include <vector>

namespace train {

// Row-major parameters, laid out as torch::nn::Linear holds them:
// w1 [10 x 4], b1 [10], w2 [3 x 10], b2 [3].
template <typename T>
struct MlpWeights {
  static constexpr int kIn = 4, kHidden = 10, kOut = 3;
  std::vector<T> w1 = std::vector<T>(kHidden * kIn), b1 = std::vector<T>(kHidden),
                 w2 = std::vector<T>(kOut * kHidden), b2 = std::vector<T>(kOut);
};

struct FusedRunResult {
  std::vector<double> recorded;  // loss at every `record_every`-th epoch (1-based)
  double final_loss = 0;
};

// Full-batch SGD for `epochs` epochs on x [rows x 4] (row-major), labels in {0,1,2};
// updates `weights` in place. The loss recorded for epoch e is the one computed in that
// epoch's forward pass (before its update), as the article's loop logs it.
// `threads` > 1 splits the rows into that many contiguous slices, one std::thread each,
// with one barrier per epoch; every thread sums the slices' gradients in the same order,
// so the result does not depend on timing (it does depend on `threads`: the rows are
// summed in a different order). Throws std::invalid_argument on bad shapes, labels or
// threads < 1.
template <typename T>
FusedRunResult fused_cpu_train(MlpWeights<T>& weights, const std::vector<T>& x,
                               const std::vector<int64_t>& labels, int64_t epochs, T lr,
                               int64_t record_every, int threads = 1);

// The vector instruction set fused_cpu.cpp was compiled for ("avx512", "avx2", "sse2",
// "neon", ...) and its width in float32 lanes: what the loop runs, for the report.
const char* fused_cpu_isa();
int fused_cpu_float_lanes();

extern template FusedRunResult fused_cpu_train<float>(MlpWeights<float>&, const std::vector<float>&,
                                                      const std::vector<int64_t>&, int64_t, float,
                                                      int64_t, int);
extern template FusedRunResult fused_cpu_train<double>(MlpWeights<double>&,
                                                       const std::vector<double>&,
                                                       const std::vector<int64_t>&, int64_t, double,
                                                       int64_t, int);

}  // namespace train
