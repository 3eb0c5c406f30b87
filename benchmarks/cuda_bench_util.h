// Small helpers shared by the CUDA microbenchmark families.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "common/run_context.h"

namespace bench {

using HostClock = std::chrono::steady_clock;
inline double seconds_between(HostClock::time_point a, HostClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Skips the row with a message when no GPU is usable; returns false then.
inline bool require_cuda(benchmark::State& state) {
  std::string why_not;
  if (common::cuda_usable(&why_not)) return true;
  state.SkipWithError(("skipped: " + why_not).c_str());
  return false;
}

}  // namespace bench
