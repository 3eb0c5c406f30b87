#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "synthetic_records.h"
#include "trace/analyze/attribution.h"

using namespace testdata;

TEST(Attribution, OneEpochKnownAnswer) {
  const auto a = trace::attribute(one_epoch());
  EXPECT_EQ(a.steps, 1u);
  EXPECT_EQ(a.window_ns, 1000u);
  EXPECT_EQ(a.launches, 3u);
  EXPECT_EQ(a.launch_api_ns, 30u);
  EXPECT_EQ(a.kernels, 3u);
  EXPECT_EQ(a.kernel_ns, 450u);
  EXPECT_EQ(a.memcpys, 1u);
  EXPECT_EQ(a.gpu_busy_ns, 460u);  // 200 + 200 + 10 + 50
  EXPECT_EQ(a.sync_api_ns, 110u);
  EXPECT_EQ(a.memcpy_api_ns, 10u);
  EXPECT_EQ(a.nonblocking_copies, 1u);  // D2H into pinned memory: queued, the host goes on
  EXPECT_EQ(a.nonblocking_copy_ns, 10u);
  EXPECT_EQ(a.blocking_copy_ns, 0u);
  EXPECT_EQ(a.blocked_ns, 110u);
  EXPECT_EQ(a.host_rest_ns(), 1000 - 30 - 110);
  // Gaps: [0,100] host wait (kernel A's launch began at 10, after the gap began at 0);
  // [300,305] kernel wait (B queued at 20, 5 ns gap); [505,700] host wait (copy queued at
  // 600 >= 505); [710,900] host wait (launch at 800 >= 710); [950,1000] the tail: host wait.
  EXPECT_EQ(a.idle_kernel_wait_ns, 5u);
  EXPECT_EQ(a.idle_host_wait_ns, 100u + 195u + 190u + 50u);
  EXPECT_EQ(a.idle_other_ns, 0u);
  EXPECT_EQ(a.gpu_idle_ns() + a.gpu_busy_ns, a.window_ns);
}

TEST(Attribution, OverlappingKernelsCountOnceInBusyTime) {
  trace::RecordSet r;
  r.ranges = {range("epoch", 0, 400, 0)};
  r.api = {api("cudaLaunchKernel", 0, 5, 1), api("cudaLaunchKernel", 5, 10, 2)};
  r.kernels = {kernel(100, 200, 1, 7), kernel(150, 300, 2, 8)};
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.kernel_ns, 250u);
  EXPECT_EQ(a.gpu_busy_ns, 200u);
  EXPECT_EQ(a.gpu_idle_ns(), 200u);
}

TEST(Attribution, SyncSpanningQueuedKernelsIsBlockedTimeAndLongQueuedGapIsOther) {
  trace::RecordSet r;
  r.ranges = {range("epoch", 0, 100000, 0)};
  r.api = {api("cudaLaunchKernel", 0, 10, 1), api("cudaLaunchKernel", 10, 20, 2),
           api("cudaStreamSynchronize", 20, 50200, 0)};
  // The second kernel was queued at 10 but started 49.6 us after the first ended, far
  // above the 10 us kernel-wait threshold (a dependency): "other".
  r.kernels = {kernel(100, 400, 1), kernel(50000, 50180, 2)};
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.sync_api_ns, 50180u);
  EXPECT_EQ(a.blocked_ns, 50180u);
  EXPECT_EQ(a.idle_other_ns, 49600u);
  EXPECT_EQ(a.idle_host_wait_ns, 100u + 49820u);  // lead-in (queued at 0 >= 0) and tail
}

TEST(Attribution, KernelWaitThresholdIsAnOption) {
  trace::AttributionOptions strict;
  strict.kernel_wait_threshold_ns = 1;
  const auto a = trace::attribute(one_epoch(), strict);
  EXPECT_EQ(a.idle_kernel_wait_ns, 0u);
  EXPECT_EQ(a.idle_other_ns, 5u);
}

TEST(Attribution, CopiesByDirectionAndHostMemoryKind) {
  trace::RecordSet r;
  r.api = {api("cudaMemcpyAsync", 0, 5, 1), api("cudaMemcpy", 10, 200, 2)};
  r.memcpys = {{20, 30, 1, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pinned},
               {40, 190, 2, 0, 7, 1 << 20, trace::CopyKind::HtoD, trace::MemoryKind::Pageable,
                trace::MemoryKind::Device},
               {195, 199, 1, 0, 7, 8, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pinned}};
  const auto a = trace::attribute(r);
  ASSERT_EQ(a.memcpy_by_kind.size(), 2u);
  EXPECT_EQ(a.memcpy_by_kind.at("DtoH pinned").count, 2u);
  EXPECT_EQ(a.memcpy_by_kind.at("DtoH pinned").bytes, 12u);
  EXPECT_EQ(a.memcpy_by_kind.at("DtoH pinned").gpu_ns, 14u);
  EXPECT_EQ(a.memcpy_by_kind.at("HtoD pageable").bytes, 1u << 20);
  EXPECT_EQ(a.memcpy_api_ns, 195u);
  EXPECT_EQ(a.copies_not_async, 1u);  // cudaMemcpy
  EXPECT_EQ(a.copy_not_async_ns, 190u);
  EXPECT_EQ(a.nonblocking_copies, 1u);  // cudaMemcpyAsync into pinned memory
  EXPECT_EQ(a.blocked_ns, 190u);
}

TEST(Attribution, DroppedRecordsAreReported) {
  auto r = one_epoch();
  r.dropped_records = 17;
  EXPECT_EQ(trace::attribute(r).dropped_records, 17u);
}

TEST(Attribution, RecordOrderDoesNotMatter) {
  // CUPTI completes buffers out of order: the same records in any order, same answer.
  const auto ref = trace::attribute(one_epoch());
  std::mt19937 rng(3);
  for (int i = 0; i < 5; ++i) {
    auto r = one_epoch();
    std::shuffle(r.api.begin(), r.api.end(), rng);
    std::shuffle(r.kernels.begin(), r.kernels.end(), rng);
    std::shuffle(r.ranges.begin(), r.ranges.end(), rng);
    const auto a = trace::attribute(r);
    EXPECT_EQ(a.gpu_busy_ns, ref.gpu_busy_ns);
    EXPECT_EQ(a.idle_host_wait_ns, ref.idle_host_wait_ns);
    EXPECT_EQ(a.idle_kernel_wait_ns, ref.idle_kernel_wait_ns);
    EXPECT_EQ(a.phases.at("forward").kernels, 2u);
    EXPECT_EQ(a.launch_delay.p50, ref.launch_delay.p50);
  }
}

TEST(Attribution, KernelsCountInTheInnermostRangeWhereTheyWereLaunched) {
  const auto a = trace::attribute(one_epoch());
  EXPECT_EQ(a.phases.at("forward").kernels, 2u);
  EXPECT_EQ(a.phases.at("forward").kernel_ns, 400u);
  EXPECT_EQ(a.phases.at("step").kernels, 1u);
  EXPECT_EQ(a.phases.at("epoch").kernels, 0u);  // all three sit in a nested range
  EXPECT_EQ(a.phases.at("log").kernels, 0u);    // a range with no kernels
  EXPECT_EQ(a.phases.at("log").host_ns, 30u);
  EXPECT_EQ(a.phases.at("item").host_ns, 140u);
  EXPECT_EQ(a.phases.at("epoch").count, 1u);
}

TEST(Attribution, LaunchDelayDistribution) {
  const auto a = trace::attribute(one_epoch());
  // Kernel start - launch call end: 100-20=80, 305-30=275, 900-810=90.
  EXPECT_EQ(a.launch_delay.count, 3u);
  EXPECT_DOUBLE_EQ(a.launch_delay.min, 80);
  EXPECT_DOUBLE_EQ(a.launch_delay.p50, 90);
  EXPECT_DOUBLE_EQ(a.launch_delay.max, 275);
  EXPECT_DOUBLE_EQ(a.launch_delay.mean, (80 + 275 + 90) / 3.0);
}

TEST(Attribution, DriverCallInsideRuntimeCallIsNotCountedTwice) {
  trace::RecordSet r;
  r.api = {api("cudaLaunchKernel", 0, 100, 1), api("cuLaunchKernel", 10, 90, 2, /*driver=*/true),
           api("cuLaunchKernelEx", 200, 230, 3, /*driver=*/true)};  // a direct driver launch counts
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.launches, 2u);
  EXPECT_EQ(a.launch_api_ns, 130u);
}

TEST(Attribution, PerStepDividesByTheStepPhases) {
  trace::RecordSet r;
  r.ranges = {range("epoch", 0, 100, 0), range("epoch", 100, 200, 0), range("pad", 300, 400, 0)};
  r.api = {api("cudaLaunchKernel", 10, 20, 1), api("cudaLaunchKernel", 110, 130, 2)};
  // No step phase named: the library knows none of its own, so no steps and the whole span.
  const auto none = trace::attribute(r);
  EXPECT_EQ(none.steps, 0u);
  EXPECT_EQ(none.window_ns, 400u);
  r.step_phase = "epoch";  // as bench names it (capture/bench_names.h)
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.steps, 2u);
  EXPECT_EQ(a.window_ns, 200u);  // first to last step phase
  EXPECT_DOUBLE_EQ(a.per_step(static_cast<double>(a.launch_api_ns)), 15.0);
}

TEST(Attribution, ApiNamesAreClassified) {
  EXPECT_EQ(trace::classify_api("cudaLaunchKernel"), trace::ApiKind::Launch);
  EXPECT_EQ(trace::classify_api("cuLaunchKernelEx"), trace::ApiKind::Launch);
  EXPECT_EQ(trace::classify_api("cudaGraphLaunch"), trace::ApiKind::Launch);
  EXPECT_EQ(trace::classify_api("cudaStreamSynchronize"), trace::ApiKind::Sync);
  EXPECT_EQ(trace::classify_api("cuEventSynchronize"), trace::ApiKind::Sync);
  EXPECT_EQ(trace::classify_api("cudaMemcpyAsync"), trace::ApiKind::Memcpy);
  EXPECT_EQ(trace::classify_api("cudaMemsetAsync"), trace::ApiKind::Memset);
  EXPECT_EQ(trace::classify_api("cudaGetDevice"), trace::ApiKind::Other);
}

// LibTorch runs a CUDA backward on its autograd thread (here 9) while the recording thread
// (7) waits inside its `backward` range: those launches belong to `backward`.
TEST(Attribution, LaunchesFromAThreadWithoutRangesBelongToThePhaseOpenOnTheRecordingThread) {
  trace::RecordSet r;
  r.ranges = {range("epoch", 0, 1000, 0), range("forward", 10, 100, 1),
              range("backward", 200, 700, 1), range("step", 800, 900, 1)};
  r.api = {api("cudaLaunchKernel", 20, 30, 1),    // forward, main thread
           api("cudaLaunchKernel", 210, 220, 2),  // backward's ones_like, main
           api("cudaLaunchKernel", 300, 310, 3, false, 9),
           api("cudaLaunchKernel", 400, 410, 4, false, 9),
           api("cudaLaunchKernel", 850, 860, 5),             // step, main
           api("cudaLaunchKernel", 950, 960, 6, false, 9)};  // autograd thread, no phase open
  r.kernels = {kernel(40, 50, 1),   kernel(230, 240, 2), kernel(320, 340, 3),
               kernel(420, 430, 4), kernel(870, 880, 5), kernel(970, 980, 6)};
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.phases.at("forward").kernels, 1u);
  EXPECT_EQ(a.phases.at("backward").kernels, 3u);
  EXPECT_EQ(a.phases.at("backward").kernel_ns, 40u);
  EXPECT_EQ(a.phases.at("step").kernels, 1u);
  // At 950 only the epoch is open on the recording thread.
  EXPECT_EQ(a.phases.at("epoch").kernels, 1u);
  EXPECT_EQ(a.kernels_outside_phases, 0u);
}

// A launching thread that recorded ranges of its own is looked up on its own ranges only: a
// launch outside them is outside every phase (and counted as such), not borrowed.
TEST(Attribution, AThreadWithItsOwnRangesDoesNotBorrowAnotherThreadsPhase) {
  trace::RecordSet r;
  r.ranges = {range("epoch", 0, 1000, 0), range("backward", 100, 900, 1),
              range("worker", 0, 50, 0, 9)};
  r.api = {api("cudaLaunchKernel", 10, 20, 1, false, 9),
           api("cudaLaunchKernel", 500, 510, 2, false, 9)};
  r.kernels = {kernel(30, 40, 1), kernel(520, 530, 2),
               kernel(600, 610, 99)};  // 99: no launch call recorded
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.phases.at("worker").kernels, 1u);
  EXPECT_EQ(a.phases.at("backward").kernels, 0u);
  EXPECT_EQ(a.kernels_outside_phases, 2u);
}

// Without epoch ranges the recording thread is the one with the most ranges.
TEST(Attribution, WithoutEpochRangesTheRecordingThreadHoldsTheMostRanges) {
  trace::RecordSet r;
  r.ranges = {range("step", 0, 500, 0, 3), range("backward", 100, 400, 1, 3),
              range("other", 0, 500, 0, 4)};
  r.api = {api("cudaLaunchKernel", 200, 210, 1, false, 9)};
  r.kernels = {kernel(220, 230, 1)};
  const auto a = trace::attribute(r);
  EXPECT_EQ(a.phases.at("backward").kernels, 1u);
  EXPECT_EQ(a.phases.at("other").kernels, 0u);
}
