// What every benchmark family is registered with: the parsed flags and the article's data,
// loaded once in main (so a bad data file stops bench before any benchmark runs).
#pragma once

#include <memory>

#include "bench_options.h"
#include "iris/iris_data.h"

namespace bench {

struct BenchEnv {
  BenchOptions options;
  iris::ArticleSplit split;
};
using BenchEnvPtr = std::shared_ptr<const BenchEnv>;

void register_item_sync(const BenchEnvPtr& env);
void register_batch_sweep(const BenchEnvPtr& env);
void register_ladder(const BenchEnvPtr& env);
void register_dispatch(const BenchEnvPtr& env);
void register_peak(const BenchEnvPtr& env);        // Peak/cpu-fma-*: the arithmetic limit
void register_rung_sweep(const BenchEnvPtr& env);  // RungSweep/*: each rung from 120 to 10^6 rows
// The CUDA-only primitive families; without the CUDA toolkit they register nothing.
void register_kernel_launch(const BenchEnvPtr& env);
void register_sync(const BenchEnvPtr& env);
void register_memcpy(const BenchEnvPtr& env);
void register_paired(const BenchEnvPtr& env);

}  // namespace bench
