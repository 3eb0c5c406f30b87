// Ladder: how fast can the article's problem run once the overhead is removed? Each rung
// (train/ladder.h) trains the same 20000 epochs from the same weights, keeping the loss
// every 100 epochs, and is checked against LibTorch float64 on the CPU in the same run.
//   ./bench --benchmark_filter=Ladder
//   ./bench --benchmark_filter=Ladder/cuda --ladder_epochs=5000
// Counters: us_per_epoch, speedup_vs_eager (LibTorch eager on the same device, measured
// once per device in this process), max_loss_error and max_weight_error against the
// float64 reference, host_syncs inside the loop.
#include <benchmark/benchmark.h>

#include <map>
#include <mutex>
#include <optional>

#include "bench_env.h"
#include "bench_util.h"
#include "train/ladder.h"

namespace bench {
namespace {

constexpr int64_t kRecordEvery = 100;

// What rows of one run share: the float64 reference and the eager baselines. Owned by
// the registration (captured by the benchmark lambdas), not global.
struct LadderShared {
  std::mutex mutex;
  std::optional<train::Reference> reference;
  std::map<bool, double> eager_us;  // cuda? -> us per epoch of LibTorch eager
};

}  // namespace

static void BM_Ladder(benchmark::State& state, BenchEnvPtr env, std::shared_ptr<LadderShared> shared, bool cuda,
                      train::Rung rung) {
  try {
    if (!within_run_budget(state)) return;
    if (cuda && !require_cuda(state)) return;
    const auto& o = env->options;
    const auto data = train::make_train_data(env->split);
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (!shared->reference) shared->reference = train::float64_reference(data, o.ladder_epochs, kRecordEvery, o.seed);
      if (!shared->eager_us.count(cuda)) {  // untimed for this row: the baseline of its device
        const auto r = train::run_rung(train::Rung::LibtorchEager, cuda, data, o.ladder_epochs, kRecordEvery, o.seed);
        shared->eager_us[cuda] = r.seconds * 1e6 / static_cast<double>(o.ladder_epochs);
      }
    }
    if (o.warmup_epochs >= kRecordEvery)  // the rungs keep a loss every 100 epochs: shorter runs keep none
      train::run_rung(rung, cuda, data, std::min(o.warmup_epochs, o.ladder_epochs), kRecordEvery, o.seed + 1);
    train::LadderResult result;
    for (auto _ : state) {
      result = train::run_rung(rung, cuda, data, o.ladder_epochs, kRecordEvery, o.seed);
      state.SetIterationTime(result.seconds);
    }
    const double us = result.seconds * 1e6 / static_cast<double>(o.ladder_epochs);
    state.counters["epochs"] = static_cast<double>(o.ladder_epochs);
    state.counters["us_per_epoch"] = us;
    state.counters["speedup_vs_eager"] = shared->eager_us[cuda] / us;
    state.counters["eager_us_per_epoch"] = shared->eager_us[cuda];
    state.counters["records"] = static_cast<double>(result.recorded.size());
    state.counters["final_loss"] = result.recorded.empty() ? 0.0 : result.recorded.back();
    state.counters["max_loss_error"] = train::max_loss_error(result.recorded, shared->reference->recorded);
    state.counters["max_weight_error"] = train::max_weight_error(result.final_weights, shared->reference->final_weights);
    state.counters["host_syncs"] = static_cast<double>(result.host_syncs);
    state.counters["cuda"] = cuda ? 1 : 0;
    state.SetLabel(std::string(cuda ? "cuda " : "cpu ") + train::rung_name(rung));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_ladder(const BenchEnvPtr& env) {
  auto shared = std::make_shared<LadderShared>();
  for (const auto& device : env->options.devices) {
    const bool cuda = device == "cuda";
    for (auto rung : train::all_rungs()) {
      if (!train::rung_runs_on(rung, cuda)) continue;
      benchmark::RegisterBenchmark(("Ladder/" + device + "-" + train::rung_name(rung)).c_str(), BM_Ladder, env, shared,
                                   cuda, rung)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace bench
