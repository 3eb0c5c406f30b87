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
  r.cpu_ops = {{100, 200, 1, "aten::to"}, {100, 200, 1, "aten::_to_copy"}, {110, 190, 1, "aten::copy_"}};
  r.api = {api("cudaMemcpy", 120, 180, 4)};
  const auto rep = trace::find_syncs(r);
  ASSERT_EQ(rep.calls.size(), 1u);
  EXPECT_EQ(rep.calls[0].op_path, "aten::to > aten::_to_copy > aten::copy_");
}

TEST(SyncCauses, ItemBlocksTwiceUnderOneOp) {
  trace::RecordSet r;
  r.cpu_ops = {{0, 100, 1, "aten::item"}, {5, 95, 1, "aten::_local_scalar_dense"}, {200, 300, 1, "aten::add"}};
  r.api = {api("cudaLaunchKernel", 1, 4, 1),
           api("cudaMemcpyAsync", 10, 60, 2),        // D2H into pageable memory: blocks
           api("cudaStreamSynchronize", 60, 90, 0),
           api("cudaMemcpyAsync", 210, 220, 3),      // D2H into pinned memory: does not block
           api("cudaDeviceSynchronize", 400, 470, 0)};  // outside any op
  r.kernels = {{0, 50, 1, 0, 7, "k"}};
  r.memcpys = {{55, 58, 2, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device, trace::MemoryKind::Pageable},
               {215, 216, 3, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device, trace::MemoryKind::Pinned}};
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
  EXPECT_EQ(rep.by_cause[0].calls, 1u);      // one .item()
  EXPECT_EQ(rep.by_cause[0].api_calls, 2u);  // copy + stream sync
  EXPECT_EQ(rep.by_cause[0].blocked_ns, 80u);
  EXPECT_EQ(rep.blocked_ns, 150u);
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
