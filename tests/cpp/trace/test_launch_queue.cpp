// The launch queue's rules (launch_queue.h) on hand-built work with known answers.
#include <gtest/gtest.h>

#include "synthetic_records.h"
#include "trace/analyze/attribution.h"
#include "trace/analyze/launch_queue.h"
#include "trace/analyze/range_queue.h"

using trace::LaunchQueue;
using trace::Regime;
using Work = LaunchQueue::Work;

namespace {

Work piece(uint64_t call_start, uint64_t call_end, uint64_t start, uint64_t end,
           uint32_t stream = 7, uint32_t device = 0) {
  return {start, end, call_start, call_end, device, stream, true};
}

}  // namespace

TEST(LaunchQueue, DepthFromCallEndToWorkEnd) {
  // Two launches at once, kernels back to back: depth 2 on [10, 100), 1 on [100, 200),
  // 0 on [0, 10) and [200, 400).
  const LaunchQueue q({piece(0, 10, 50, 100), piece(0, 10, 100, 200)});
  const auto f = q.figures(0, 400);
  ASSERT_EQ(f.gpus.size(), 1u);
  const auto& d = f.gpus[0].depth;
  EXPECT_EQ(d.window_ns, 400u);
  EXPECT_EQ(d.empty_ns, 10u + 200u);
  EXPECT_EQ(d.max, 2u);
  EXPECT_EQ(d.p50, 0u);  // empty for 210 of 400 ns: more than half
  EXPECT_EQ(d.p90, 2u);  // depth <= 1 for 310 ns, under 360
  EXPECT_EQ(f.gpus[0].pieces, 2u);
}

TEST(LaunchQueue, WorkStartingBeforeItsCallReturnsIsQueuedFromItsStart) {
  const LaunchQueue q({piece(0, 100, 40, 60)});
  const auto d = q.figures(0, 100).gpus[0].depth;
  EXPECT_EQ(d.empty_ns, 80u);  // in the queue on [40, 60) only
}

TEST(LaunchQueue, WorkWithoutACallIsQueuedWhileItRuns) {
  Work w = piece(0, 0, 30, 70);
  w.has_call = false;
  const auto d = LaunchQueue({w}).figures(0, 100).gpus[0].depth;
  EXPECT_EQ(d.empty_ns, 60u);
}

TEST(LaunchQueue, AGpuQueueHoldsItsStreamsTogether) {
  const LaunchQueue q({piece(0, 0, 0, 50, 1), piece(0, 0, 50, 100, 2), piece(0, 0, 0, 100, 3, 1)});
  const auto f = q.figures(0, 100, true);
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].device, 0u);
  EXPECT_EQ(f.gpus[0].depth.empty_ns, 0u);  // stream 1 then stream 2: never empty
  EXPECT_EQ(f.gpus[0].depth.max, 2u);       // both queued from 0
  ASSERT_EQ(f.streams.size(), 3u);
  EXPECT_EQ(f.streams[1].stream, 2u);
  EXPECT_EQ(f.streams[1].depth.empty_ns, 0u);  // queued at 0, runs [50, 100)
  EXPECT_EQ(f.streams[0].depth.empty_ns, 50u);
  EXPECT_EQ(f.gpus[1].device, 1u);
}

TEST(LaunchQueue, AWindowStartsWithTheDepthQueuedBeforeIt) {
  const LaunchQueue q({piece(0, 5, 10, 500), piece(0, 5, 500, 900)});
  const auto d = q.figures(100, 200).gpus[0].depth;
  EXPECT_EQ(d.empty_ns, 0u);
  EXPECT_EQ(d.p50, 2u);
  EXPECT_EQ(q.figures(100, 200).gpus[0].pieces, 2u);
  EXPECT_EQ(q.figures(950, 1000).gpus[0].pieces, 0u);
}

TEST(LaunchQueue, CallsIntoAFullQueueAreCountedWithTheirTime) {
  trace::QueueOptions o;
  o.max_queue = 2;
  o.full_within = 0;
  // Calls at 0, 11 and 13, kernels far later: the third call starts with two queued (the
  // first two calls returned at 10 and 12); the second starts with one.
  const LaunchQueue q({piece(0, 10, 100, 110), piece(11, 12, 110, 120), piece(13, 20, 120, 130)},
                      o);
  const auto g = q.figures(0, 200).gpus[0];
  EXPECT_EQ(g.full_queue_calls, 1u);
  EXPECT_EQ(g.full_queue_ns, 7u);
  EXPECT_EQ(q.figures(14, 200).gpus[0].full_queue_calls, 0u);  // by the call's start
  // Within one piece of the limit counts as full: the second call too.
  o.full_within = 1;
  const LaunchQueue near({piece(0, 10, 100, 110), piece(11, 12, 110, 120), piece(13, 20, 120, 130)},
                         o);
  EXPECT_EQ(near.figures(0, 200).gpus[0].full_queue_calls, 2u);
}

TEST(LaunchQueue, RegimeRule) {
  trace::QueueOptions o;
  const auto gpu = [](uint64_t empty, uint32_t p50) {
    trace::GpuQueue g;
    g.pieces = 1, g.depth.window_ns = 100, g.depth.empty_ns = empty, g.depth.p50 = p50;
    return g;
  };
  EXPECT_EQ(trace::regime_of({}, o), Regime::NoGpuWork);
  EXPECT_EQ(trace::regime_of({gpu(25, 0)}, o), Regime::LaunchBound);
  EXPECT_EQ(trace::regime_of({gpu(24, 0)}, o), Regime::Mixed);
  EXPECT_EQ(trace::regime_of({gpu(4, 2)}, o), Regime::GpuBound);
  EXPECT_EQ(trace::regime_of({gpu(4, 1)}, o), Regime::Mixed);  // never empty, but nothing waits
  EXPECT_EQ(trace::regime_of({gpu(5, 3)}, o), Regime::Mixed);
  // Several GPUs: the one whose queue was empty the least decides.
  EXPECT_EQ(trace::regime_of({gpu(90, 0), gpu(0, 4)}, o), Regime::GpuBound);
  trace::GpuQueue idle = gpu(0, 4);
  idle.pieces = 0;  // held nothing in the window: not the step's GPU
  EXPECT_EQ(trace::regime_of({idle, gpu(50, 0)}, o), Regime::LaunchBound);
}

TEST(LaunchQueue, FromTheAttributionsJoin) {
  using namespace testdata;
  trace::RecordSet r;
  r.api = {api("cudaLaunchKernel", 0, 10, 1), api("cudaLaunchKernel", 10, 20, 2)};
  r.kernels = {kernel(100, 200, 2), kernel(50, 100, 1)};
  const auto f = trace::AttributionIndex(r).launch_queue().figures(0, 300);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].depth.empty_ns, 10u + 100u);  // [0, 10) and [200, 300)
  EXPECT_EQ(f.gpus[0].depth.max, 2u);
  EXPECT_EQ(f.regime, Regime::LaunchBound);
}

TEST(LaunchQueue, DepthAtAnInstantAndWhatLeftBetween) {
  // Queued at 10 (call end) and 20; they finish at 100 and 200; GPU 1 holds one on [0, 300).
  const LaunchQueue q({piece(0, 10, 50, 100), piece(15, 20, 100, 200), piece(0, 0, 0, 300, 3, 1)});
  EXPECT_EQ(q.depth_at(5), 1u);  // GPU 1's only
  EXPECT_EQ(q.depth_at(20), 3u);
  EXPECT_EQ(q.depth_at(150), 2u);
  EXPECT_EQ(q.finished_between(20, 150), 1u);   // the first left at 100
  EXPECT_EQ(q.finished_between(100, 300), 2u);  // (a, b]: the one at 100 is not counted
  EXPECT_EQ(q.finished_between(300, 20), 0u);
}

TEST(LaunchQueue, DepthSeriesIsTheStepFunctionOfTheWindow) {
  const LaunchQueue q({piece(0, 10, 50, 100), piece(0, 10, 100, 200)});
  const auto s = q.series(0, 400, 100);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].t, (std::vector<uint64_t>{0, 10, 100, 200}));
  EXPECT_EQ(s[0].depth, (std::vector<uint32_t>{0, 2, 1, 0}));
  EXPECT_FALSE(s[0].truncated);
  const auto inside = q.series(150, 400, 100)[0];  // starts with what was queued before it
  EXPECT_EQ(inside.t, (std::vector<uint64_t>{150, 200}));
  EXPECT_EQ(inside.depth, (std::vector<uint32_t>{1, 0}));
  const auto cut = q.series(0, 400, 2)[0];
  EXPECT_EQ(cut.t.size(), 2u);
  EXPECT_TRUE(cut.truncated);
}

TEST(RangeQueue, EpochsSummedUp) {
  // Two epochs of one_epoch's shape, the second shifted by 1000 ns.
  using namespace testdata;
  trace::RecordSet r = one_epoch();
  const trace::RecordSet second = one_epoch();
  for (auto x : second.ranges)
    r.ranges.push_back({x.start_ns + 1000, x.end_ns + 1000, x.thread_id, x.depth, x.name});
  for (auto x : second.api) {
    x.start_ns += 1000, x.end_ns += 1000, x.correlation_id += 10;
    r.api.push_back(x);
  }
  for (auto x : second.kernels) {
    x.start_ns += 1000, x.end_ns += 1000, x.correlation_id += 10;
    r.kernels.push_back(x);
  }
  for (auto x : second.memcpys) {
    x.start_ns += 1000, x.end_ns += 1000, x.correlation_id += 10;
    r.memcpys.push_back(x);
  }
  const auto s = trace::summarize_queue(r, "epoch");
  EXPECT_EQ(s.ranges, 2u);
  // Each epoch [0, 1000]: queued from 20 (A's call end); A and B until 505, the copy [610,
  // 710], C [810, 950]: empty on [0, 20), [505, 610), [710, 810) and [950, 1000].
  const double empty = (20.0 + 105 + 100 + 50) / 1000;
  EXPECT_DOUBLE_EQ(s.empty_share_median, empty);
  EXPECT_EQ(s.depth_max, 2u);
  EXPECT_EQ(s.by_regime[static_cast<size_t>(Regime::LaunchBound)], 2u);
  EXPECT_EQ(trace::summarize_queue(r, "no such range").ranges, 0u);
}
