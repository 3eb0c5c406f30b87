#include "cuda/cuda_check.h"
#include "cuda/primitives.h"

namespace cuda_kernels {
namespace {

__global__ void empty_kernel() {}

__device__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// %globaltimer counts nanoseconds on every SM, so the spin lasts about `ns` whatever
// the clock speed (its resolution is about 1 us on recent GPUs).
__global__ void spin_kernel(uint64_t ns) {
  const uint64_t start = global_ns();
  while (global_ns() - start < ns) {
  }
}

}  // namespace

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  CUDA_CHECK(cudaGetLastError());
}

void launch_spin(cudaStream_t stream, uint64_t nanoseconds) {
  spin_kernel<<<1, 1, 0, stream>>>(nanoseconds);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuda_kernels
