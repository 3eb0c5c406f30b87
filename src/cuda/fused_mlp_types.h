// What the hand-written MLP kernels and their CPU emulation share, free of CUDA headers.
#pragma once

namespace cuda_kernels {

// The article's 4-10-3 MLP's parameters, row-major as torch::nn::Linear holds them.
struct DeviceMlp {
  float* w1;  // [10 x 4]
  float* b1;  // [10]
  float* w2;  // [3 x 10]
  float* b2;  // [3]
};

inline constexpr int kThreads = 128;  // one block: a thread per row, then one per parameter
inline constexpr int kMaxRows = 256;  // 28 floats per row in shared memory: 28 KiB

}  // namespace cuda_kernels
