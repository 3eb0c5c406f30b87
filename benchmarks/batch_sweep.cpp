// BatchSweep: the same loop from Iris's 120 rows to 10^6 Iris-like rows, logging never or
// every epoch, to find where the GPU starts to win and whether a sync costs more when the
// GPU has queued work.
//   ./bench --benchmark_filter=BatchSweep --sweep_epochs=300
#include <algorithm>

#include "bench_env.h"
#include "training_run.h"

namespace bench {

static void BM_BatchSweep(benchmark::State& state, BenchEnvPtr env, std::string device) {
  const TrainingRunSpec spec{"BatchSweep", device, env->options.sweep_epochs,
                             train::LoggingPolicy{state.range(0), /*print100=*/false},
                             state.range(1),
                             // A 10^6-row CPU epoch takes tens of ms: 10 warm-up epochs reach
                             // steady state; 100 would cost more than the timed run.
                             std::min<int64_t>(env->options.warmup_epochs, 10)};
  run_training_benchmark(state, *env, spec);
}

void register_batch_sweep(const BenchEnvPtr& env) {
  const auto& o = env->options;
  for (const auto& device : o.devices) {
    benchmark::RegisterBenchmark(("BatchSweep/" + device).c_str(), BM_BatchSweep, env, device)
        ->ArgsProduct({o.sweep_intervals, o.sweep_batches})
        ->ArgNames({"interval", "batch"})
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace bench
