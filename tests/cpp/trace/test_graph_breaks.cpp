// torch.compile's graph breaks (analyze/graph_breaks.h): on a trace recorded here on the CPU
// (tests/data/traces_compiled: a `.item()` inside a compiled function and one between two), on a
// hand-built GPU trace with known entries, and the no-syncs what-if merging the regions around
// the breaks it removes.
#include <gtest/gtest.h>

#include "replay_fixture.h"
#include "trace/analyze/graph_breaks.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

using namespace replaytest;

namespace {

const uint64_t us = 1000;

const trace::ImportedTrace& compiled() {
  static const trace::ImportedTrace t =
      trace::import_trace(tracetest::data("traces_compiled/cpu-compiled-item.json.gz"));
  return t;
}

}  // namespace

TEST(GraphBreaks, TheItemsOfACompiledStepOnTheCpuAreNamedByCallSite) {
  const auto rep = trace::build_report(compiled());
  const trace::GraphBreakReport& g = rep.graph_breaks;
  EXPECT_EQ(g.regions, 12u);  // 3 a step: the function, its resumed part, the second function
  ASSERT_EQ(g.breaks.size(), 8u);
  ASSERT_EQ(g.rows.size(), 2u);
  const trace::GraphBreakRow* inside = g.rows[0].inside ? &g.rows[0] : &g.rows[1];
  const trace::GraphBreakRow* between = g.rows[0].inside ? &g.rows[1] : &g.rows[0];
  ASSERT_TRUE(inside->inside);
  ASSERT_FALSE(between->inside);
  // The `.item()` inside `scaled`: Dynamo resumed after it in a region of its own.
  EXPECT_NE(inside->where.find("record_graph_break_trace.py(27): scaled -> <built-in method item"),
            std::string::npos)
      << inside->where;
  EXPECT_EQ(inside->before, "Torch-Compiled Region: 0/0");
  EXPECT_EQ(inside->after, "Torch-Compiled Region: 1/0");
  // The `.item()` the step makes between its two compiled functions.
  EXPECT_NE(between->where.find("record_graph_break_trace.py(37): step -> <built-in method item"),
            std::string::npos)
      << between->where;
  EXPECT_EQ(between->after, "Torch-Compiled Region: 2/0");
  for (const auto* row : {inside, between}) {
    EXPECT_EQ(row->breaks, 4u);
    EXPECT_EQ(row->steps, 4u);
    EXPECT_GT(row->entry_median_ns, 0);
  }
  // Each entry: from the next region's cache lookup to its first op, inside that region's span.
  for (const trace::GraphBreak& b : g.breaks) {
    EXPECT_GE(b.would_sync, 0);  // no GPU work: the ops that would block on one
    EXPECT_EQ(compiled().records.cpu_ops[static_cast<size_t>(b.would_sync)].name,
              "aten::_local_scalar_dense");
    EXPECT_GT(b.entry_ns, 0);
    EXPECT_LT(b.entry_ns, 2000 * static_cast<int64_t>(us));
  }
}

TEST(GraphBreaks, RemovingTheItemsMergesTheRegionsAndSaysWhatThatSaves) {
  const auto rep = trace::build_report(compiled());
  const auto replayed = trace::replay::replay_trace(
      compiled(), {trace::replay::parse_what_if("no-syncs:op=aten::item"),
                   trace::replay::parse_what_if("no-syncs:op=aten::mm")});
  const auto& x = replayed.what_ifs[0];
  EXPECT_EQ(x.graph_breaks, 8u);
  EXPECT_EQ(x.merge_saving_ns,
            rep.graph_breaks.rows[0].entry_ns + rep.graph_breaks.rows[1].entry_ns);
  EXPECT_NE(x.note.find("8 of the 8 removed are graph breaks of torch.compile"), std::string::npos)
      << x.note;
  // The .item() calls' own host time, and the next regions' entries with them: merged.
  EXPECT_GT(x.total.replayed_ns - x.total.predicted_ns, x.merge_saving_ns);
  EXPECT_EQ(replayed.what_ifs[1].graph_breaks, 0u);  // a matmul breaks nothing
  EXPECT_EQ(replayed.what_ifs[1].note, "");
}

TEST(GraphBreaks, ASyncInsideARegionThatResumesIsOneAndItsEntryIsMeasured) {
  // Region 0/0 from 0 to 200 us: a launch, `.item()` (a copy and a stream sync under one op) at
  // 50 us, then Dynamo's cache lookup (100-110 us) and the resumed region 1/0 (112-190 us), whose
  // first launch is at 130 us. A device sync after the regions breaks nothing.
  trace::RecordSet r;
  r.cpu_ops = {{0, 200 * us, 7, "Torch-Compiled Region: 0/0"},
               {50 * us, 80 * us, 7, "aten::item"},
               {100 * us, 110 * us, 7, "TorchDynamo Cache Lookup"},
               {112 * us, 190 * us, 7, "Torch-Compiled Region: 1/0"},
               {115 * us, 120 * us, 7, "AOTDispatcher Runtime Wrapper Prologue"}};
  r.api = {call("cudaLaunchKernel", 10 * us, 15 * us, 1),
           call("cudaMemcpyAsync", 52 * us, 60 * us, 2),
           call("cudaStreamSynchronize", 60 * us, 78 * us, 3),
           call("cudaLaunchKernel", 130 * us, 135 * us, 4),
           call("cudaDeviceSynchronize", 210 * us, 300 * us, 5)};
  r.kernels = {kernel(17 * us, 70 * us, 1), kernel(137 * us, 290 * us, 4)};
  r.memcpys = {d2h(70 * us, 71 * us, 2)};
  trace::ImportedTrace t;
  t.records = r;
  const auto rep = trace::build_report(t);
  const auto& g = rep.graph_breaks;
  EXPECT_EQ(g.regions, 2u);
  ASSERT_EQ(g.breaks.size(), 1u);
  EXPECT_EQ(g.breaks[0].calls.size(), 1u);  // the sync (the copy into pinned memory does not block)
  EXPECT_TRUE(g.breaks[0].inside);
  EXPECT_EQ(g.breaks[0].entry_ns, static_cast<int64_t>(30 * us));  // 100 us to the launch at 130
  ASSERT_EQ(g.rows.size(), 1u);
  EXPECT_EQ(g.rows[0].where, "aten::item");  // no stacks: the op
  EXPECT_EQ(g.rows[0].breaks, 1u);
}

TEST(GraphBreaks, ASyncBetweenTwoRegionsCountsOnlyWithinOneStep) {
  // Two compiled calls a step, a sync between them, and a sync between the steps' calls.
  trace::RecordSet r;
  for (uint32_t s = 0; s < 2; ++s) {
    const uint64_t t = s * 1000 * us;
    r.cpu_ops.push_back({t, t + 100 * us, 7, "Torch-Compiled Region: 0/0"});
    r.api.push_back(call("cudaLaunchKernel", t + 10 * us, t + 15 * us, 10 * s + 1));
    r.kernels.push_back(kernel(t + 17 * us, t + 150 * us, 10 * s + 1));
    r.api.push_back(call("cudaStreamSynchronize", t + 200 * us, t + 220 * us, 10 * s + 2));
    r.cpu_ops.push_back({t + 300 * us, t + 400 * us, 7, "Torch-Compiled Region: 1/0"});
    r.api.push_back(call("cudaLaunchKernel", t + 310 * us, t + 315 * us, 10 * s + 3));
    r.kernels.push_back(kernel(t + 317 * us, t + 350 * us, 10 * s + 3));
    r.api.push_back(call("cudaStreamSynchronize", t + 500 * us, t + 520 * us, 10 * s + 4));
    step(&r, "ProfilerStep#" + std::to_string(s), t, t + 900 * us);
  }
  trace::ImportedTrace t;
  t.records = r;
  const auto rep = trace::build_report(t);
  const auto& g = rep.graph_breaks;
  ASSERT_EQ(g.breaks.size(), 2u);  // the sync at 200 us of each step, not the one at 500 us
  for (const auto& b : g.breaks) {
    EXPECT_FALSE(b.inside);
    EXPECT_EQ(b.before, "Torch-Compiled Region: 0/0");
    EXPECT_EQ(b.entry_ns, static_cast<int64_t>(10 * us));  // no cache lookup: region to launch
  }
  EXPECT_EQ(g.rows.size(), 1u);
  EXPECT_EQ(g.rows[0].where, "cudaStreamSynchronize");  // in no op: the API
  EXPECT_EQ(g.rows[0].steps, 2u);
}

TEST(GraphBreaks, NoRegionsNoBreaks) {
  const auto t = trace::import_trace(tracetest::data("traces/a100-alexnet-syncs.json.gz"));
  const auto rep = trace::build_report(t);
  EXPECT_EQ(rep.graph_breaks.regions, 0u);
  EXPECT_TRUE(rep.graph_breaks.breaks.empty());
}
