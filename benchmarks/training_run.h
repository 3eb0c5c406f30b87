// One timed training run as a Google Benchmark iteration, shared by ItemSync and
// BatchSweep: skip without a GPU, untimed warm-up, manual time, counters.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "bench_env.h"
#include "train/logging_policy.h"

namespace bench {

struct TrainingRunSpec {
  std::string family;  // "ItemSync", "BatchSweep": names trace files
  std::string device;  // "cpu" or "cuda"
  int64_t epochs;
  train::LoggingPolicy policy;
  int64_t batch;
  int64_t warmup_epochs;  // untimed, on a separate model, before the timed run
};

// Manual time = the loop's wall time with the device drained (train::Trainer::run).
// Counters: epochs, item_calls, records, us_per_epoch, final_loss, test_accuracy and the
// arguments (interval, print100, batch, cuda) so every JSON row describes itself.
void run_training_benchmark(benchmark::State& state, const BenchEnv& env,
                            const TrainingRunSpec& spec);

}  // namespace bench
