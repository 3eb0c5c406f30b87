// Hand-written CUDA training of the article's 4-10-3 MLP: forward, cross-entropy,
// backward and SGD fused into one kernel, either one launch per epoch or one persistent
// launch for every epoch. One thread block (the whole problem is 120 rows); parameters
// row-major as torch::nn::Linear holds them. Plain device pointers (cudaMalloc'd by the
// caller or by LibTorch), no managed memory. Every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace cuda_kernels {

struct DeviceMlp {
  float* w1;  // [10 x 4]
  float* b1;  // [10]
  float* w2;  // [3 x 10]
  float* b2;  // [3]
};

// One epoch over x [n x 4], labels y [n]; writes the epoch's loss (before the update)
// to *loss_out when loss_out is non-null.
void launch_fused_epoch(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, float* loss_out,
                        cudaStream_t stream);

// `epochs` epochs in one launch; the loss of every record_every-th epoch goes to
// losses[epoch / record_every - 1] (record_every 0: none).
void launch_persistent_train(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, int epochs,
                             int record_every, float* losses, cudaStream_t stream);

inline constexpr int kThreads = 128;

}  // namespace cuda_kernels
