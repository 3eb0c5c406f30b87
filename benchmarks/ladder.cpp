// Ladder: how fast can the article's problem run once the overhead is removed? Each rung
// (train/ladder.h) trains the same 20000 epochs from the same weights, keeping the loss
// every 100 epochs, and is checked against LibTorch float64 on the CPU in the same run.
//   ./bench --benchmark_filter=Ladder
//   ./bench --benchmark_filter=Ladder/cuda --ladder_epochs=5000
// Counters: us_per_epoch, max_loss_error and max_weight_error against the float64 reference,
// host_syncs inside the loop. No speed-up counter: a row cannot know the median of its run's
// timed LibTorch eager rows (they may run after it), and the one untimed, cold eager run per
// device it used to divide by was slower than those rows (their own "speed-up over eager" came
// out 1.25-1.37x in a fresh run), inflating every ratio. The analysis divides the medians. CPU rows
// (train/cpu_rungs.h: LibTorch eager with its default, 1 and all threads; the fused loop on 1 and
// all threads) also count flops_per_epoch (train/flops.h), gflops, and pct_of_peak: against the
// float32 FMA peak (peak.h) of as many threads as the rung uses, measured once in this process.
#include "train/ladder.h"

#include <benchmark/benchmark.h>

#include <map>
#include <mutex>
#include <optional>

#include "bench_env.h"
#include "bench_util.h"
#include "machine_noise.h"
#include "peak.h"
#include "train/cpu_rungs.h"
#include "train/flops.h"

namespace bench {
namespace {

constexpr int64_t kRecordEvery = 100;

// What rows of one run share: the float64 reference and the FMA peaks. Owned by the
// registration (captured by the benchmark lambdas), not global.
struct LadderShared {
  std::mutex mutex;
  std::optional<train::Reference> reference;
  std::map<int, double> peak_gflops;  // threads -> float32 FMA peak
};

// One row: a CUDA rung of train::Rung, or a CPU rung of train::cpu_rungs().
struct LadderRow {
  bool cuda;
  train::Rung rung;    // cuda rows
  train::CpuRung cpu;  // cpu rows
  std::string name() const { return cuda ? train::rung_name(rung) : cpu.name; }
};

}  // namespace

static void BM_Ladder(benchmark::State& state, BenchEnvPtr env,
                      std::shared_ptr<LadderShared> shared, LadderRow row) {
  const bool cuda = row.cuda;
  try {
    if (!within_run_budget(state)) return;
    if (cuda && !require_cuda(state)) return;
    const auto& o = env->options;
    const auto data = train::make_train_data(env->split);
    const auto run = [&](int64_t epochs, uint64_t seed) {
      return cuda ? train::run_rung(row.rung, true, data, epochs, kRecordEvery, seed)
                  : train::run_cpu_rung(row.cpu, data, epochs, kRecordEvery, seed);
    };
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (!shared->reference)
        shared->reference = train::float64_reference(data, o.ladder_epochs, kRecordEvery, o.seed);
    }
    if (o.warmup_epochs >=
        kRecordEvery)  // the rungs keep a loss every 100 epochs: shorter runs keep none
      run(std::min(o.warmup_epochs, o.ladder_epochs), o.seed + 1);
    const int threads = cuda ? 0 : train::threads_used(row.cpu);
    if (!cuda) {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (!shared->peak_gflops.count(
              threads)) {  // best of five 50 ms runs: the least disturbed on a shared machine
        double best = 0;
        for (int i = 0; i < 5; ++i)
          best = std::max(best, measure_fma_peak(false, threads, 0.05).gflops);
        shared->peak_gflops[threads] = best;
      }
    }
    train::LadderResult result;
    const ProcSnapshot before = proc_snapshot();
    std::vector<double> probes = {noise_probe_us()};
    for (auto _ : state) {
      result = run(o.ladder_epochs, o.seed);
      state.SetIterationTime(result.seconds);
    }
    probes.push_back(noise_probe_us());
    add_noise_counters(state, before, proc_snapshot(), probes);
    const double us = result.seconds * 1e6 / static_cast<double>(o.ladder_epochs);
    state.counters["epochs"] = static_cast<double>(o.ladder_epochs);
    state.counters["us_per_epoch"] = us;
    state.counters["records"] = static_cast<double>(result.recorded.size());
    state.counters["final_loss"] = result.recorded.empty() ? 0.0 : result.recorded.back();
    state.counters["max_loss_error"] =
        train::max_loss_error(result.recorded, shared->reference->recorded);
    state.counters["max_weight_error"] =
        train::max_weight_error(result.final_weights, shared->reference->final_weights);
    state.counters["host_syncs"] = static_cast<double>(result.host_syncs);
    state.counters["cuda"] = cuda ? 1 : 0;
    if (!cuda) {
      const double flops = train::epoch_flops(data.x.size(0)).total();
      state.counters["cpu_threads"] = threads;
      state.counters["flops_per_epoch"] = flops;
      state.counters["gflops"] = flops / us / 1e3;
      state.counters["peak_gflops"] = shared->peak_gflops[threads];
      state.counters["pct_of_peak"] = 100.0 * flops / us / 1e3 / shared->peak_gflops[threads];
    }
    state.SetLabel(
        std::string(cuda ? "cuda " : "cpu ") + row.name() +
        (cuda ? "" : " (" + std::to_string(threads) + " threads, peak " + peak_isa() + ")"));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_ladder(const BenchEnvPtr& env) {
  auto shared = std::make_shared<LadderShared>();
  for (const auto& device : env->options.devices) {
    const bool cuda = device == "cuda";
    std::vector<LadderRow> rows;
    if (cuda) {
      for (auto rung : train::all_rungs())
        if (train::rung_runs_on(rung, true)) rows.push_back({true, rung, {}});
    } else {
      for (const auto& cpu : train::cpu_rungs())
        rows.push_back({false, train::Rung::FusedCpu, cpu});
    }
    for (const auto& row : rows)
      benchmark::RegisterBenchmark(("Ladder/" + device + "-" + row.name()).c_str(), BM_Ladder, env,
                                   shared, row)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace bench
