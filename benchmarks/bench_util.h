// Small helpers shared by the primitive microbenchmark families.
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

// The run's time budget (--budget_s, set once by main before any row runs; 0 = none).
// Rows check it as they start: one that would start after the budget skips with a message,
// and bench still writes every row's JSON. A row already running is not cut short.
void set_run_budget(double seconds);
bool within_run_budget(benchmark::State& state);

// Skips the row with a message when no GPU is usable; returns false then. (Debian's Google
// Benchmark 1.7.1 has no SkipWithMessage: the row is marked as an error with this text,
// and bench still exits 0.)
inline bool require_cuda(benchmark::State& state) {
  std::string why_not;
  if (common::cuda_usable(&why_not)) return true;
  state.SkipWithError(("skipped: " + why_not).c_str());
  return false;
}

// Manual time is the whole measured batch of `ops` operations, so --benchmark_min_time
// still means wall time (a per-op manual time made Google Benchmark run 256x longer than
// asked); the per-operation price goes in the counter `us_per_op`, averaged over iterations.
class PerOpTimer {
 public:
  explicit PerOpTimer(int ops) : ops_(ops) {}
  void record(benchmark::State& state, double batch_seconds) {
    state.SetIterationTime(batch_seconds);
    sum_us_ += batch_seconds * 1e6 / ops_;
  }
  void finish(benchmark::State& state) const {
    state.counters["us_per_op"] = benchmark::Counter(sum_us_, benchmark::Counter::kAvgIterations);
    state.counters["ops_per_iteration"] = ops_;
  }

 private:
  int ops_;
  double sum_us_ = 0;
};

}  // namespace bench
