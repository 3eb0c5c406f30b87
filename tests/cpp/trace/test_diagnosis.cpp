// The diagnosis' headline on every shared real trace, as docs/diagnosis.md wrote it down by hand
// before the rules were coded: each test says what the trace must be called, and what not.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "trace/analyze/advice.h"
#include "trace/analyze/diagnosis.h"
#include "trace/analyze/step_report.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

namespace {

using trace::Bound;

struct Diagnosed {
  trace::ImportedTrace trace;
  trace::TraceReport report;
};

// The report of one test trace, its advice replayed (the what-ifs the diagnosis gates).
const trace::TraceReport& diagnosed(const std::string& file) {
  static std::map<std::string, std::unique_ptr<Diagnosed>> cache;
  auto& slot = cache[file];
  if (!slot) {
    slot = std::make_unique<Diagnosed>();
    slot->trace = trace::import_file(tracetest::data(file));
    slot->report = trace::build_report(slot->trace);
    trace::add_advice(&slot->report, trace::AdviceMode::On);
  }
  return slot->report;
}

bool advises(const trace::TraceReport& rep, const std::string& what_if) {
  for (const auto& f : rep.advice)
    if (f.what_if.rfind(what_if, 0) == 0) return true;
  return false;
}

bool finding_fix_has(const trace::Diagnosis& d, const std::string& words) {
  for (const auto& f : d.findings)
    if (f.fix.find(words) != std::string::npos) return true;
  return false;
}

// 3.1: a first-op host stall, not launch overhead, not the syncs.
TEST(Diagnosis, EventSyncIsOtherHostWorkNotLaunchBound) {
  const auto& rep = diagnosed("traces/a100-event-sync.json.gz");
  const auto& d = rep.diagnosis;
  EXPECT_NE(d.verdict, Bound::PerOpHost) << trace::verdict_line(d);
  EXPECT_NE(d.verdict, Bound::SyncWait);
  EXPECT_FALSE(d.launch_bound);
  EXPECT_FALSE(advises(rep, "graph-steps"));
}

// 3.3, 3.5, 3.10, 3.18: cold profiles (one-shot programs, a compile, lazy module loading in
// 17 ms launches); the advice is to profile the steady state, never graphs.
TEST(Diagnosis, ColdProfilesSaySoAndAdviseProfilingWarm) {
  for (const char* file :
       {"traces/a100-alexnet-syncs.json.gz", "traces/mi250-rocm.json.gz",
        "traces_warmup/rtx4090d-resnet18-compile-cold.json.gz", "nsys/rtx3080-small.sqlite.gz"}) {
    const auto& rep = diagnosed(file);
    const auto& d = rep.diagnosis;
    EXPECT_TRUE(d.cold_profile) << file << ": " << trace::verdict_line(d);
    ASSERT_FALSE(d.findings.empty()) << file;
    EXPECT_NE(d.findings.front().fix.find("profile the steady state"), std::string::npos) << file;
    EXPECT_FALSE(advises(rep, "graph-steps")) << file;
  }
}

// 3.4, 3.15, 3.20: per-op host overhead bounds steps of short kernels: launch-bound, graphs.
TEST(Diagnosis, PerOpHostStepsAreLaunchBoundAndGetGraphs) {
  for (const char* file :
       {"traces/gp100-steps-annotations.json.gz", "traces_stacks/h100-bert-small.json.gz",
        "traces_pairs/h100-toyblock-eager.json.gz"}) {
    const auto& d = diagnosed(file).diagnosis;
    EXPECT_EQ(d.verdict, Bound::PerOpHost) << file << ": " << trace::verdict_line(d);
    EXPECT_TRUE(finding_fix_has(d, "CUDA graph")) << file;
  }
}

// 3.6: no GPU events, no GPU verdict and no share of zero GPU time.
TEST(Diagnosis, NoGpuNoVerdict) {
  const auto& d = diagnosed("traces/cpu-only.json.gz").diagnosis;
  EXPECT_FALSE(d.gpu);
  EXPECT_TRUE(d.findings.empty());
}

// 3.16 and 3.22: the GPU bounds the step; no launch advice.
TEST(Diagnosis, GpuBoundStepsAreGpuCompute) {
  for (const char* file : {"traces_stacks/h100-qwen1.5-0.5b-chat.json.gz",
                           "traces_pairs/h100-toyblock-compile-reduce-overhead.json.gz"}) {
    const auto& rep = diagnosed(file);
    EXPECT_EQ(rep.diagnosis.verdict, Bound::GpuCompute)
        << file << ": " << trace::verdict_line(rep.diagnosis);
    EXPECT_FALSE(rep.diagnosis.launch_bound) << file;
  }
}

// 3.17: the GPU waits on preprocessing on the host: other host work, named, no graphs.
TEST(Diagnosis, PreprocessingIsOtherHostWorkAndNamed) {
  const auto& rep = diagnosed("traces_stacks/h100-timesformer-k400.json.gz");
  const auto& d = rep.diagnosis;
  EXPECT_EQ(d.verdict, Bound::OtherHost) << trace::verdict_line(d);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_FALSE(d.findings.front().where.empty());
  EXPECT_NE(d.findings.front().fix.find("a CUDA graph does not remove it"), std::string::npos);
  EXPECT_FALSE(advises(rep, "graph-steps"));
}

// 3.24: pageable copies: pinned memory, not "read the value less often".
TEST(Diagnosis, PageableCopiesGetPinnedMemory) {
  const auto& rep = diagnosed("traces_copies/a100-sidestreams-blocking.json.gz");
  const auto& d = rep.diagnosis;
  // Copies on side streams run beside the GEMMs: copies is the verdict or, within a point or
  // two, named with it (R20).
  EXPECT_TRUE(d.verdict == Bound::Copies ||
              (d.runner_up == Bound::Copies &&
               d.steady.share(d.verdict) - d.steady.share(Bound::Copies) < 0.02))
      << trace::verdict_line(d);
  EXPECT_TRUE(finding_fix_has(d, "pin the host memory"));
  for (const auto& f : rep.advice) EXPECT_EQ(f.what_if.rfind("no-syncs", 0), std::string::npos);
}

// 3.7-3.9: records missing: GPU idle with work queued, said as a caveat; one rank of several.
TEST(Diagnosis, IncompleteTracesSaySo) {
  const auto& d = diagnosed("traces/a100-cuda-graphs-6streams.json.gz").diagnosis;
  EXPECT_EQ(d.verdict, Bound::QueuedIdle) << trace::verdict_line(d);
  bool missing = false, ranks = false;
  for (const auto& c : d.caveats) {
    missing |= c.find("records may be missing") != std::string::npos;
    ranks |= c.find("one rank of several") != std::string::npos;
  }
  EXPECT_TRUE(missing);
  EXPECT_TRUE(ranks);
}

}  // namespace
