// The one main: bench's own flags, then Google Benchmark's, the data, the context, the run.
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include "bench_env.h"
#include "bench_util.h"
#include "common/run_context.h"
#include "skip_summary_reporter.h"

int main(int argc, char** argv) {
  bench::BenchOptions options;
  try {
    options = bench::parse_bench_options(&argc, argv);
  } catch (const bench::FlagError& e) {
    std::fprintf(stderr, "bench: %s\n(./bench --help lists the flags)\n", e.what());
    return 2;
  }
  struct stat st {};
  if (!options.trace_dir.empty() &&
      (::stat(options.trace_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    std::fprintf(stderr, "bench: --trace_dir: '%s' is not an existing folder (create it first)\n",
                 options.trace_dir.c_str());
    return 2;
  }
  if (options.help) std::fputs(bench::bench_usage().c_str(), stdout);
  benchmark::Initialize(&argc, argv);  // prints its own flags and exits on --help
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  auto env = std::make_shared<bench::BenchEnv>();
  env->options = options;
  if (env->options.data_dir.empty()) env->options.data_dir = iris::default_data_dir();
  try {
    env->split = iris::load_article_split(env->options.data_dir);
  } catch (const iris::DataError& e) {
    std::fprintf(stderr, "bench: bad data: %s\n", e.what());
    return 2;
  }
  bench::register_item_sync(env);
  bench::register_batch_sweep(env);
  bench::register_ladder(env);
  bench::register_peak(env);
  bench::register_rung_sweep(env);
  bench::register_dispatch(env);
  bench::register_kernel_launch(env);
  bench::register_sync(env);
  bench::register_memcpy(env);
  bench::register_paired(env);

  for (const auto& [key, value] : common::collect_run_context())
    benchmark::AddCustomContext(key, value);
  benchmark::AddCustomContext("epochs", std::to_string(options.epochs));
  benchmark::AddCustomContext("sweep_epochs", std::to_string(options.sweep_epochs));
  benchmark::AddCustomContext("ladder_epochs", std::to_string(options.ladder_epochs));
  benchmark::AddCustomContext("rung_sweep_epochs", std::to_string(options.rung_sweep_epochs));
  benchmark::AddCustomContext("warmup_epochs", std::to_string(options.warmup_epochs));
  benchmark::AddCustomContext("seed", std::to_string(options.seed));
  // Timed runs are never traced; a traced pass, when asked for, runs after them.
  benchmark::AddCustomContext("tracing", "off");
  benchmark::AddCustomContext("traced_pass_epochs", std::to_string(options.trace_epochs));

  benchmark::AddCustomContext("budget_s",
                              options.budget_s > 0 ? std::to_string(options.budget_s) : "none");
  bench::set_run_budget(options.budget_s);  // counted from here: the rows start now
  bench::SkipSummaryReporter display;       // skipped rows: one line per family on the console
  benchmark::RunSpecifiedBenchmarks(&display);
  benchmark::Shutdown();
  return 0;
}
