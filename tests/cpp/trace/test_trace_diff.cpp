// ./attribute --diff A B (analyze/trace_diff.h through run/run.h): a trace against itself differs
// in nothing; the H100 toy block's runs are matched step by step and their differences are the
// ones the modes make; two different programs, or no common steps, are bad input naming both
// files, exit 2 and nothing written.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "trace/analyze/trace_diff.h"
#include "trace/import/byte_source.h"
#include "trace/run/run.h"
#include "trace_test_util.h"

namespace {

const std::string kEager = tracetest::data("traces_pairs/h100-toyblock-eager.json.gz");
const std::string kDefault = tracetest::data("traces_pairs/h100-toyblock-compile-default.json.gz");
const std::string kGraphs =
    tracetest::data("traces_pairs/h100-toyblock-compile-reduce-overhead.json.gz");
const std::string kAutotune =
    tracetest::data("traces_pairs/h100-toyblock-compile-max-autotune.json.gz");
const std::string kAlexnet = tracetest::data("traces/a100-alexnet-syncs.json.gz");
const std::string kSixStreams = tracetest::data("traces/a100-cuda-graphs-6streams.json.gz");

trace::RunOutput diff(const std::string& a, const std::string& b, const std::string& starts = "",
                      std::vector<std::string> what_ifs = {}) {
  trace::RunOptions o;
  o.inputs = {a, b};
  o.diff = true, o.frames = true;
  o.step_starts = starts;
  for (const auto& w : what_ifs) o.what_ifs.push_back(trace::replay::parse_what_if(w));
  return trace::run(o);
}

// The value of `column` in the row of `section`, `item`, `figure` of the diff table.
double cell(const trace::RunOutput& out, const std::string& section, const std::string& item,
            const std::string& figure, const std::string& column) {
  const auto& cols = out.frames.at("diff_rows").columns();
  const auto text = [&](size_t c, size_t row) {
    return cols[c].categories[static_cast<size_t>(cols[c].codes[row])];
  };
  for (size_t row = 0; row < cols[0].codes.size(); ++row)
    if (text(0, row) == section && text(1, row) == item && text(2, row) == figure)
      for (const auto& c : cols)
        if (c.name == column) return c.f64[row];
  ADD_FAILURE() << "no row " << section << " / " << item << " / " << figure;
  return NAN;
}

int cli(const std::string& args) {
  const int rc = std::system((std::string(ATTRIBUTE_BIN) + " " + args + " 2>/dev/null").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// A trace of one ProfilerStep#N per number, 100 us apart, each launching one GEMM of `us` us.
trace::ImportedTrace steps_trace(const std::vector<int>& numbers, int us = 30) {
  std::string events;
  int t = 1000, correlation = 1;
  for (int n : numbers) {
    const std::string at = std::to_string(t), c = std::to_string(correlation++);
    events += std::string(events.empty() ? "" : ",") +
              R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(n) +
              R"(","pid":1,"tid":1,"ts":)" + at + R"(,"dur":90},)" +
              R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
              std::to_string(t + 10) + R"(,"dur":5,"args":{"correlation":)" + c + "}}," +
              R"({"ph":"X","cat":"kernel","name":"ampere_sgemm_64x64_nn","pid":0,"tid":7,"ts":)" +
              std::to_string(t + 20) + R"(,"dur":)" + std::to_string(us) +
              R"(,"args":{"correlation":)" + c + R"(,"device":0,"stream":7}})";
    t += 100;
  }
  return tracetest::import_text(R"({"traceEvents":[)" + events + "]}");
}

}  // namespace

// ProfilerStep#N by name where the two runs share numbers, else step i with step i; what is
// left over is said.
TEST(TraceDiff, StepsMatchByNameElseByPosition) {
  const auto a = steps_trace({2, 3, 4}), shifted = steps_trace({3, 4, 5}, 60),
             renumbered = steps_trace({11, 12}, 60);
  const auto ra = trace::build_report(a), rs = trace::build_report(shifted),
             rr = trace::build_report(renumbered);
  const auto by_name = trace::diff_reports(ra, rs);
  EXPECT_EQ(by_name.match, "by name");
  ASSERT_EQ(by_name.pairs.size(), 2u);  // #3 and #4
  EXPECT_EQ(by_name.pairs[0], (std::pair<size_t, size_t>{1, 0}));
  ASSERT_EQ(by_name.notes.size(), 1u);
  EXPECT_NE(by_name.notes[0].find("2 steps matched of A's 3 and B's 3"), std::string::npos);
  const auto& kernels = by_name.sections.at(4);
  ASSERT_EQ(kernels.name, "kernels by name");
  ASSERT_EQ(kernels.rows.size(), 2u);  // count, then time: 2 kernels each side, 30 -> 60 us
  EXPECT_EQ(kernels.rows[1].a, 60.0);
  EXPECT_EQ(kernels.rows[1].b, 120.0);
  EXPECT_EQ(*kernels.rows[1].ratio(), 2.0);
  const auto by_position = trace::diff_reports(ra, rr);
  EXPECT_EQ(by_position.match, "by position");
  ASSERT_EQ(by_position.pairs.size(), 2u);
  EXPECT_EQ(by_position.sections.at(0).rows.at(0).item, "ProfilerStep#2 ~ ProfilerStep#11");
}

// Every figure of a trace beside itself: B - A is 0 and B / A is 1 (or none, where A is 0).
TEST(TraceDiff, ATraceAgainstItselfDiffersInNothing) {
  for (const auto& [trace, starts] : {std::pair{kAlexnet, ""},
                                      {kSixStreams, ""},
                                      {kEager, "aten::layer_norm"},
                                      {kGraphs, "Torch-Compiled Region"},
                                      {kDefault, ""}}) {
    const auto out = diff(trace, trace, starts);
    const auto& cols = out.frames.at("diff_rows").columns();
    size_t rows = 0;
    for (const auto& c : cols) {
      if (c.name == "diff")
        for (double v : c.f64) {
          EXPECT_EQ(v, 0.0) << trace;
          ++rows;
        }
      if (c.name == "ratio")
        for (double v : c.f64) EXPECT_TRUE(std::isnan(v) || v == 1.0) << trace;
    }
    EXPECT_GT(rows, 20u) << trace;
    EXPECT_NE(out.json.find("\"words_in_common\":1,"), std::string::npos) << trace;
  }
  const auto steps = diff(kSixStreams, kSixStreams);  // ProfilerStep#N
  EXPECT_NE(steps.json.find("\"match\":\"by name\""), std::string::npos);
}

// default -> reduce-overhead: the same Inductor kernels, 5 calls each, launched as CUDA graphs.
TEST(TraceDiff, CompiledRunsAreMatchedCallByCall) {
  const auto out = diff(kDefault, kGraphs, "Torch-Compiled Region");
  // --step-starts names its steps "step 1" ... "step N": matched by name, call i with call i
  EXPECT_NE(out.json.find("\"match\":\"by name\",\"a_steps\":5,\"b_steps\":5,"
                          "\"matched_steps\":5"),
            std::string::npos)
      << out.json.substr(0, 400);
  EXPECT_EQ(cell(out, "summary", "", "kernels", "a"), 125);
  EXPECT_EQ(cell(out, "summary", "", "launches", "a"), 125);
  EXPECT_LE(cell(out, "summary", "", "launches", "b"), 10);  // a graph launch per call, and a copy
  EXPECT_LT(cell(out, "steps", "matched steps", "wall_us", "ratio"), 1.0);
  for (const char* section : {"steps", "summary", "syncs by call site", "copies by kind",
                              "kernels by name", "idle by cause", "classes"})
    EXPECT_NE(out.text.find(std::string("\n") + section + ": "), std::string::npos) << section;
}

// Without step flags the toy block has no steps: the whole traces side by side.
TEST(TraceDiff, EveryModeAgainstEagerComparesTheWholeTraces) {
  for (const auto& b : {kDefault, kGraphs, kAutotune}) {
    const auto out = diff(kEager, b);
    EXPECT_NE(out.json.find("\"match\":\"whole trace\""), std::string::npos) << b;
    EXPECT_EQ(cell(out, "summary", "", "kernels", "a"), 200) << b;
  }
}

// The what-ifs replay A; each window's prediction stands beside B's measurement.
TEST(TraceDiff, WhatIfsOnAAreSetBesideB) {
  const auto out = diff(kDefault, kGraphs, "Torch-Compiled Region", {"graph-steps"});
  const auto& cols = out.frames.at("diff_predictions").columns();
  ASSERT_EQ(cols[0].codes.size(), 12u);  // the replay and the what-if: 5 calls and their sum
  EXPECT_EQ(cols[0].categories.at(1), "graph-steps");
  EXPECT_NE(out.text.find("what-if on A beside B"), std::string::npos);
}

TEST(TraceDiff, TwoProgramsOrNoCommonStepsAreBadInputNamingBoth) {
  try {
    diff(kAlexnet, kEager);
    FAIL() << "two programs";
  } catch (const trace::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(kAlexnet), std::string::npos) << what;
    EXPECT_NE(what.find(kEager), std::string::npos) << what;
    EXPECT_NE(what.find("not two traces of one program"), std::string::npos) << what;
  }
  try {
    diff(kDefault, kEager, "Torch-Compiled Region");
    FAIL() << "no common steps";
  } catch (const trace::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no common steps"), std::string::npos) << what;
    EXPECT_NE(what.find(kEager), std::string::npos) << what;
    EXPECT_NE(what.find(kDefault), std::string::npos) << what;
  }
  const std::string out = ::testing::TempDir() + "/diff.json";
  std::remove(out.c_str());
  EXPECT_EQ(cli("--diff --json " + out + " " + kAlexnet + " " + kEager), 2);
  EXPECT_EQ(cli("--diff --json " + out + " --step-starts 'Torch-Compiled Region' " + kDefault +
                " " + kEager),
            2);
  EXPECT_EQ(cli("--diff --json " + out + " " + kEager), 2);  // one trace
  EXPECT_EQ(cli("--diff --hta --json " + out + " " + kEager + " " + kEager), 2);
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_EQ(cli("--quiet --diff --json " + out + " " + kEager + " " + kDefault), 0);
  EXPECT_TRUE(std::ifstream(out).good());
}
