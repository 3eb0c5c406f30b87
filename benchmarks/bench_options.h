// bench's own flags (Google Benchmark parses the rest), declared once for CLI11, which parses
// them, and for --help, which lists each with its default. Parsing is a pure function so the
// tests can pin every error message without starting a benchmark.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep_defaults.h"  // generated from experiments/sweeps.toml

namespace bench {

struct BenchOptions {
  // The sweeps' defaults are experiments/sweeps.toml's, so ./bench with no flags runs them.
  int64_t epochs = sweep_defaults::kItemSyncEpochs;
  int64_t sweep_epochs = sweep_defaults::kBatchSweepEpochs;
  int64_t ladder_epochs = sweep_defaults::kLadderEpochs;
  int64_t rung_sweep_epochs = sweep_defaults::kRungSweepEpochs;
  int64_t warmup_epochs = 100;  // untimed, on a separate model, before each timed run
  uint64_t seed = 42;
  std::vector<std::string> devices = {"cpu", "cuda"};
  std::vector<int64_t> intervals = sweep_defaults::kItemSyncIntervals;
  std::vector<int64_t> print100 = sweep_defaults::kItemSyncPrint100;
  std::vector<int64_t> batches = sweep_defaults::kItemSyncBatches;
  std::vector<int64_t> sweep_intervals = sweep_defaults::kBatchSweepIntervals;
  std::vector<int64_t> sweep_batches = sweep_defaults::kBatchSweepBatches;
  std::vector<int64_t> rung_sweep_batches = sweep_defaults::kRungSweepBatches;
  // Paired rows (paired.cpp): epochs per short run, the configurations, the stopping rule.
  int64_t paired_epochs = sweep_defaults::kPairedEpochs;
  std::vector<int64_t> paired_intervals = sweep_defaults::kPairedIntervals;
  int64_t held_out_interval = sweep_defaults::kHeldOutInterval;
  int64_t paired_batch_epochs = sweep_defaults::kPairedBatchEpochs;
  std::vector<int64_t> paired_batches = sweep_defaults::kPairedBatches;
  double paired_rel_target = sweep_defaults::kPairedRelTarget;
  double paired_diff_us = sweep_defaults::kPairedDiffTargetUs;
  double paired_max_s = sweep_defaults::kPairedMaxS;
  int64_t paired_min_rounds = sweep_defaults::kPairedMinRounds;
  std::string data_dir;           // empty: iris::default_data_dir()
  int64_t trace_epochs = 0;       // >0: a traced pass of this many epochs after the timed runs
  std::string trace_dir;          // non-empty: write a Chrome trace per row here
  int64_t trace_file_epochs = 5;  // epochs (the last ones of the traced pass) in each trace file
  bool echo_log = false;          // write the article's print lines to stderr
  double budget_s = 0;            // >0: rows that would start after this many seconds skip
  bool help = false;
};

class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and removes bench's flags from argv, leaving argv[0] and every other argument
// (Google Benchmark's) in order. Throws FlagError naming the flag and what it expects.
BenchOptions parse_bench_options(int* argc, char** argv);

std::string bench_usage();

}  // namespace bench
