// Blocking syncs and the op that caused each: hand-built records with known answers, and
// the real A100 trace with one .item().
#include <gtest/gtest.h>

#include "trace/analyze/step_report.h"
#include "trace/analyze/sync_causes.h"
#include "trace/export/report_json.h"
#include "trace_test_util.h"

namespace {
trace::ApiRecord api(const char* name, uint64_t s, uint64_t e, uint32_t corr, uint32_t thread = 1) {
  return {s, e, corr, thread, trace::classify_api(name), false, name};
}
}  // namespace

TEST(SyncCauses, OpsThatStartAndEndTogetherNestInRecordOrder) {
  // aten::to calls aten::_to_copy; at microsecond resolution both span the same time.
  trace::RecordSet r;
  r.cpu_ops = {
      {100, 200, 1, "aten::to"}, {100, 200, 1, "aten::_to_copy"}, {110, 190, 1, "aten::copy_"}};
  r.api = {api("cudaMemcpy", 120, 180, 4)};
  const auto rep = trace::find_syncs(r);
  ASSERT_EQ(rep.calls.size(), 1u);
  EXPECT_EQ(rep.calls[0].op_path, "aten::to > aten::_to_copy > aten::copy_");
}

TEST(SyncCauses, ItemBlocksTwiceUnderOneOp) {
  trace::RecordSet r;
  r.cpu_ops = {{0, 100, 1, "aten::item"},
               {5, 95, 1, "aten::_local_scalar_dense"},
               {200, 300, 1, "aten::add"}};
  r.api = {api("cudaLaunchKernel", 1, 4, 1),
           api("cudaMemcpyAsync", 10, 60, 2),  // D2H into pageable memory: blocks
           api("cudaStreamSynchronize", 60, 90, 0),
           api("cudaMemcpyAsync", 210, 220, 3),         // D2H into pinned memory: does not block
           api("cudaDeviceSynchronize", 400, 470, 0)};  // outside any op
  r.kernels = {{0, 50, 1, 0, 7, "k"}};
  r.memcpys = {{55, 58, 2, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pageable},
               {215, 216, 3, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pinned}};
  const auto rep = trace::find_syncs(r);
  ASSERT_EQ(rep.calls.size(), 3u);
  EXPECT_EQ(rep.calls[0].api, "cudaMemcpyAsync");
  EXPECT_EQ(rep.calls[0].op, "aten::_local_scalar_dense");
  EXPECT_EQ(rep.calls[0].op_path, "aten::item > aten::_local_scalar_dense");
  EXPECT_EQ(rep.calls[0].blocked_ns, 50u);
  EXPECT_EQ(rep.calls[0].gpu_queued_ns, 40u + 3u);  // kernel [10,50] + copy [55,58]
  EXPECT_EQ(rep.calls[1].gpu_queued_ns, 0u);
  EXPECT_EQ(rep.calls[2].op, "(no op)");
  ASSERT_EQ(rep.by_cause.size(), 2u);
  EXPECT_EQ(rep.by_cause[0].op, "aten::_local_scalar_dense");  // 80 ns before the device sync's 70
  EXPECT_EQ(rep.by_cause[0].calls, 2u);                        // API calls: copy + stream sync
  EXPECT_EQ(rep.by_cause[0].op_occurrences, 1u);               // one .item()
  EXPECT_EQ(rep.by_cause[0].blocked_ns, 80u);
  EXPECT_EQ(rep.by_cause[0].sync_ns, 30u);
  EXPECT_EQ(rep.by_cause[0].blocking_copy_ns, 50u);
  EXPECT_EQ(rep.calls[0].kind, trace::Blocking::CopyPageable);
  EXPECT_EQ(rep.calls[1].kind, trace::Blocking::Sync);
  EXPECT_EQ(rep.syncs, 2u);
  EXPECT_EQ(rep.sync_ns, 100u);
  EXPECT_EQ(rep.blocking_copies, 1u);
  EXPECT_EQ(rep.blocked_ns, 150u);
}

TEST(BlockingCalls, WhyACopyBlocks) {
  using trace::Blocking;
  const auto copy = [](trace::CopyKind k, trace::MemoryKind src, trace::MemoryKind dst) {
    return trace::MemcpyRecord{0, 1, 1, 0, 7, 4, k, src, dst};
  };
  const auto pageable_h2d =
      copy(trace::CopyKind::HtoD, trace::MemoryKind::Pageable, trace::MemoryKind::Device);
  const auto pinned_d2h =
      copy(trace::CopyKind::DtoH, trace::MemoryKind::Device, trace::MemoryKind::Pinned);
  const auto d2d =
      copy(trace::CopyKind::DtoD, trace::MemoryKind::Device, trace::MemoryKind::Device);
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpyAsync", 0, 1, 1), &pageable_h2d),
            Blocking::CopyPageable);
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpyAsync", 0, 1, 1), &pinned_d2h), Blocking::No);
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpyAsync", 0, 1, 1), nullptr),
            Blocking::No);  // unknown memory
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpy", 0, 1, 1), &pinned_d2h), Blocking::CopyNotAsync);
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpy", 0, 1, 1), nullptr), Blocking::CopyNotAsync);
  EXPECT_EQ(trace::blocking_kind(api("cudaMemcpy", 0, 1, 1), &d2d),
            Blocking::No);  // the driver only queues it
  EXPECT_EQ(trace::blocking_kind(api("cudaStreamSynchronize", 0, 1, 1), nullptr), Blocking::Sync);
  EXPECT_EQ(trace::blocking_kind(api("cudaLaunchKernel", 0, 1, 1), nullptr), Blocking::No);
}

TEST(SyncCauses, DriverCallInsideRuntimeCallCountsOnce) {
  trace::RecordSet r;
  r.api = {api("cudaStreamSynchronize", 10, 50, 0)};
  trace::ApiRecord d = api("cuStreamSynchronize", 12, 48, 0);
  d.driver = true;
  r.api.push_back(d);
  EXPECT_EQ(trace::find_syncs(r).calls.size(), 1u);
}

TEST(SyncCauses, RealA100TraceNamesTheItem) {
  const auto t = trace::import_trace(tracetest::data("traces/a100-event-sync.json.gz"));
  const auto rep = trace::find_syncs(t.records);
  bool item = false;
  for (const auto& c : rep.by_cause) item |= c.op == "aten::_local_scalar_dense";
  EXPECT_TRUE(item);
  for (const auto& c : rep.calls) EXPECT_EQ(c.step, 0) << c.api;  // all inside ProfilerStep#100
}

TEST(StepReport, StepsAndTotalOnRealTrace) {
  auto t = trace::import_trace(tracetest::data("traces/a100-cuda-graphs-6streams.json.gz"));
  const auto rep = trace::build_report(t);
  ASSERT_EQ(rep.steps.size(), 5u);
  uint64_t kernels = 0;
  for (const auto& s : rep.steps) {
    EXPECT_GT(s.wall_ns, 0u);
    EXPECT_LE(s.a.gpu_busy_ns + s.a.gpu_idle_ns(), s.wall_ns + 1);  // busy + idle = the window
    kernels += s.a.kernels;
  }
  EXPECT_LE(kernels, rep.total.a.kernels);
  EXPECT_GT(rep.total.a.kernels, 6000u);
  trace::JsonOut out;
  trace::write_report_json(out, rep);
  EXPECT_NE(out.str().find("\"syncs_by_cause\""), std::string::npos);
}

// The identities every page relies on, on every real trace, per step and over the whole trace:
// the blocking calls listed (find_syncs) are exactly the attribution's sync and blocking-copy
// time (two code paths, one definition: blocking_calls.h); the host time splits into launch
// calls + syncs + blocking copies + the rest; the GPU window into busy + idle by cause.
TEST(StepReport, IdentitiesHoldOnEveryRealTrace) {
  for (const char* stem :
       {"a100-alexnet-syncs.json.gz", "a100-cuda-graphs-6streams.json.gz",
        "a100-event-sync-multistream.json.gz", "a100-event-sync.json.gz", "cpu-only.json.gz",
        "gp100-steps-annotations.json.gz", "mi250-rocm.json.gz", "two-ranks/rank-0.json.gz",
        "two-ranks/rank-1.json.gz"}) {
    const auto t = trace::import_trace(tracetest::data(std::string("traces/") + stem));
    const auto rep = trace::build_report(t);
    const bool gpu =
        !(t.records.kernels.empty() && t.records.memcpys.empty() && t.records.memsets.empty());
    const auto check = [&](const trace::StepFigures& f, int step) {
      const std::string where = std::string(stem) + " " + f.name;
      uint64_t syncs = 0, sync_ns = 0, copies = 0, copy_ns = 0;
      for (const auto& c : rep.syncs.calls) {
        if (step >= 0 && c.step != step) continue;
        if (c.kind == trace::Blocking::Sync)
          ++syncs, sync_ns += c.blocked_ns;
        else
          ++copies, copy_ns += c.blocked_ns;
      }
      EXPECT_EQ(syncs, f.a.syncs) << where;
      EXPECT_EQ(sync_ns, f.a.sync_api_ns) << where;
      EXPECT_EQ(copies, f.a.blocking_copies) << where;
      EXPECT_EQ(copy_ns, f.a.blocking_copy_ns) << where;
      EXPECT_EQ(f.a.blocked_ns, f.a.sync_api_ns + f.a.blocking_copy_ns) << where;
      EXPECT_EQ(f.a.memcpy_api_ns, f.a.blocking_copy_ns + f.a.nonblocking_copy_ns) << where;
      EXPECT_EQ(static_cast<int64_t>(f.wall_ns),
                static_cast<int64_t>(f.a.launch_api_ns + f.a.sync_api_ns + f.a.blocking_copy_ns) +
                    f.a.host_rest_ns())
          << where;
      if (gpu)
        EXPECT_EQ(f.a.gpu_busy_ns + f.a.gpu_idle_ns(), f.wall_ns) << where;
      else
        EXPECT_EQ(f.a.gpu_busy_ns + f.a.gpu_idle_ns(), 0u) << where;
    };
    for (size_t i = 0; i < rep.steps.size(); ++i) check(rep.steps[i], static_cast<int>(i));
    check(rep.total, -1);
    EXPECT_EQ(rep.syncs.blocked_ns, rep.total.a.blocked_ns) << stem;
  }
}
