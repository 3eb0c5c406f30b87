// The replay graph's rules (analyze/replay/graph.h), one hand-built trace each: the edge the
// rule makes, and that the replay moves the node when (only when) what it waits for moves.
#include <gtest/gtest.h>

#include "replay_fixture.h"

using namespace replaytest;
using trace::SyncKind;
using trace::replay::build_graph;
using trace::replay::EdgeKind;
using trace::replay::simulate;

TEST(ReplayRules, CpuOrderKeepsTheRecordedGapsAsCpuWork) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10, 1), call("cudaLaunchKernel", 30, 40, 2)};
  r.kernels = {kernel(15, 25, 1, 7), kernel(45, 60, 2, 8)};
  const Graph g = build_graph(r);
  expect_unchanged(g);
  EXPECT_TRUE(has_edge(g, start_of(g, 1), EdgeKind::Gap, end_of(g, 0)));
  // No CPU time between the two launches: the second one, and its kernel, come 20 ns earlier.
  const auto t = simulate(g, scale_node(g, start_of(g, 1), 0.0));
  EXPECT_EQ(t.start[start_of(g, 1)], 10);
  EXPECT_EQ(t.start[end_of(g, 1)], 20);
  EXPECT_EQ(t.start[kernel_node(g, 1)], 25);
  EXPECT_EQ(t.start[kernel_node(g, 0)], 15);  // before the change: untouched
}

TEST(ReplayRules, AKernelStartsAfterItsLaunchReturns) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10, 1)};
  r.kernels = {kernel(8, 20, 1)};  // recorded 2 ns before its launch returned
  const Graph g = build_graph(r);
  ASSERT_TRUE(has_edge(g, kernel_node(g, 0), EdgeKind::Launch, end_of(g, 0)));
  EXPECT_EQ(simulate(g).start[kernel_node(g, 0)], 10);
  trace::replay::Scenario slow;
  slow.launch_scale = 2;
  EXPECT_EQ(simulate(g, slow).start[kernel_node(g, 0)], 20);
}

TEST(ReplayRules, ACopyIsQueuedInsideItsCall) {
  trace::RecordSet r;
  r.api = {call("cudaMemcpyAsync", 0, 10, 1)};
  r.memcpys = {d2h(5, 8, 1)};  // pinned: the call does not wait for it
  const Graph g = build_graph(r);
  const uint32_t copy = gpu(g, NodeType::Memcpy, 0);
  EXPECT_TRUE(has_edge(g, copy, EdgeKind::Enqueue, start_of(g, 0)));
  EXPECT_FALSE(has_edge(g, end_of(g, 0), EdgeKind::SyncWait));
  expect_unchanged(g);
}

TEST(ReplayRules, StreamOrder) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaLaunchKernel", 5, 10, 2)};
  r.kernels = {kernel(20, 50, 1), kernel(51, 70, 2)};
  const Graph g = build_graph(r);
  expect_unchanged(g);
  ASSERT_TRUE(has_edge(g, kernel_node(g, 1), EdgeKind::Stream, kernel_node(g, 0)));
  // The first kernel twice as long: the second follows it, 1 ns after as recorded.
  const auto t = simulate(g, scale_node(g, kernel_node(g, 0), 2.0));
  EXPECT_EQ(end_at(t, kernel_node(g, 0)), 80);
  EXPECT_EQ(t.start[kernel_node(g, 1)], 81);
}

TEST(ReplayRules, EveryKernelOfAGraphLaunchWaitsForIt) {
  trace::RecordSet r;
  r.api = {call("cudaGraphLaunch", 0, 10, 5)};
  r.kernels = {kernel(12, 20, 5), kernel(21, 30, 5), kernel(31, 40, 5)};
  const Graph g = build_graph(r);
  EXPECT_EQ(g.stats.launches, 3u);
  EXPECT_EQ(g.stats.graph_launch_kernels, 3u);
  for (uint32_t k = 0; k < 3; ++k)
    EXPECT_TRUE(has_edge(g, kernel_node(g, k), EdgeKind::Launch, end_of(g, 0)));
  trace::replay::Scenario slow;
  slow.launch_scale = 3;
  const auto t = simulate(g, slow);
  EXPECT_EQ(t.start[kernel_node(g, 0)], 32);
  for (uint32_t k = 0; k < 3; ++k) EXPECT_GE(t.start[kernel_node(g, k)], 30);
}

namespace {
// Kernel A on stream 7, then an event recorded on 7 that stream 8 waits for, then kernel B on 8.
trace::RecordSet event_wait(bool with_row) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaEventRecord", 5, 7, 2),
           call("cudaStreamWaitEvent", 7, 9, 3), call("cudaLaunchKernel", 9, 14, 4)};
  r.kernels = {kernel(10, 100, 1, 7), kernel(101, 120, 4, 8)};
  if (with_row) r.syncs = {row(SyncKind::StreamWaitEvent, 7, 9, 3, 8, 7, 2)};
  return r;
}
}  // namespace

TEST(ReplayRules, StreamWaitEventFromKinetosRow) {
  const trace::RecordSet r = event_wait(true);
  const Graph g = build_graph(r);
  EXPECT_EQ(g.stats.event_waits, 1u);
  ASSERT_TRUE(has_edge(g, kernel_node(g, 1), EdgeKind::EventWait, kernel_node(g, 0)));
  expect_unchanged(g);
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 0), 2.0)).start[kernel_node(g, 1)], 191);
  // Without the row nothing names the wait (and 87 ns is no GPU wait): B stays where it was.
  const trace::RecordSet bare = event_wait(false);
  const Graph h = build_graph(bare);
  EXPECT_EQ(h.stats.event_waits, 0u);
  EXPECT_EQ(simulate(h, scale_node(h, kernel_node(h, 0), 2.0)).start[kernel_node(h, 1)], 101);
}

namespace {
// Kernel A on stream 7 [10, 100], kernel B on stream 8 [10, 200], then a blocking call.
trace::RecordSet two_streams(const char* sync, uint64_t sync_end) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaLaunchKernel", 5, 10, 2),
           call(sync, 20, sync_end, 3)};
  r.kernels = {kernel(10, 100, 1, 7), kernel(10, 200, 2, 8)};
  return r;
}
}  // namespace

TEST(ReplayRules, StreamSyncWaitsForTheLastWorkOnItsStream) {
  trace::RecordSet r = two_streams("cudaStreamSynchronize", 105);
  r.syncs = {row(SyncKind::Stream, 20, 105, 3, 7)};
  const Graph g = build_graph(r);
  const uint32_t done = end_of(g, 2);
  EXPECT_TRUE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 0)));
  EXPECT_FALSE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 1)));
  EXPECT_EQ(g.stats.sync_targets_from_rows, 1u);
  expect_unchanged(g);
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 0), 2.0)).start[done],
            195);  // A ends at 190, + 5 ns wake-up
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 1), 2.0)).start[done], 105);
}

TEST(ReplayRules, DeviceSyncWaitsForEveryStream) {
  const trace::RecordSet r = two_streams("cudaDeviceSynchronize", 205);
  const Graph g = build_graph(r);
  const uint32_t done = end_of(g, 2);
  EXPECT_TRUE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 0)));
  EXPECT_TRUE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 1)));
  expect_unchanged(g);
  // A bound nothing: its edge gets the typical wake-up (5 ns, B's), not its recorded 105.
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 0), 3.0)).start[done], 285);
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 1), 2.0)).start[done], 395);
}

TEST(ReplayRules, EventSyncWaitsForTheWorkBeforeItsRecord) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaEventRecord", 5, 6, 2),
           call("cudaLaunchKernel", 6, 8, 3), call("cudaEventSynchronize", 10, 104, 4)};
  r.kernels = {kernel(10, 100, 1, 7), kernel(100, 300, 3, 7)};
  r.syncs = {row(SyncKind::Event, 10, 104, 4, trace::kNoStream, 7, 2)};
  const Graph g = build_graph(r);
  const uint32_t done = end_of(g, 3);
  EXPECT_TRUE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 0)));
  EXPECT_FALSE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 1)));
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 1), 2.0)).start[done], 104);
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 0), 2.0)).start[done], 194);
}

TEST(ReplayRules, ABlockingCopyWaitsForItsOwnCopy) {
  trace::RecordSet r;
  r.api = {call("cudaMemcpyAsync", 0, 50, 1)};
  r.memcpys = {
      d2h(30, 45, 1, trace::MemoryKind::Pageable)};  // into pageable memory: the call blocks
  const Graph g = build_graph(r);
  const uint32_t copy = gpu(g, NodeType::Memcpy, 0);
  EXPECT_EQ(g.stats.blocking_calls, 1u);
  EXPECT_TRUE(has_edge(g, end_of(g, 0), EdgeKind::SyncWait, copy));
  EXPECT_TRUE(has_edge(g, copy, EdgeKind::Enqueue, start_of(g, 0)));
  expect_unchanged(g);
  EXPECT_EQ(simulate(g, scale_node(g, copy, 2.0)).start[end_of(g, 0)], 65);
}

// An upload from pageable memory holds the host while the driver stages it (a blocking copy on
// the pages), but does not wait for the work queued before it (blocking_calls.h): replayed as a
// wait, two-ranks' steps came out 10 % long.
TEST(ReplayRules, APageableUploadDoesNotWaitForQueuedWork) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaMemcpyAsync", 10, 30, 2)};
  r.kernels = {kernel(6, 100, 1)};
  trace::MemcpyRecord up = d2h(101, 110, 2);
  up.kind = trace::CopyKind::HtoD, up.src = trace::MemoryKind::Pageable,
  up.dst = trace::MemoryKind::Device;
  r.memcpys = {up};
  const Graph g = build_graph(r);
  EXPECT_EQ(g.stats.blocking_calls, 0u);
  EXPECT_FALSE(has_edge(g, end_of(g, 1), EdgeKind::SyncWait));
  expect_unchanged(g);
  // The kernel twice as long: the upload's call still returns at 30, its copy follows the kernel.
  const auto t = simulate(g, scale_node(g, kernel_node(g, 0), 2.0));
  EXPECT_EQ(t.start[end_of(g, 1)], 30);
}

TEST(ReplayRules, AStreamSyncWithoutARowSyncsTheStreamItsThreadUsedLast) {
  trace::RecordSet r = two_streams("cudaStreamSynchronize", 95);
  r.kernels[1].end_ns = 90;  // B on stream 8, launched last
  const Graph g = build_graph(r);
  const uint32_t done = end_of(g, 2);
  EXPECT_EQ(g.stats.sync_targets_guessed, 1u);
  EXPECT_TRUE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 1)));
  EXPECT_FALSE(has_edge(g, done, EdgeKind::SyncWait, kernel_node(g, 0)));
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 1), 2.0)).start[done], 175);
}

TEST(ReplayRules, WorkThatEndedAfterTheCallReturnedIsNotWhatItWaitedFor) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaLaunchKernel", 5, 10, 2),
           call("cudaStreamSynchronize", 20, 55, 3)};
  r.kernels = {kernel(10, 50, 1), kernel(60, 200, 2)};
  r.syncs = {row(SyncKind::Stream, 20, 55, 3, 7)};
  const Graph g = build_graph(r);
  EXPECT_TRUE(has_edge(g, end_of(g, 2), EdgeKind::SyncWait, kernel_node(g, 0)));
  EXPECT_FALSE(has_edge(g, end_of(g, 2), EdgeKind::SyncWait, kernel_node(g, 1)));
}

TEST(ReplayRules, AnIdleThreadWaitsForTheThreadWhoseEventEndedJustBefore) {
  // The main thread launches, then records nothing inside `backward` until 50 us after the
  // autograd thread's last op ended.
  const uint64_t us = 1000;
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10 * us, 1, 1)};
  r.kernels = {kernel(20 * us, 30 * us, 1)};
  r.annotations = {{0, 1000 * us, 1, false, "backward"}};
  r.cpu_ops = {{100 * us, 950 * us, 2, "autograd::engine::evaluate_function"}};
  const Graph g = build_graph(r);
  EXPECT_EQ(g.stats.thread_waits, 1u);
  const uint32_t main = g.thread_resource(1), autograd = g.thread_resource(2);
  uint32_t wake = kNone, last_op = kNone;
  for (uint32_t v = 0; v < g.host_count; ++v) {
    if (g.resource[v] == main && g.observed[v] == static_cast<int64_t>(1000 * us) &&
        has_edge(g, v, EdgeKind::ThreadWait))
      wake = v;
    if (g.resource[v] == autograd && g.observed[v] == static_cast<int64_t>(950 * us)) last_op = v;
  }
  ASSERT_NE(wake, kNone);
  ASSERT_NE(last_op, kNone);
  expect_unchanged(g);
  // The autograd thread's op in half the time: the main thread wakes 50 us after it, not at 1000.
  EXPECT_EQ(simulate(g, scale_node(g, last_op, 0.5)).start[wake],
            static_cast<int64_t>((525 + 50) * us));
}

TEST(ReplayRules, GpuWorkThatWaitedForAnotherStreamWithoutARow) {
  const uint64_t us = 1000;
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 1 * us, 1), call("cudaLaunchKernel", 1 * us, 2 * us, 2)};
  r.kernels = {kernel(2 * us, 100 * us, 1, 7),
               kernel(102 * us, 150 * us, 2, 8)};  // 100 us after its launch
  const Graph g = build_graph(r);
  EXPECT_EQ(g.stats.gpu_waits, 1u);
  EXPECT_TRUE(has_edge(g, kernel_node(g, 1), EdgeKind::GpuWait, kernel_node(g, 0)));
  expect_unchanged(g);
  EXPECT_EQ(simulate(g, scale_node(g, kernel_node(g, 0), 2.0)).start[kernel_node(g, 1)],
            static_cast<int64_t>(200 * us));
}

TEST(ReplayRules, OnASlowRuntimeACrossStreamWaitMayWakeLater) {
  // Every launch here starts its kernel 15 us after returning (a slow runtime): a kernel that
  // starts 20 us after another stream's work ended, long after its own launch, waited for it.
  // With launches 1 us quick, 20 us is no such wait.
  for (const uint64_t latency : {15u, 1u}) {
    const uint64_t us = 1000;
    trace::RecordSet r;
    for (uint32_t i = 0; i < 5; ++i) {
      const uint64_t t = i * 100 * us;
      r.api.push_back(call("cudaLaunchKernel", t, t + 1 * us, i + 1));
      r.kernels.push_back(kernel(t + (1 + latency) * us, t + 50 * us, i + 1, 7));
    }
    r.api.push_back(call("cudaLaunchKernel", 401 * us, 402 * us, 9));
    r.kernels.push_back(kernel(470 * us, 480 * us, 9, 8));  // 20 us after kernel 4 ended
    const Graph g = build_graph(r);
    EXPECT_EQ(has_edge(g, kernel_node(g, 5), EdgeKind::GpuWait, kernel_node(g, 4)), latency == 15)
        << latency;
    expect_unchanged(g);
  }
}

TEST(ReplayRules, ALaunchIntoAFullQueueWaitsForTheOldestWorkOnItsStream) {
  // A host that launches 10 us kernels every 1 us fills its stream's queue; from then on each
  // launch returns 0.5 us after the kernel 1022 places ahead ends. Halve the kernels and the
  // host is held half as long: the whole run takes about half the time.
  const uint64_t us = 1000, depth = 1022;
  trace::RecordSet r;
  uint64_t t = 0, full = 0;
  for (uint32_t i = 0; i < 1600; ++i) {
    uint64_t end = t + 1 * us;
    if (i >= depth && r.kernels[i - depth].end_ns > t)
      end = std::max(end, r.kernels[i - depth].end_ns + us / 2), ++full;
    r.api.push_back(call("cudaLaunchKernel", t, end, i + 1));
    const uint64_t k0 = std::max(end + 2 * us, i ? r.kernels.back().end_ns : 0);
    r.kernels.push_back(kernel(k0, k0 + 10 * us, i + 1));
    t = end;
  }
  const Graph g = build_graph(r);
  ASSERT_GT(full, 300u);
  EXPECT_EQ(g.stats.queue_waits, full);
  const uint32_t last = 1599;
  EXPECT_TRUE(has_edge(g, end_of(g, last), EdgeKind::QueueWait, kernel_node(g, last - depth)));
  expect_unchanged(g);
  // The launch's own price, once a slot is free: the unblocked launches' 1 us.
  EXPECT_EQ(g.typical[static_cast<size_t>(EdgeKind::QueueCall)], static_cast<int64_t>(1 * us));
  trace::replay::Scenario half;
  half.flags.assign(g.size(), trace::replay::kScaled);
  half.kernel_scale = 0.5;
  const auto faster = simulate(g, half);
  const double span = static_cast<double>(end_at(simulate(g), kernel_node(g, last))),
               halved = static_cast<double>(end_at(faster, kernel_node(g, last)));
  EXPECT_NEAR(halved / span, 0.5, 0.02);
  EXPECT_LT(faster.start[end_of(g, last)], simulate(g).start[end_of(g, last)] / 2 + 20 * us);
}

TEST(ReplayRules, AnEdgeThatDidNotBindGetsTheTypicalDelay) {
  // Kernel 1 waited for its stream (1 ns after kernel 0); its launch returned 41 ns before it
  // started. The typical launch delay is kernel 0's 15 ns (the one launch that bound).
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 1), call("cudaLaunchKernel", 5, 10, 2)};
  r.kernels = {kernel(20, 50, 1), kernel(51, 70, 2)};
  const Graph g = build_graph(r);
  EXPECT_EQ(g.typical[static_cast<size_t>(EdgeKind::Launch)], 15);
  for (uint32_t e = g.in_begin[kernel_node(g, 1)]; e < g.in_begin[kernel_node(g, 1) + 1]; ++e) {
    if (g.in[e].kind == EdgeKind::Launch)
      EXPECT_EQ(g.in[e].delay, 15);  // min(41 recorded, 15 typical)
    if (g.in[e].kind == EdgeKind::Stream) EXPECT_EQ(g.in[e].delay, 1);  // bound: as recorded
  }
  // Kernel 0 no longer there to wait for: kernel 1 starts 15 ns after its launch.
  trace::replay::Scenario gone;
  gone.flags.assign(g.size(), 0);
  gone.flags[kernel_node(g, 0)] = trace::replay::kRemoved;
  EXPECT_EQ(simulate(g, gone).start[kernel_node(g, 1)], 25);
}

TEST(ReplayRules, TimesThatContradictTheRulesDropAnEdgeInsteadOfLooping) {
  // Kernel K1 ran first on stream 7 but was launched last; the stream sync between the two
  // launches waited for K2: K2 -> sync -> launch of K1 -> K1 -> K2 is a cycle.
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5, 2), call("cudaStreamSynchronize", 50, 60, 9),
           call("cudaLaunchKernel", 100, 110, 1)};
  r.kernels = {kernel(0, 10, 1), kernel(20, 30, 2)};
  r.syncs = {row(SyncKind::Stream, 50, 60, 9, 7)};
  const Graph g = build_graph(r);
  EXPECT_GE(g.stats.cycle_edges_dropped, 1u);
  EXPECT_EQ(g.topo.size(), g.size());
  (void)simulate(g);
}
