// The separate traced pass: after a row's timed runs (which stay untraced), the same loop
// runs again under a trace::TraceSession; its attribution becomes counters on the row and,
// with --trace_dir, a Chrome trace file. On CUDA it uses CUPTI; on the CPU, host ranges only.
#pragma once

#include <benchmark/benchmark.h>

#include "bench_env.h"
#include "train/trainer.h"

namespace bench {

struct TrainingRunSpec;

// untraced_us_per_epoch: the row's timed figure, for the overhead ratio.
void run_traced_pass(benchmark::State& state, const BenchEnv& env, const TrainingRunSpec& spec,
                     const train::TrainData& data, double untraced_us_per_epoch);

// The file name for a row's trace, e.g. ItemSync_cuda_interval-200_print100-1_batch-120.trace.json
// (Google Benchmark 1.7.1's State does not expose the row's name).
std::string trace_file_name(const TrainingRunSpec& spec);

}  // namespace bench
