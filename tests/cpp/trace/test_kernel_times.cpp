// The per-kernel API / queue / kernel split (kernel_times.h) on hand-built records.
#include <gtest/gtest.h>

#include "synthetic_records.h"
#include "trace/analyze/kernel_times.h"

using namespace testdata;

TEST(KernelTimes, SplitsEachKernelByItsCall) {
  trace::RecordSet r;
  r.api = {api("cudaLaunchKernel", 0, 10, 1), api("cudaLaunchKernel", 20, 26, 2),
           api("cudaLaunchKernel", 30, 34, 3)};
  // a: queued 40 ns after its call; a again: started before its call returned (no queue);
  // b: queued 4 ns; one kernel with no call.
  r.kernels = {kernel(50, 150, 1, 7, "a"), kernel(25, 45, 2, 7, "a"), kernel(38, 40, 3, 7, "b"),
               kernel(200, 1000, 9, 7, "c")};
  const auto t = trace::kernel_times(r, trace::AttributionIndex(r));
  EXPECT_EQ(t.kernels_without_call, 1u);  // correlation 9: no call, nothing to split
  ASSERT_EQ(t.by_name.size(), 2u);
  const auto& a = t.by_name[0];  // longest total kernel time first
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.api.count, 2u);
  EXPECT_EQ(a.api.total_ns, 16u);
  EXPECT_EQ(a.api.min_ns, 6u);
  EXPECT_EQ(a.api.max_ns, 10u);
  EXPECT_DOUBLE_EQ(a.api.median_ns, 8.0);  // the mean of the two middle values
  EXPECT_EQ(a.queue.count, 1u);            // only the positive one
  EXPECT_EQ(a.queue.total_ns, 40u);
  EXPECT_EQ(a.kernel.count, 2u);
  EXPECT_EQ(a.kernel.total_ns, 120u);
  EXPECT_DOUBLE_EQ(a.kernel.mean_ns(), 60.0);
  const auto& b = t.by_name[1];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.queue.count, 1u);
  EXPECT_EQ(b.queue.total_ns, 4u);
  EXPECT_DOUBLE_EQ(b.queue.median_ns, 4.0);
}

TEST(KernelTimes, EqualTotalsAreOrderedByName) {
  trace::RecordSet r;
  r.api = {api("cudaLaunchKernel", 0, 1, 1), api("cudaLaunchKernel", 1, 2, 2)};
  r.kernels = {kernel(10, 20, 1, 7, "z"), kernel(20, 30, 2, 7, "y")};
  const auto t = trace::kernel_times(r, trace::AttributionIndex(r));
  ASSERT_EQ(t.by_name.size(), 2u);
  EXPECT_EQ(t.by_name[0].name, "y");
  EXPECT_EQ(t.by_name[1].queue.count, 1u);
}
