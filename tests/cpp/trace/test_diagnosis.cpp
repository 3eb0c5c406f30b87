// The diagnosis' headline on every shared real trace, as docs/diagnosis.md wrote it down by hand
// before the rules were coded: each test says what the trace must be called, and what not.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "synthetic_records.h"
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

// The report of one test trace, its advice replayed (the what-ifs the diagnosis gates). Read as
// ./attribute reads every file: with bench's step phase, which only bench's own traces hold.
const trace::TraceReport& diagnosed(const std::string& file) {
  static std::map<std::string, std::unique_ptr<Diagnosed>> cache;
  auto& slot = cache[file];
  if (!slot) {
    slot = std::make_unique<Diagnosed>();
    slot->trace = trace::import_file(tracetest::data(file), tracetest::bench_files());
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

// 3.3, 3.5, 3.10, 3.11, 3.18: cold profiles (one-shot programs, a compile, lazy module loading in
// 17 ms launches, a one-shot test whose context creation and setup are most of it); the advice
// is to profile the steady state, never graphs.
TEST(Diagnosis, ColdProfilesSaySoAndAdviseProfilingWarm) {
  for (const char* file :
       {"traces/a100-alexnet-syncs.json.gz", "traces/mi250-rocm.json.gz",
        "traces_warmup/rtx4090d-resnet18-compile-cold.json.gz", "nsys/rtx3080-small.sqlite.gz",
        "nsys/gtx1060-concurrent-streams.sqlite.gz"}) {
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
  // Its item run ahead by workers, replayed: close to the "up to" it states.
  EXPECT_EQ(d.findings.front().what_if.rfind("workers=", 0), 0u);
  EXPECT_GT(d.findings.front().replayed_ns, static_cast<int64_t>(d.findings.front().saving_ns / 2));
}

// 3.24-3.25: pageable copies: pinned memory, not "read the value less often". The thread is held
// in each pageable copy while its GEMMs run out on a side stream that no one waits for: the
// copies are the path, the GEMMs beside it (R3).
TEST(Diagnosis, PageableCopiesGetPinnedMemory) {
  const auto& rep = diagnosed("traces_copies/a100-sidestreams-blocking.json.gz");
  const auto& d = rep.diagnosis;
  EXPECT_EQ(d.verdict, Bound::Copies) << trace::verdict_line(d);
  EXPECT_GT(d.steady.share(Bound::Copies), 0.6) << trace::verdict_line(d);
  EXPECT_TRUE(finding_fix_has(d, "pin the host memory"));
  for (const auto& f : rep.advice) EXPECT_EQ(f.what_if.rfind("no-syncs", 0), std::string::npos);
  // The same program with the device-to-host copies non-blocking: the pageable host-to-device
  // copies left are named; the pinned pool's growth (cudaHostAlloc) holds the thread beside the
  // GEMMs too.
  const auto& after = diagnosed("traces_copies/a100-sidestreams-nonblocking.json.gz").diagnosis;
  EXPECT_EQ(after.verdict, Bound::Copies) << trace::verdict_line(after);
  EXPECT_TRUE(finding_fix_has(after, "pin the host memory"));
}

// 3.4, 3.12, 3.13: no ProfilerStep; the iterations are a range the program repeats (R1). The
// MPI loop's GPU waits on CPU loops in main, seen only in CPU samples: other host work, named,
// not idle; the power iteration's IO ranges, numbered per step, are one item.
TEST(Diagnosis, RepeatedRangesAreTheStepsAndSamplesNameUntracedHostWork) {
  const auto& gp100 = diagnosed("traces/gp100-steps-annotations.json.gz").diagnosis;
  EXPECT_FALSE(gp100.whole_trace);
  EXPECT_EQ(gp100.windows, 5u) << gp100.steps_from;
  EXPECT_EQ(gp100.verdict, Bound::PerOpHost) << trace::verdict_line(gp100);
  const auto& mpi = diagnosed("nsys/a100-saxpy-mpi.sqlite.gz").diagnosis;
  EXPECT_EQ(mpi.windows, 5u) << mpi.steps_from;
  EXPECT_EQ(mpi.verdict, Bound::OtherHost) << trace::verdict_line(mpi);
  ASSERT_FALSE(mpi.findings.empty());
  EXPECT_EQ(mpi.findings.front().where.rfind("main (in CPU samples", 0), 0u)
      << mpi.findings.front().where;
  EXPECT_FALSE(mpi.launch_bound);
  const auto& power = diagnosed("nsys/t4-power-iteration.sqlite.gz").diagnosis;
  EXPECT_GE(power.windows, 40u) << power.steps_from;
  EXPECT_EQ(power.verdict, Bound::GpuCompute) << trace::verdict_line(power);
  EXPECT_EQ(power.runner_up, Bound::OtherHost);
  bool io = false;
  for (const auto& f : power.findings) io |= f.where == "range IO # with no op open";
  EXPECT_TRUE(io);
}

// The graph's saving says what the capture check found: whether the steady steps launch the
// same kernels in the same order, and the blocking calls a capture cannot hold; the other host
// work stays out of the saving (a graph holds the per-op path only).
TEST(Diagnosis, TheGraphSavingSaysWhatTheCaptureCheckFound) {
  const auto& compiled = diagnosed("traces_pairs/h100-toyblock-compile-default.json.gz").diagnosis;
  ASSERT_TRUE(compiled.capture.checked);
  EXPECT_EQ(compiled.capture.steps, 4u);
  EXPECT_EQ(compiled.capture.same, 4u);
  EXPECT_EQ(compiled.capture.kernels, 25u);
  ASSERT_FALSE(compiled.findings.empty());
  EXPECT_NE(compiled.findings.front().assumption.find("launch the same 25 kernels"),
            std::string::npos)
      << compiled.findings.front().assumption;
  const auto& loop = diagnosed("traces/gp100-steps-annotations.json.gz").diagnosis;
  EXPECT_EQ(loop.capture.steps, 5u);
  EXPECT_EQ(loop.capture.same, 4u);  // the last step is cut
  EXPECT_GT(loop.capture.blocking, 0u);
  const uint64_t other =
      loop.steady.ns[static_cast<size_t>(Bound::OtherHost)] / (loop.windows - loop.cold_windows);
  EXPECT_LE(loop.findings.front().saving_ns + other, loop.steady_step_ns);
}

// R3 on hand-built records: kernels queued on stream 20, then a pageable copy on stream 7 that
// holds the thread 10 ms. When no one waits for the kernels, they run beside the copy; when a
// sync returns as they run out, they are the path.
trace::RecordSet held_copy(bool sync_after) {
  using testdata::api;
  using testdata::kernel;
  trace::RecordSet r;
  const uint64_t ms = 1'000'000;
  for (uint32_t i = 0; i < 8; ++i) {
    r.api.push_back(api("cudaLaunchKernel", i * 10'000, i * 10'000 + 5'000, i + 1));
    r.kernels.push_back(kernel(100'000 + i * ms, 100'000 + (i + 1) * ms, i + 1, 20, "sgemm"));
  }
  r.api.push_back(api("cudaMemcpyAsync", ms, 11 * ms, 100));
  r.memcpys.push_back({9 * ms, 11 * ms, 100, 0, 7, 1 << 20, trace::CopyKind::HtoD,
                       trace::MemoryKind::Pageable, trace::MemoryKind::Device});
  if (sync_after) {  // the copy returns later than the kernels: a sync waits for them after it
    r.api.back().end_ns = 7 * ms;
    r.memcpys.back().start_ns = 6 * ms, r.memcpys.back().end_ns = 7 * ms;
    r.api.push_back(api("cudaDeviceSynchronize", 7 * ms, 8 * ms + 150'000, 0));
  }
  return r;
}

TEST(Diagnosis, WorkBesideAHeldCopyIsOffItsPathUnlessAwaited) {
  const trace::RecordSet beside = held_copy(false);
  const trace::AttributionIndex index_beside(beside);
  const auto d = trace::diagnose(beside, index_beside, {});
  EXPECT_EQ(d.verdict, Bound::Copies) << trace::verdict_line(d);
  const trace::RecordSet awaited = held_copy(true);
  const trace::AttributionIndex index_awaited(awaited);
  const auto e = trace::diagnose(awaited, index_awaited, {});
  EXPECT_EQ(e.verdict, Bound::GpuCompute) << trace::verdict_line(e);
  // Pinning 10 ms of host memory instead of the copy: the thread's own host work (cold work,
  // R11: pinned-pool growth) is the path, not the kernels beside it.
  trace::RecordSet pinning = held_copy(false);
  pinning.api.back() = testdata::api("cudaHostAlloc", 1'000'000, 11'000'000, 100);
  pinning.memcpys.clear();
  const trace::AttributionIndex index_pinning(pinning);
  const auto p = trace::diagnose(pinning, index_pinning, {});
  EXPECT_LT(p.steady.ns[static_cast<size_t>(Bound::GpuCompute)], 2'000'000u);
  EXPECT_GE(p.cold_ns, 9'000'000u);
}

// 3.2, 3.7-3.8, 3.14, 3.19, 3.21, 3.23 and our H200 epoch (3.26): each headline as
// docs/diagnosis.md wrote it by hand.
TEST(Diagnosis, TheOtherSharedTracesHeadlines) {
  const auto verdict = [](const char* file) { return diagnosed(file).diagnosis.verdict; };
  const auto line = [](const char* file) { return trace::verdict_line(diagnosed(file).diagnosis); };
  // 3.2: a gap no event covers, not a sync or launch verdict.
  EXPECT_EQ(verdict("traces/a100-event-sync-multistream.json.gz"), Bound::Untraced)
      << line("traces/a100-event-sync-multistream.json.gz");
  // 3.7-3.8: GPU idle with work queued (records missing), exposed communication runner-up.
  for (const char* rank : {"traces/two-ranks/rank-0.json.gz", "traces/two-ranks/rank-1.json.gz"}) {
    EXPECT_EQ(verdict(rank), Bound::QueuedIdle) << line(rank);
    EXPECT_EQ(diagnosed(rank).diagnosis.runner_up, Bound::Communication) << line(rank);
  }
  // 3.14: copies, not compute.
  EXPECT_EQ(verdict("nsys/h100-pytorch-2gpu.sqlite.gz"), Bound::Copies)
      << line("nsys/h100-pytorch-2gpu.sqlite.gz");
  // 3.19, 3.23: GPU compute; 3.21: per-op host overhead.
  EXPECT_EQ(verdict("traces_warmup/rtx4090d-resnet18-compile-warm.json.gz"), Bound::GpuCompute);
  EXPECT_EQ(verdict("traces_pairs/h100-toyblock-compile-max-autotune.json.gz"), Bound::GpuCompute);
  EXPECT_EQ(verdict("traces_pairs/h100-toyblock-compile-default.json.gz"), Bound::PerOpHost);
  // 3.26: the article's epoch on the H200: per-op host overhead, launch-bound, with the launch
  // calls' own share, over bench's epochs.
  const auto& h200 =
      diagnosed(
          "../../results/nvidia-h200/traces/ItemSync_cuda_interval-1_print100-0_batch-120"
          ".trace.json")
          .diagnosis;
  EXPECT_EQ(h200.verdict, Bound::PerOpHost) << trace::verdict_line(h200);
  EXPECT_TRUE(h200.launch_bound);
  EXPECT_GT(h200.launch_call_ns, 0u);
  EXPECT_FALSE(h200.whole_trace);
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
