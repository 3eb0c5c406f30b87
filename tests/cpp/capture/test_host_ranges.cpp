#include <gtest/gtest.h>

#include "capture/host_ranges.h"
#include "capture/nvtx_phase.h"

namespace {
uint64_t fake_now = 0;
uint64_t fake_clock() { return fake_now += 10; }
}  // namespace

TEST(HostRanges, PhaseRangesAreRecordedNestedWhileInstalled) {
  trace::HostRangeRecorder rec(fake_clock);
  {
    trace::PhaseRange outside(trace::Phase::Epoch);  // opened before recording: ignored
    trace::ScopedHostRecording on(&rec);
    trace::PhaseRange epoch(trace::Phase::Epoch);
    { trace::PhaseRange f(trace::Phase::Forward); }
    { trace::PhaseRange i(trace::Phase::Item); }
  }
  { trace::PhaseRange after(trace::Phase::Step); }  // uninstalled: ignored
  const auto ranges = rec.take();
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].name, "forward");
  EXPECT_EQ(ranges[0].depth, 1);
  EXPECT_EQ(ranges[1].name, "item");
  EXPECT_EQ(ranges[2].name, "epoch");
  EXPECT_EQ(ranges[2].depth, 0);
  EXPECT_LT(ranges[2].start_ns, ranges[0].start_ns);
  EXPECT_GT(ranges[2].end_ns, ranges[1].end_ns);
  EXPECT_EQ(ranges[0].end_ns - ranges[0].start_ns, 10u);
  EXPECT_EQ(ranges[0].thread_id, trace::current_thread_id());
}
