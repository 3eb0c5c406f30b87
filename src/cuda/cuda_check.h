// One error idiom for CUDA calls: CUDA_CHECK throws with file:line, the error name and the
// call text; CUDA_CHECK_NOTHROW reports to stderr (for destructors). Launches are checked
// with CUDA_CHECK(cudaGetLastError()) right after the <<<>>>.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cuda_util {

inline void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                           ")");
}

inline void check_nothrow(cudaError_t err, const char* call, const char* file, int line) noexcept {
  if (err != cudaSuccess)
    std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, cudaGetErrorName(err));
}

}  // namespace cuda_util

#define CUDA_CHECK(call) ::cuda_util::check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_NOTHROW(call) ::cuda_util::check_nothrow((call), #call, __FILE__, __LINE__)
