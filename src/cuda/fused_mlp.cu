// The hand-written MLP kernels: thin wrappers that run fused_mlp_body.h on a CUDA block.
#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.h"
#include "cuda/fused_mlp_body.h"

namespace cuda_kernels {
namespace {

struct CudaBlock {
  __device__ int thread() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  __device__ void sync() const { __syncthreads(); }
};

__global__ void fused_epoch_kernel(const float* x, const int64_t* y, int n, DeviceMlp w, float lr,
                                   float* loss_out) {
  __shared__ float p[body::kParams];
  extern __shared__ float smem[];  // body::row_bytes(n)
  body::fused_epoch(CudaBlock{}, p, smem, x, y, n, w, lr, loss_out);
}

__global__ void persistent_train_kernel(const float* x, const int64_t* y, int n, DeviceMlp w,
                                        float lr, int epochs, int record_every, float* losses) {
  __shared__ float p[body::kParams];
  extern __shared__ float smem[];
  body::persistent_train(CudaBlock{}, p, smem, x, y, n, w, lr, epochs, record_every, losses);
}

}  // namespace

void launch_fused_epoch(const float* x, const int64_t* y, int n, DeviceMlp w, float lr,
                        float* loss_out, cudaStream_t stream) {
  fused_epoch_kernel<<<1, kThreads, body::row_bytes(n), stream>>>(x, y, n, w, lr, loss_out);
  CUDA_CHECK(cudaGetLastError());
}

void launch_persistent_train(const float* x, const int64_t* y, int n, DeviceMlp w, float lr,
                             int epochs, int record_every, float* losses, cudaStream_t stream) {
  persistent_train_kernel<<<1, kThreads, body::row_bytes(n), stream>>>(x, y, n, w, lr, epochs,
                                                                       record_every, losses);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuda_kernels
