// What each blocking call drained and the first-order saving (sync_drain.h), on hand-built
// records with known answers: a sync that finds an empty queue, one that drains a deep one.
#include <gtest/gtest.h>

#include "synthetic_records.h"
#include "trace/analyze/attribution.h"
#include "trace/analyze/sync_drain.h"

using namespace testdata;
using trace::DrainAdvice;
using trace::Regime;

namespace {

trace::SyncReport drained(const trace::RecordSet& r, Regime whole) {
  auto syncs = trace::find_syncs(r);
  trace::add_drain(&syncs, trace::AttributionIndex(r).launch_queue(), {}, whole);
  return syncs;
}

}  // namespace

TEST(SyncDrain, ASyncAfterTheGpuRanDryCostsItsOwnTime) {
  // One short kernel, done long before the sync; the next launch comes 500 ns after it.
  trace::RecordSet r;
  r.api = {api("cudaLaunchKernel", 0, 10, 1), api("cudaStreamSynchronize", 100, 130, 0),
           api("cudaLaunchKernel", 630, 640, 2)};
  r.kernels = {kernel(20, 40, 1), kernel(650, 700, 2)};
  const auto s = drained(r, Regime::LaunchBound);
  ASSERT_EQ(s.calls.size(), 1u);
  EXPECT_EQ(s.calls[0].queue_depth, 0u);
  EXPECT_EQ(s.calls[0].drained, 0u);
  EXPECT_EQ(s.calls[0].idle_after_ns, 650u - 130u);
  EXPECT_EQ(s.calls[0].regime, Regime::LaunchBound);
  ASSERT_EQ(s.by_cause.size(), 1u);
  EXPECT_EQ(s.by_cause[0].saving_estimate_ns, 30u);  // its blocked time: the smaller
  EXPECT_EQ(s.by_cause[0].advice, DrainAdvice::OwnCost);
  EXPECT_EQ(s.by_cause[0].regime, Regime::LaunchBound);
}

TEST(SyncDrain, ASyncThatDrainsADeepQueueMovesItsWait) {
  // Four kernels queued by 40, run back to back to 400; the sync waits from 50 to 405; the
  // next launch returns at 410 and its kernel starts at 415.
  trace::RecordSet r;
  for (uint32_t k = 0; k < 4; ++k)
    r.api.push_back(api("cudaLaunchKernel", 10 * k, 10 * k + 10, k + 1));
  r.api.push_back(api("cudaStreamSynchronize", 50, 405, 0));
  r.api.push_back(api("cudaLaunchKernel", 405, 410, 5));
  for (uint32_t k = 0; k < 4; ++k) r.kernels.push_back(kernel(100 * k, 100 * k + 100, k + 1));
  r.kernels.push_back(kernel(415, 500, 5));
  const auto s = drained(r, Regime::GpuBound);
  ASSERT_EQ(s.calls.size(), 1u);
  EXPECT_EQ(s.calls[0].queue_depth, 4u);  // the first running, three waiting
  EXPECT_EQ(s.calls[0].drained, 4u);      // all four finished by 400
  EXPECT_EQ(s.calls[0].idle_after_ns, 10u);
  EXPECT_EQ(s.by_cause[0].saving_estimate_ns, 10u);  // the GPU's idle after: the smaller
  EXPECT_EQ(s.by_cause[0].advice, DrainAdvice::WaitMoves);
  EXPECT_EQ(s.by_cause[0].queue_depth_p50, 4u);
  EXPECT_EQ(s.by_cause[0].queue_depth_max, 4u);
}

TEST(SyncDrain, EachCallTakesTheRegimeOfItsStep) {
  trace::RecordSet r = one_epoch();
  r.steps = {{0, 500, "a"}, {500, 1000, "b"}};
  auto syncs = trace::find_syncs(r);
  trace::add_drain(&syncs, trace::AttributionIndex(r).launch_queue(),
                   {Regime::GpuBound, Regime::LaunchBound}, Regime::Mixed);
  ASSERT_EQ(syncs.calls.size(), 1u);  // the stream sync at 610: step b
  EXPECT_EQ(syncs.calls[0].regime, Regime::LaunchBound);
  EXPECT_EQ(syncs.calls[0].queue_depth, 1u);  // the copy, queued at 610 (its call's end)
  EXPECT_EQ(syncs.calls[0].drained, 1u);
  EXPECT_EQ(syncs.by_cause[0].regime, Regime::LaunchBound);
}

TEST(SyncDrain, AdviceRule) {
  EXPECT_EQ(trace::drain_advice(100, 0, false), DrainAdvice::NoGpuWork);
  EXPECT_EQ(trace::drain_advice(100, 10, true), DrainAdvice::OwnCost);
  EXPECT_EQ(trace::drain_advice(100, 11, true), DrainAdvice::Mixed);
  EXPECT_EQ(trace::drain_advice(100, 89, true), DrainAdvice::Mixed);
  EXPECT_EQ(trace::drain_advice(100, 90, true), DrainAdvice::WaitMoves);
}
