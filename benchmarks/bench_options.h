// bench's own flags (Google Benchmark parses the rest). Parsing is a pure function so the
// tests can pin every error message without starting a benchmark.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

struct BenchOptions {
  int64_t epochs = 20000;         // ItemSync: the article's 20000 epochs
  int64_t sweep_epochs = 300;     // BatchSweep: fewer, since 10^6-row epochs take ms each
  int64_t ladder_epochs = 20000;  // Ladder: the article's 20000 epochs
  int64_t warmup_epochs = 100;    // untimed, on a separate model, before each timed run
  uint64_t seed = 42;
  std::vector<std::string> devices = {"cpu", "cuda"};
  std::vector<int64_t> intervals = {1, 100, 200, 1000, 2000, 0};
  std::vector<int64_t> print100 = {0, 1};
  std::vector<int64_t> batches = {120};
  std::vector<int64_t> sweep_intervals = {0, 1};
  std::vector<int64_t> sweep_batches = {120, 1000, 10000, 100000, 1000000};
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
