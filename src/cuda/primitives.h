// Kernels for the primitive microbenchmarks (benchmarks/kernel_launch.cpp, sync.cpp): an
// empty kernel (pure launch cost) and a spin kernel that keeps the GPU busy for a known
// time (work of known duration queued before a sync).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace cuda_kernels {

void launch_empty(cudaStream_t stream);                       // <<<1,1>>>, does nothing
void launch_spin(cudaStream_t stream, uint64_t nanoseconds);  // one thread spins on %globaltimer

}  // namespace cuda_kernels
