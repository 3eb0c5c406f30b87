// Hand-written CUDA training of the article's 4-10-3 MLP: forward, cross-entropy,
// backward and SGD fused into one kernel, either one launch per epoch or one persistent
// launch for every epoch. One thread block (the whole problem is 120 rows), no atomics:
// a thread per row, then a thread per parameter summing its gradient in row order, so
// results are the same on every run (fused_mlp_body.h; tested on the CPU by emulation).
// Plain device pointers (cudaMalloc'd by the caller or by LibTorch), no managed memory.
// Every launch is checked; n outside 1..kMaxRows throws std::invalid_argument.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/fused_mlp_types.h"

namespace cuda_kernels {

// One epoch over x [n x 4], labels y [n]; writes the epoch's loss (before the update)
// to *loss_out when loss_out is non-null.
void launch_fused_epoch(const float* x, const int64_t* y, int n, DeviceMlp w, float lr,
                        float* loss_out, cudaStream_t stream);

// `epochs` epochs in one launch; the loss of every record_every-th epoch goes to
// losses[epoch / record_every - 1] (record_every 0: none).
void launch_persistent_train(const float* x, const int64_t* y, int n, DeviceMlp w, float lr,
                             int epochs, int record_every, float* losses, cudaStream_t stream);

}  // namespace cuda_kernels
