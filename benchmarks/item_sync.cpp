// ItemSync: the article's experiment. The loop of ../shared/ARTICLE.md (20000 full-batch
// epochs of a 4-10-3 MLP on Iris) with each of its loss.item() patterns, on cpu and cuda.
//   ./bench --benchmark_filter=ItemSync
//   ./bench --benchmark_filter=ItemSync/cuda --epochs=2000 --benchmark_repetitions=5
#include "bench_env.h"
#include "training_run.h"

namespace bench {

static void BM_ItemSync(benchmark::State& state, BenchEnvPtr env, std::string device) {
  const TrainingRunSpec spec{
      "ItemSync",          device,
      env->options.epochs, train::LoggingPolicy{state.range(0), state.range(1) != 0},
      state.range(2),      env->options.warmup_epochs};
  run_training_benchmark(state, *env, spec);
}

void register_item_sync(const BenchEnvPtr& env) {
  const auto& o = env->options;
  for (const auto& device : o.devices) {
    benchmark::RegisterBenchmark(("ItemSync/" + device).c_str(), BM_ItemSync, env, device)
        ->ArgsProduct({o.intervals, o.print100, o.batches})
        ->ArgNames({"interval", "print100", "batch"})
        ->Iterations(1)  // one training run is one iteration; repetitions give the spread
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace bench
