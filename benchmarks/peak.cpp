// Peak/cpu-fma-<f32|f64>-<1thread|allthreads>: how many FLOP/s this machine's cores can do at
// best, so the report can say how close each CPU rung of the ladder gets.
//   ./bench --benchmark_filter=Peak
// Each thread runs kChains independent FMA chains (acc = acc * a + b) on whole vectors:
// more chains than FMA latency x FMA ports (4 x 2 on recent x86), so the FMA units never
// wait, and no memory is touched. Counters: gflops, gflops_per_thread, cpu_threads, lanes, float64;
// the label names the ISA.
#include "peak.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_env.h"
#include "bench_util.h"
#include "common/vector_isa.h"

namespace bench {
namespace {

constexpr int kVecBytes =
    common::kVectorBytes;  // the fused CPU loop's vectors (common/vector_isa.h)
constexpr int kChains = 16;
constexpr int64_t kInner = 4096;  // FMA rounds per check of the clock

template <typename T>
struct Vec {
  typedef T V __attribute__((vector_size(kVecBytes)));
};

// Returns a value that depends on every chain, so the compiler must compute them all (it
// may not reassociate floating point, so each round stays kChains FMAs: checked in the
// disassembly, docs/machine-limit.md "How close to the machine").
template <typename T>
__attribute__((noinline)) T fma_rounds(int64_t rounds, T seed) {
  using V = typename Vec<T>::V;
  V acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = V{} + (seed + T(c) * T(1e-3));
  const V a = V{} + T(0.999999), b = V{} + T(1e-6);
  for (int64_t r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;
  }
  V sum = {};
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  T lanes[sizeof(V) / sizeof(T)];
  std::memcpy(lanes, &sum, sizeof(V));
  T out = 0;
  for (T l : lanes) out += l;
  return out;
}

template <typename T>
double flops_per_round() {
  return 2.0 * kChains * (kVecBytes / sizeof(T));
}

template <typename T>
PeakResult measure(int threads, double seconds) {
  // Size the run from a short probe so each thread does a fixed number of rounds (no
  // clock reads inside the timed part).
  auto t0 = std::chrono::steady_clock::now();
  volatile T sink = fma_rounds<T>(kInner * 16, T(1));
  const double probe = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int64_t rounds = std::max<int64_t>(
      kInner, static_cast<int64_t>(kInner * 16 * seconds / std::max(probe, 1e-6)));
  std::vector<std::thread> pool;
  std::vector<T> out(threads);
  t0 = std::chrono::steady_clock::now();
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { out[t] = fma_rounds<T>(rounds, T(t)); });
  out[0] = fma_rounds<T>(rounds, T(0));
  for (auto& th : pool) th.join();
  PeakResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.threads = threads;
  r.gflops = flops_per_round<T>() * static_cast<double>(rounds) * threads / r.seconds / 1e9;
  sink = out[0];
  (void)sink;
  return r;
}

}  // namespace

PeakResult measure_fma_peak(bool float64, int threads, double seconds) {
  return float64 ? measure<double>(threads, seconds) : measure<float>(threads, seconds);
}

std::string peak_isa() {
  const std::string fma = common::kVectorFma ? "" : " (no fma: multiply and add)";
  return std::string(common::kVectorIsa) + fma + " (" + std::to_string(kVecBytes / 4) +
         " float32 lanes)";
}

static void BM_Peak(benchmark::State& state, bool float64, int threads) {
  if (!within_run_budget(state)) return;
  PeakResult best;
  for (auto _ : state) {
    // Best of five 50 ms runs: on a shared machine the best one is the least disturbed.
    for (int i = 0; i < 5; ++i) {
      const auto r = measure_fma_peak(float64, threads, 0.05);
      if (r.gflops > best.gflops) best = r;
    }
    state.SetIterationTime(best.seconds);
  }
  state.counters["gflops"] = best.gflops;
  state.counters["gflops_per_thread"] = best.gflops / threads;
  state.counters["cpu_threads"] = threads;
  state.counters["lanes"] = kVecBytes / (float64 ? 8 : 4);
  state.counters["float64"] = float64 ? 1 : 0;
  state.SetLabel("cpu " + peak_isa() + (float64 ? " float64" : " float32"));
}

void register_peak(const BenchEnvPtr& env) {
  (void)env;
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (bool f64 : {false, true})
    for (int threads : {1, all}) {
      const std::string name = std::string("Peak/cpu-fma-") + (f64 ? "f64" : "f32") +
                               (threads == 1 ? "-1thread" : "-allthreads");
      benchmark::RegisterBenchmark(name.c_str(), BM_Peak, f64, threads)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      if (all == 1) break;  // one core: "all" is the same row
    }
}

}  // namespace bench
