#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench_options.h"

namespace {
// Runs the parser on a command line; returns the options and what it left in argv.
struct Parsed {
  bench::BenchOptions options;
  std::vector<std::string> rest;
};
Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  Parsed p{bench::parse_bench_options(&argc, argv.data()), {}};
  for (int i = 1; i < argc; ++i) p.rest.emplace_back(argv[i]);
  return p;
}
std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const bench::FlagError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// The sweeps' values themselves are experiments/sweeps.toml's (tests/test_sweeps.py compares
// them with bench --help); this pins that they hold the article's run.
TEST(BenchOptions, DefaultsHoldTheArticleRun) {
  const auto p = parse({});
  EXPECT_EQ(p.options.epochs, 20000);
  for (const int64_t interval : {1, 100, 200, 1000, 2000, 0})
    EXPECT_NE(std::find(p.options.intervals.begin(), p.options.intervals.end(), interval),
              p.options.intervals.end())
        << interval;
  EXPECT_EQ(p.options.devices, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(p.options.batches, (std::vector<int64_t>{120}));
}

TEST(BenchOptions, ParsesOwnFlagsAndLeavesGoogleBenchmarksInOrder) {
  const auto p =
      parse({"--benchmark_filter=ItemSync", "--epochs=500", "--devices=cuda", "--intervals=0,500",
             "--benchmark_repetitions=3", "--echo_log", "--sweep_batches=120,4096"});
  EXPECT_EQ(p.options.epochs, 500);
  EXPECT_EQ(p.options.devices, (std::vector<std::string>{"cuda"}));
  EXPECT_EQ(p.options.intervals, (std::vector<int64_t>{0, 500}));
  EXPECT_EQ(p.options.sweep_batches, (std::vector<int64_t>{120, 4096}));
  EXPECT_TRUE(p.options.echo_log);
  EXPECT_EQ(p.rest,
            (std::vector<std::string>{"--benchmark_filter=ItemSync", "--benchmark_repetitions=3"}));
}

TEST(BenchOptions, BadValuesNameTheFlagAndWhatWasExpected) {
  EXPECT_EQ(error_of({"--epochs=0"}), "--epochs: expected a positive integer, got '0'");
  EXPECT_EQ(error_of({"--epochs=12x"}), "--epochs: expected a positive integer, got '12x'");
  EXPECT_EQ(error_of({"--epochs"}), "--epochs: expected --epochs=VALUE");
  EXPECT_EQ(error_of({"--devices=cpu,tpu"}), "--devices: expected cpu and/or cuda, got 'tpu'");
  EXPECT_NE(error_of({"--intervals=100,-5"}).find("--intervals: expected intervals >= 0"),
            std::string::npos);
  EXPECT_NE(error_of({"--intervals=100,"}).find("comma-separated"), std::string::npos);
  EXPECT_EQ(error_of({"--print100=2"}), "--print100: expected 0 and/or 1, got '2'");
  EXPECT_NE(error_of({"--batches=0"}).find("batch sizes >= 1"), std::string::npos);
  EXPECT_NE(error_of({"--warmup_epochs=-1"}).find("an integer >= 0"), std::string::npos);
}

TEST(BenchOptions, BudgetIsPositiveSecondsOrNone) {
  EXPECT_EQ(parse({}).options.budget_s, 0.0);  // no budget unless asked for
  EXPECT_DOUBLE_EQ(parse({"--budget_s=2.5"}).options.budget_s, 2.5);
  for (const char* bad : {"0", "-1", "abc", "", "1e99", "nan"})
    EXPECT_EQ(error_of({std::string("--budget_s=") + bad}),
              std::string("--budget_s: expected a positive number of seconds, got '") + bad + "'");
  EXPECT_EQ(error_of({"--budget_s"}), "--budget_s: expected --budget_s=VALUE");
}

TEST(BenchOptions, ValuesComeAfterTheEqualsSignAndTheLastOneWins) {
  // A bare flag never takes the next argument as its value; an empty value is refused in the
  // flag's own words.
  EXPECT_EQ(error_of({"--budget_s", "--benchmark_filter=x"}),
            "--budget_s: expected --budget_s=VALUE");
  EXPECT_EQ(error_of({"--data_dir="}),
            "--data_dir: expected a folder holding iris_train.csv and iris_test.csv");
  EXPECT_EQ(error_of({"--intervals="}), "--intervals: expected a comma-separated list, got ''");
  EXPECT_NE(error_of({"--echo_log=maybe"}).find("echo_log"), std::string::npos);
  EXPECT_EQ(parse({"--epochs=5", "--epochs=7"}).options.epochs, 7);
  // --help is bench's and Google Benchmark's: kept for it, with every argument not bench's, in
  // order.
  const auto p = parse({"--help", "--benchmark_filter=x", "--epochs=5", "stray", "-v"});
  EXPECT_TRUE(p.options.help);
  EXPECT_EQ(p.options.epochs, 5);
  EXPECT_EQ(p.rest, (std::vector<std::string>{"--help", "--benchmark_filter=x", "stray", "-v"}));
}
