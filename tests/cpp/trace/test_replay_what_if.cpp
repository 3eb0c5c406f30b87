// What-ifs on the replay (analyze/replay/what_if.h): the --what-if language, the syncs a
// selector picks, each transformation on a hand-built trace with a known answer, the log-every
// curve's verdict, and ./attribute --what-if's exit codes and JSON.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "replay_fixture.h"
#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/export/chrome_trace.h"
#include "trace/export/replay_text.h"
#include "trace_test_util.h"

using namespace replaytest;
using trace::replay::LogEveryCurve;
using trace::replay::parse_what_if;
using trace::replay::replay_trace;
using trace::replay::SiteSelector;
using trace::replay::WhatIf;

namespace {

const uint64_t us = 1000;

trace::ImportedTrace imported(trace::RecordSet r) {
  trace::ImportedTrace t;
  t.file = "hand-built";
  t.records = std::move(r);
  return t;
}

// `steps` steps of a loop whose GPU work (100 us) outlasts its CPU work (about 10 us): a launch,
// then `.item()`: a copy into pinned memory and a stream sync that waits for the kernel.
trace::RecordSet gpu_bound_loop(int steps) {
  trace::RecordSet r;
  uint64_t t = 0, gpu_free = 0;
  for (int i = 0; i < steps; ++i) {
    const uint32_t c = 3 * static_cast<uint32_t>(i) + 1;
    const uint64_t s = t;
    r.api.push_back(call("cudaLaunchKernel", t, t + 5 * us, c));
    const uint64_t k0 = std::max(t + 7 * us, gpu_free);
    r.kernels.push_back(kernel(k0, k0 + 100 * us, c));
    gpu_free = k0 + 100 * us;
    r.api.push_back(call("cudaMemcpyAsync", t + 5 * us, t + 8 * us, c + 1));
    const uint64_t m0 = std::max(t + 9 * us, gpu_free);
    r.memcpys.push_back(d2h(m0, m0 + 2 * us, c + 1));
    gpu_free = m0 + 2 * us;
    const uint64_t sync_end = gpu_free + 3 * us;
    r.api.push_back(call("cudaStreamSynchronize", t + 8 * us, sync_end, c + 2));
    r.cpu_ops.push_back({t + 5 * us, sync_end + 1 * us, 7, "aten::item"});
    t = sync_end + 2 * us;
    step(&r, "ProfilerStep#" + std::to_string(i), s, t);
  }
  return r;
}

// A CPU loop: each step's `aten::item` is 3 us of host time and blocks on nothing.
trace::RecordSet cpu_loop(int steps) {
  trace::RecordSet r;
  uint64_t t = 0;
  for (int i = 0; i < steps; ++i) {
    r.cpu_ops.push_back({t + 1 * us, t + 50 * us, 7, "aten::addmm"});
    r.cpu_ops.push_back({t + 51 * us, t + 54 * us, 7, "aten::item"});
    step(&r, "ProfilerStep#" + std::to_string(i), t, t + 55 * us);
    t += 55 * us;
  }
  return r;
}

}  // namespace

TEST(WhatIfSpec, ParsesEveryForm) {
  WhatIf w = parse_what_if("no-syncs");
  EXPECT_EQ(w.kind, WhatIf::Kind::NoSyncs);
  EXPECT_EQ(w.sites.by, SiteSelector::By::Blocking);
  w = parse_what_if("no-syncs:op=aten::item");  // the name keeps its colons
  EXPECT_EQ(w.sites.by, SiteSelector::By::Op);
  EXPECT_EQ(w.sites.name, "aten::item");
  w = parse_what_if("log-every=1,2,100,never:api=cudaStreamSynchronize");
  EXPECT_EQ(w.kind, WhatIf::Kind::LogEvery);
  EXPECT_EQ(w.every, (std::vector<uint32_t>{1, 2, 100, 0}));
  EXPECT_EQ(w.sites.by, SiteSelector::By::Api);
  w = parse_what_if("scale-kernels=0.5:name=gemm");
  EXPECT_EQ(w.factor, 0.5);
  EXPECT_EQ(w.pattern, "gemm");
  EXPECT_EQ(parse_what_if("scale-launches=0").factor, 0.0);
  EXPECT_EQ(parse_what_if("graph-steps").launch_ns, -1);
  EXPECT_EQ(parse_what_if("graph-steps:launch-us=7.5").launch_ns, 7500);
  w = parse_what_if("graph=Torch-Compiled Region: 0/1:node-us=0.4:launch-us=3");
  EXPECT_EQ(w.kind, WhatIf::Kind::GraphSteps);
  EXPECT_EQ(w.region, "Torch-Compiled Region: 0/1");  // options peeled off the end only
  EXPECT_EQ(w.node_ns, 400);
  EXPECT_EQ(w.launch_ns, 3000);
  w = parse_what_if("scale-host=0:range=transformers/image_transforms.py(390): normalize");
  EXPECT_EQ(w.kind, WhatIf::Kind::ScaleHost);
  EXPECT_EQ(w.factor, 0.0);
  EXPECT_EQ(w.region, "transformers/image_transforms.py(390): normalize");  // colons kept
  w = parse_what_if("workers=4:range=enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(w.kind, WhatIf::Kind::Workers);
  EXPECT_EQ(w.workers, 4u);
  EXPECT_EQ(w.region, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
}

TEST(WhatIfSpec, SaysWhatWasExpected) {
  const auto error = [](const std::string& spec) {
    try {
      parse_what_if(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("faster").find("expected no-syncs"), std::string::npos);
  EXPECT_NE(error("log-every=").find("log-every=N"), std::string::npos);
  EXPECT_NE(error("log-every=0").find("positive whole number"), std::string::npos);
  EXPECT_NE(error("log-every=2,x").find("'x'"), std::string::npos);
  EXPECT_NE(error("scale-kernels=-1").find("from 0 to 1e6"), std::string::npos);
  EXPECT_NE(error("scale-kernels=nan").find("scale-kernels=FACTOR"), std::string::npos);
  EXPECT_NE(error("no-syncs:op=").find("needs a name"), std::string::npos);
  EXPECT_NE(error("no-syncs=3").find("takes no value"), std::string::npos);
  EXPECT_NE(error("scale-launches=2:op=x").find("no option"), std::string::npos);
  EXPECT_EQ(error("no-syncs:api=cudaDeviceSynchronize"), "");
  EXPECT_NE(error("graph=").find("graph=REGION"), std::string::npos);
  EXPECT_NE(error("graph-steps=2").find("takes no value"), std::string::npos);
  EXPECT_NE(error("graph-steps:node-us=x").find("node-us=US"), std::string::npos);
  EXPECT_NE(error("graph-steps:node-us=1:node-us=2").find("twice"), std::string::npos);
  EXPECT_NE(error("scale-host=0").find(":range=NAME"), std::string::npos);
  EXPECT_NE(error("scale-host=0:op=x").find(":range=NAME"), std::string::npos);
  EXPECT_NE(error("scale-host=:range=x").find("scale-host=FACTOR"), std::string::npos);
  EXPECT_NE(error("workers=0:range=x").find("from 1 to"), std::string::npos);
  EXPECT_NE(error("workers=1.5:range=x").find("'1.5'"), std::string::npos);
  EXPECT_NE(error("workers=-2:range=x").find("workers=N"), std::string::npos);
  EXPECT_NE(error("workers=2").find(":range=NAME"), std::string::npos);
}

TEST(ReplayWhatIf, ScalingAHostRangeScalesTheCpuTimeInsideItOnly) {
  // Preprocessing [60, 160] between two launches, numbered per step as programs do ("IO 3"):
  // the second launch waits for it. Made free, the step loses its 100 ns; halved, 50.
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10, 1), call("cudaLaunchKernel", 160, 170, 2)};
  r.kernels = {kernel(20, 50, 1), kernel(175, 200, 2)};
  r.annotations = {{60, 160, 7, false, "IO 3"}};
  step(&r, "ProfilerStep#1", 0, 200);
  const auto t = imported(r);
  const auto rep = replay_trace(
      t, {parse_what_if("scale-host=0:range=IO #"), parse_what_if("scale-host=0.5:range=IO 3"),
          parse_what_if("scale-host=0:range=nothing")});
  ASSERT_EQ(rep.what_ifs.size(), 3u);
  const int64_t replayed = rep.replay.steps[0].predicted_ns;
  EXPECT_EQ(rep.what_ifs[0].steps[0].predicted_ns, replayed - 100);
  EXPECT_EQ(rep.what_ifs[1].steps[0].predicted_ns, replayed - 50);
  EXPECT_EQ(rep.what_ifs[2].steps[0].predicted_ns, replayed);
  EXPECT_NE(rep.what_ifs[2].note.find("nothing to scale"), std::string::npos);
}

// `steps` steps of a loop that loads its batch on the host (a range "load", `load` long, no CUDA
// call), then launches a kernel of `work` and waits for it: DataLoader without workers.
trace::RecordSet loading_loop(int steps, uint64_t load, uint64_t work) {
  trace::RecordSet r;
  uint64_t t = 0;
  for (uint32_t i = 0; i < static_cast<uint32_t>(steps); ++i) {
    const uint64_t s = t, l = s + load, k0 = l + 7 * us, k1 = k0 + work;
    r.annotations.push_back({s, l, 7, false, "load"});
    r.api.push_back(call("cudaLaunchKernel", l, l + 5 * us, 2 * i + 1));
    r.kernels.push_back(kernel(k0, k1, 2 * i + 1));
    r.api.push_back(call("cudaStreamSynchronize", l + 5 * us, k1 + 3 * us, 2 * i + 2));
    t = k1 + 5 * us;
    step(&r, "ProfilerStep#" + std::to_string(i), s, t);
  }
  return r;
}

TEST(ReplayWhatIf, WorkersRunALoadingRangeAheadOfTheStep) {
  // Loading 100 us, the rest of a step 75 us. The first step still waits for its batch. One
  // worker loads back to back, so the steps after it follow at its pace, 100 us; two load
  // faster than the step needs, so the load leaves every later step.
  const auto t = imported(loading_loop(6, 100 * us, 60 * us));
  const auto rep =
      replay_trace(t, {parse_what_if("workers=1:range=load"), parse_what_if("workers=2:range=load"),
                       parse_what_if("scale-host=0:range=load")});
  ASSERT_EQ(rep.what_ifs.size(), 3u);
  const auto& one = rep.what_ifs[0].steps;
  const auto& two = rep.what_ifs[1].steps;
  const auto& free = rep.what_ifs[2].steps;
  const auto& replayed = rep.replay.steps;
  ASSERT_EQ(one.size(), 6u);
  EXPECT_EQ(one[0].predicted_ns, replayed[0].predicted_ns);
  EXPECT_EQ(two[0].predicted_ns, replayed[0].predicted_ns);
  for (size_t i = 2; i < one.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(one[i].predicted_ns), 100.0 * us, 1.0 * us) << i;
    EXPECT_EQ(two[i].predicted_ns, free[i].predicted_ns) << i;
    EXPECT_EQ(two[i].predicted_ns, replayed[i].predicted_ns - static_cast<int64_t>(100 * us));
  }
  EXPECT_NE(rep.what_ifs[0].note.find("6 host ranges named load on 1 thread run ahead by 1 "
                                      "worker"),
            std::string::npos)
      << rep.what_ifs[0].note;
}

TEST(ReplayWhatIf, WorkersLeaveARangeThatQueuesGpuWorkOnItsThread) {
  // A "load" that launches a kernel is part of the step's GPU path: no worker process can hold
  // it, so nothing moves.
  trace::RecordSet r = loading_loop(3, 100 * us, 60 * us);
  for (auto& a : r.annotations) a.end_ns += 10 * us;  // now around the launch
  const auto t = imported(r);
  const auto rep = replay_trace(t, {parse_what_if("workers=2:range=load")});
  ASSERT_EQ(rep.what_ifs.size(), 1u);
  for (size_t i = 0; i < rep.replay.steps.size(); ++i)
    EXPECT_EQ(rep.what_ifs[0].steps[i].predicted_ns, rep.replay.steps[i].predicted_ns);
  EXPECT_NE(rep.what_ifs[0].note.find("queues or waits for GPU work"), std::string::npos)
      << rep.what_ifs[0].note;
}

TEST(ReplaySites, OneItemIsOneSiteThoughItBlocksTwice) {
  trace::RecordSet r;
  r.cpu_ops = {{0, 100, 7, "aten::item"}, {200, 300, 7, "aten::item"}};
  r.api = {call("cudaMemcpyAsync", 10, 50, 1), call("cudaStreamSynchronize", 50, 90, 0),
           call("cudaDeviceSynchronize", 210, 290, 0)};
  r.memcpys = {d2h(20, 30, 1, trace::MemoryKind::Pageable)};
  const auto syncs = trace::find_syncs(r);
  const auto blocking = trace::replay::find_sites(r, syncs, {});
  ASSERT_EQ(blocking.size(), 2u);
  EXPECT_EQ(blocking[0].calls.size(), 2u);
  EXPECT_EQ(blocking[0].blocked_ns, 80u);
  EXPECT_FALSE(blocking[0].region);
  const auto api =
      trace::replay::find_sites(r, syncs, {SiteSelector::By::Api, "cudaStreamSynchronize"});
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(api[0].calls.size(), 1u);
  const auto op = trace::replay::find_sites(r, syncs, {SiteSelector::By::Op, "aten::item"});
  ASSERT_EQ(op.size(), 2u);
  EXPECT_TRUE(op[0].region);
  EXPECT_EQ(op[0].start_ns, 0u);
  EXPECT_EQ(op[0].end_ns, 100u);
  EXPECT_EQ(op[1].calls.size(), 1u);
}

TEST(ReplayWhatIf, RemovingARegionTakesItsTimeItsCallsAndTheirGpuWork) {
  // aten::item [100, 200]: a copy call and a stream sync that ends exactly where the op does,
  // with a zero-length call at that same time (sorted after the region's end cut).
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10, 1), call("cudaMemcpyAsync", 110, 120, 2),
           call("cudaStreamSynchronize", 120, 200, 3), call("cudaMemsetAsync", 200, 200, 4),
           call("cudaLaunchKernel", 250, 260, 5)};
  r.kernels = {kernel(20, 150, 1), kernel(265, 300, 5)};
  r.memcpys = {d2h(155, 160, 2)};
  r.memsets = {{201, 202, 4, 0, 7, 4}};
  r.cpu_ops = {{100, 200, 7, "aten::item"}};
  step(&r, "ProfilerStep#1", 0, 300);
  const auto t = imported(r);
  const auto rep = replay_trace(t, {parse_what_if("no-syncs:op=aten::item")});
  ASSERT_EQ(rep.what_ifs.size(), 1u);
  EXPECT_EQ(rep.replay.steps[0].predicted_ns, 300);
  // 100 ns of host time go; the second kernel then waits only for its launch (5 ns typical).
  EXPECT_EQ(rep.what_ifs[0].steps[0].predicted_ns, 200);
  const auto graph = trace::replay::build_graph(t.records, {{7, 100, 200}});
  trace::replay::Scenario s;
  trace::replay::PlacedSite site;
  site.site.thread = 7, site.site.start_ns = 100, site.site.end_ns = 200, site.site.region = true;
  site.nodes = graph.span_nodes[0];
  trace::replay::remove_site(graph, site, &s);
  EXPECT_TRUE(s.flags[gpu(graph, NodeType::Memcpy, 0)] & trace::replay::kRemoved);
  EXPECT_TRUE(s.flags[gpu(graph, NodeType::Memset, 0)] &
              trace::replay::kRemoved);  // the zero-length call's
  EXPECT_FALSE(s.flags[kernel_node(graph, 1)] & trace::replay::kRemoved);
}

TEST(ReplayWhatIf, ASyncWithNothingQueuedCostsItsFixedPriceAndTheCurveIsLinear) {
  const auto t = imported(cpu_loop(8));
  const auto rep = replay_trace(t, {parse_what_if("log-every=1,2,4,100,never:op=aten::item")});
  ASSERT_EQ(rep.curves.size(), 1u);
  const auto& c = rep.curves[0];
  EXPECT_EQ(c.sites, 8u);
  EXPECT_NEAR(c.saving_per_sync_ns, 3000, 1);
  EXPECT_NEAR(c.isolated_cost_ns, 3000, 1);
  const std::string why = trace::log_every_why(c);
  EXPECT_TRUE(c.linear) << why;
  EXPECT_EQ(c.shape, LogEveryCurve::Shape::Linear) << why;
  EXPECT_EQ(c.cause, LogEveryCurve::Cause::BlocksOnNothing) << why;
  EXPECT_NE(why.find("block on nothing"), std::string::npos) << why;
  ASSERT_EQ(c.points.size(), 5u);
  EXPECT_EQ(c.points[1].kept, 4u);
  EXPECT_NEAR(c.points[1].predicted_ns, 55000 - 1500, 1);  // half the steps keep their 3 us
  EXPECT_TRUE(c.points[3].extrapolated);                   // 100 > the 8 steps of the trace
  EXPECT_NEAR(c.points[3].kept_per_step, 0.01, 1e-9);
  EXPECT_NEAR(c.points[3].predicted_ns, 52000 + 30, 1);
  EXPECT_NEAR(c.points[4].predicted_ns, 52000, 1);
}

// A launch-bound loop whose `aten::item` is 20 us of host time, of which its sync blocks 3 us:
// removing one saves its host work, well over what it blocked.
TEST(ReplayWhatIf, ASiteSavesItsHostWorkBeyondWhatItBlocked) {
  trace::RecordSet r;
  uint64_t t = 0;
  for (uint32_t i = 0; i < 8; ++i, t += 32 * us) {
    const uint32_t c = 3 * i + 1;
    r.api.push_back(call("cudaLaunchKernel", t, t + 5 * us, c));
    r.kernels.push_back(kernel(t + 6 * us, t + 8 * us, c));
    r.api.push_back(call("cudaMemcpyAsync", t + 12 * us, t + 15 * us, c + 1));
    r.memcpys.push_back(d2h(t + 15 * us, t + 16 * us, c + 1));
    r.api.push_back(call("cudaStreamSynchronize", t + 15 * us, t + 18 * us, c + 2));
    r.cpu_ops.push_back({t + 10 * us, t + 30 * us, 7, "aten::item"});
    step(&r, "ProfilerStep#" + std::to_string(i), t, t + 32 * us);
  }
  const auto rep = replay_trace(imported(r), {parse_what_if("log-every=1,2,never:op=aten::item")});
  ASSERT_EQ(rep.curves.size(), 1u);
  const auto& c = rep.curves[0];
  const std::string why = trace::log_every_why(c);
  EXPECT_GT(c.saving_per_sync_ns, 1.25 * c.blocked_per_sync_ns) << why;
  EXPECT_EQ(c.cause, LogEveryCurve::Cause::SavesItsHostWork) << why;
  EXPECT_NE(why.find("more than the"), std::string::npos) << why;
}

TEST(ReplayWhatIf, ASyncBehindQueuedWorkOnlyMovesTheWait) {
  const auto t = imported(gpu_bound_loop(10));
  const auto rep =
      replay_trace(t, {parse_what_if("no-syncs"), parse_what_if("log-every=1,2,never")});
  EXPECT_TRUE(rep.target_met);
  // Without the syncs each step's CPU window shrinks to its own 10 us...
  const auto& none = rep.what_ifs[0];
  EXPECT_LT(none.steps[5].predicted_ns, static_cast<int64_t>(12 * us));
  // ...but the GPU still has its 10 x 102 us to do: the total saves far less than the syncs
  // blocked.
  EXPECT_GT(none.total.predicted_ns, static_cast<int64_t>(1020 * us));
  const auto& c = rep.curves[0];
  EXPECT_GT(c.queued_per_sync_ns, 0.5 * c.blocked_per_sync_ns);
  EXPECT_LT(c.saving_per_sync_ns, 0.3 * c.blocked_per_sync_ns);
  const std::string why = trace::log_every_why(c);
  EXPECT_EQ(c.cause, LogEveryCurve::Cause::WaitMoves) << why;
  EXPECT_NE(why.find("moves to the next sync"), std::string::npos) << why;
}

TEST(ReplayWhatIf, ScalingLaunchesAndKernels) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 10, 1), call("cudaLaunchKernel", 10, 20, 2),
           call("cudaDeviceSynchronize", 20, 205, 3)};
  r.kernels = {kernel(15, 100, 1), kernel(100, 200, 2)};
  r.kernels[1].name = "big_gemm";
  step(&r, "ProfilerStep#1", 0, 210);
  const auto t = imported(r);
  const auto rep =
      replay_trace(t, {parse_what_if("scale-kernels=0.5:name=gemm"),
                       parse_what_if("scale-kernels=2"), parse_what_if("scale-launches=0")});
  EXPECT_EQ(rep.what_ifs[0].steps[0].predicted_ns, 160);  // big_gemm 50 ns shorter
  EXPECT_EQ(rep.what_ifs[1].steps[0].predicted_ns, 395);  // both kernels twice as long
  // GPU-bound, but the first kernel waited for its launch: all of it 10 ns earlier, not 20.
  EXPECT_EQ(rep.what_ifs[2].steps[0].predicted_ns, 200);
  EXPECT_EQ(rep.what_ifs[0].steps[0].bound[0].resource, "GPU 0 stream 7");
  trace::RecordSet unnamed = r;
  unnamed.kernels[1].name.clear(), unnamed.kernels[0].name.clear();
  const auto u = imported(unnamed);
  EXPECT_THROW(replay_trace(u, {parse_what_if("scale-kernels=0.5:name=gemm")}),
               std::invalid_argument);
}

// Launch-bound: four 20 us launches 5 us apart, each kernel 1 us; then a sync.
trace::RecordSet four_launches() {
  trace::RecordSet r;
  for (uint32_t i = 0; i < 4; ++i) {
    r.api.push_back(call("cudaLaunchKernel", i * 25 * us, i * 25 * us + 20 * us, i + 1));
    r.kernels.push_back(kernel(i * 25 * us + 22 * us, i * 25 * us + 23 * us, i + 1));
  }
  r.api.push_back(call("cudaStreamSynchronize", 100 * us, 104 * us, 9));
  step(&r, "ProfilerStep#1", 0, 105 * us);
  return r;
}

TEST(ReplayWhatIf, GraphStepsReplaceTheHostWorkOfTheLaunchesWithOneGraphLaunch) {
  const auto t = imported(four_launches());
  const auto rep = replay_trace(t, {parse_what_if("graph-steps:launch-us=10:node-us=0.5")});
  // From the first launch call's start to the last one's end (95 us of launches and the CPU time
  // between them) the host makes one 10 us graph launch; the 5 us before the sync stay.
  const auto g = trace::replay::build_graph(t.records);
  const auto caps = trace::replay::step_captures(g, {{0, 105 * us}});
  ASSERT_EQ(caps.size(), 1u);
  trace::replay::GraphFacts f;
  const auto s = trace::replay::capture_graphs(g, t.records, caps, {10 * us, 500}, &f);
  EXPECT_EQ(f.graphs, 1u);
  EXPECT_EQ(f.nodes, 4u);
  const auto times = trace::replay::simulate(g, s);
  EXPECT_EQ(times.start[start_of(g, 4)], static_cast<int64_t>(15 * us));  // the sync
  // The kernels wait for the graph launch (and the trace's 2 us launch latency), then follow one
  // another 0.5 us apart, whatever they waited for in the trace.
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(times.start[kernel_node(g, i)], static_cast<int64_t>(12000 + i * 1500)) << i;
  EXPECT_LT(rep.what_ifs[0].steps[0].predicted_ns, static_cast<int64_t>(30 * us));
  EXPECT_NE(rep.what_ifs[0].note.find("1 graph of 4 nodes"), std::string::npos)
      << rep.what_ifs[0].note;
  EXPECT_NE(rep.what_ifs[0].note.find("10.00 us (as given)"), std::string::npos);
}

TEST(ReplayWhatIf, GraphStepsTakeThePublishedCostsOrTheTracesOwnGraphs) {
  // No graph in the trace: a launch costs 2.5 us + 1 ns a node; on an H100 a node takes at
  // least 1.3 us, its own time included.
  auto t = imported(four_launches());
  t.devices.push_back({0, "NVIDIA H100", 9, 0, 0});
  auto rep = replay_trace(t, {parse_what_if("graph-steps")});
  EXPECT_NE(rep.what_ifs[0].note.find("2.50 us + 1 ns a node (published"), std::string::npos)
      << rep.what_ifs[0].note;
  EXPECT_NE(rep.what_ifs[0].note.find("at least 1.30 us on the GPU"), std::string::npos)
      << rep.what_ifs[0].note;
  // A trace with a graph of its own: its launch's 7 us and its kernels' 0.4 us gaps.
  trace::RecordSet r = four_launches();
  r.api.push_back(call("cudaGraphLaunch", 110 * us, 117 * us, 20));
  for (uint64_t i = 0; i < 3; ++i)
    r.kernels.push_back(kernel(120 * us + i * 1400, 121 * us + i * 1400, 20));
  t = imported(r);
  rep = replay_trace(t, {parse_what_if("graph-steps")});
  EXPECT_NE(rep.what_ifs[0].note.find("7.00 us (median of the trace's 1 graph launches)"),
            std::string::npos)
      << rep.what_ifs[0].note;
  EXPECT_NE(rep.what_ifs[0].note.find("0.40 us apart on the GPU (median of the trace's 2 gaps"),
            std::string::npos);
}

TEST(ReplayWhatIf, AGraphRegionIsSplitAtABlockingCallAndWhatLiesOutsideStays) {
  // A compiled region (10 to 90 us) launches two kernels, reads a value in between (a blocking
  // copy) and launches after it; 10 us of Python before it and after it stay.
  trace::RecordSet r;
  r.cpu_ops.push_back({10 * us, 90 * us, 7, "Torch-Compiled Region: 0/0"});
  r.api.push_back(call("cudaLaunchKernel", 20 * us, 25 * us, 1));
  r.kernels.push_back(kernel(27 * us, 30 * us, 1));
  r.api.push_back(call("cudaMemcpy", 40 * us, 45 * us, 2));
  r.memcpys.push_back(d2h(41 * us, 42 * us, 2, trace::MemoryKind::Pageable));
  r.api.push_back(call("cudaLaunchKernel", 60 * us, 65 * us, 3));
  r.kernels.push_back(kernel(67 * us, 70 * us, 3));
  r.cpu_ops.push_back({95 * us, 100 * us, 7, "aten::add"});
  step(&r, "ProfilerStep#1", 0, 100 * us);
  const auto t = imported(r);
  const auto rep = replay_trace(
      t, {parse_what_if("graph=Torch-Compiled Region:launch-us=2:node-us=1"),
          parse_what_if("graph=Compiled Region"), parse_what_if("graph-steps:launch-us=2")});
  const auto& x = rep.what_ifs[0];
  EXPECT_NE(x.note.find("2 graphs of 2 nodes (1 range named Torch-Compiled Region; 1 split at a "
                        "blocking call"),
            std::string::npos)
      << x.note;
  // 10 us before the region, a 2 us graph launch, the copy, now right behind the first kernel
  // (its 2 us launch latency and 3 us, then the 1 us copy and the recorded 3 us wake-up: 9 us),
  // a 2 us graph launch, the 10 us after the region: the region's other host work is gone.
  EXPECT_EQ(x.steps[0].predicted_ns, static_cast<int64_t>((10 + 2 + 9 + 2 + 10) * us));
  // No range of that name: nothing changes, and the note says so.
  EXPECT_EQ(rep.what_ifs[1].steps[0].predicted_ns, rep.what_ifs[1].steps[0].replayed_ns);
  EXPECT_NE(rep.what_ifs[1].note.find("no host range named Compiled Region"), std::string::npos);
  // graph-steps captures from the first launch to the last one only: two graphs, one a side of
  // the copy; the region's host work before, between and after the launches stays.
  EXPECT_GT(rep.what_ifs[2].steps[0].predicted_ns, x.steps[0].predicted_ns);
}

TEST(ReplayWhatIf, StepsAreMeasuredOnTheirThreadAndTheTotalWaitsForTheGpu) {
  const auto t = imported(gpu_bound_loop(3));
  const auto steps = trace::replay::measured_steps(t.records);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].thread, 7u);
  const auto rep = replay_trace(t, {});
  const int64_t last_step_end = static_cast<int64_t>(t.records.steps.back().end_ns);
  EXPECT_EQ(rep.replay.total.measured_ns,
            last_step_end);  // the last sync waited for all the GPU work
  EXPECT_EQ(rep.replay.total.replayed_ns, rep.replay.total.predicted_ns);
}

// Three calls of a compiled model (no ProfilerStep), each a `Torch-Compiled Region` of 50 us on
// the host that launches one 150 us kernel at 10 us: the GPU lags further behind every call.
trace::RecordSet compiled_calls() {
  trace::RecordSet r;
  for (uint32_t i = 0; i < 3; ++i) {
    const uint64_t t = i * 100 * us;
    r.cpu_ops.push_back({t, t + 50 * us, 7, "Torch-Compiled Region: 0/1"});
    r.api.push_back(call("cudaLaunchKernel", t + 10 * us, t + 15 * us, i + 1));
    const uint64_t k0 = std::max<uint64_t>(t + 17 * us, i * 150 * us + 17 * us);
    r.kernels.push_back(kernel(k0, k0 + 150 * us, i + 1));
  }
  return r;
}

TEST(ReplayWhatIf, StepStartsMakeCallsAndThePaceFollowsTheGpu) {
  auto t = imported(compiled_calls());
  ASSERT_EQ(trace::use_step_starts(&t, "Torch-Compiled Region", 1), 3u);
  EXPECT_EQ(t.records.steps[0].end_ns, 100 * us);  // to the next start
  EXPECT_EQ(t.records.steps[2].end_ns, 250 * us);  // the last: to its range's end
  EXPECT_EQ(t.records.steps[1].thread_id, 7u);
  const auto rep = replay_trace(t, {});
  ASSERT_EQ(rep.replay.steps.size(), 3u);
  // Each step is the host's 100 us (the last 50 us), measured on its thread ...
  EXPECT_EQ(rep.replay.steps[1].measured_ns, static_cast<int64_t>(100 * us));
  EXPECT_EQ(rep.replay.steps[1].replayed_ns, static_cast<int64_t>(100 * us));
  // ... but the calls are done at the GPU's pace: the first at 167 us, then every 150 us.
  for (const auto* w : {&rep.replay.steps[0], &rep.replay.steps[1], &rep.replay.steps[2]}) {
    EXPECT_EQ(w->measured_pace_ns, w == &rep.replay.steps[0] ? 167 * 1000 : 150 * 1000);
    EXPECT_EQ(w->replayed_pace_ns, w->measured_pace_ns);
  }
  // Every 2nd start; a name that no range has.
  auto every = imported(compiled_calls());
  EXPECT_EQ(trace::use_step_starts(&every, "Torch-Compiled Region", 2), 2u);
  EXPECT_EQ(every.records.steps[0].end_ns, 200 * us);
  EXPECT_EQ(trace::use_step_starts(&every, "Torch-Compiled", 1), 0u);
  EXPECT_EQ(every.records.steps.size(), 2u);  // left as they were
}

TEST(ReplayWhatIf, StepRangesAreMeasuredOnTheirThread) {
  // --step-range's steps are ranges of any name: each is measured on its own thread, not over the
  // whole trace.
  auto t = imported(compiled_calls());
  ASSERT_EQ(trace::use_step_ranges(&t, "Torch-Compiled Region"), 3u);
  const auto rep = replay_trace(t, {});
  ASSERT_EQ(rep.replay.steps.size(), 3u);
  EXPECT_EQ(rep.replay.steps[1].replayed_ns, static_cast<int64_t>(50 * us));
}

TEST(ReplayWhatIf, OurOwnCudaTraceReplaysByEpochAndItsPhases) {
  // What experiments/replay_validation.sh feeds it on a GPU run: bench's --trace_dir file, with
  // `epoch` ranges as the windows and `item` (the D2H copy and the stream sync) as the op kept.
  trace::RecordSet r;
  for (uint64_t e = 0; e < 3; ++e) {
    trace::RecordSet one = testdata::one_epoch();
    const uint64_t shift = e * 1000, corr = e * 10;
    for (auto& x : one.ranges) x.start_ns += shift, x.end_ns += shift, r.ranges.push_back(x);
    for (auto& x : one.api)
      x.start_ns += shift, x.end_ns += shift, x.correlation_id += x.correlation_id ? corr : 0,
          r.api.push_back(x);
    for (auto& x : one.kernels)
      x.start_ns += shift, x.end_ns += shift, x.correlation_id += corr, r.kernels.push_back(x);
    for (auto& x : one.memcpys)
      x.start_ns += shift, x.end_ns += shift, x.correlation_id += corr, r.memcpys.push_back(x);
  }
  const std::string json = trace::chrome_trace_json(r);
  auto source = trace::memory_byte_source(json.data(), json.size(), "ours.trace.json");
  const trace::ImportedTrace t =
      trace::import_trace(*source, "ours.trace.json", tracetest::bench_files());
  ASSERT_EQ(t.records.steps.size(), 3u);
  const auto rep = replay_trace(t, {parse_what_if("log-every=1,never:op=item")});
  ASSERT_EQ(rep.replay.steps.size(), 3u);
  EXPECT_EQ(rep.replay.steps[1].measured_ns, 1000);
  EXPECT_EQ(rep.replay.steps[1].replayed_ns, 1000);
  const auto& c = rep.curves.at(0);
  EXPECT_EQ(c.sites, 3u);
  // Without `item` (140 ns: the copy call, the 110 ns sync that waited for the copy) each epoch
  // is shorter; the kernel launched after it waited for its launch, which comes earlier.
  EXPECT_GT(c.saving_per_sync_ns, 100);
  EXPECT_LE(c.saving_per_sync_ns, 140);
}

TEST(AttributeWhatIf, BadSpecExitsTwoAndWritesNothing) {
  const std::string out = ::testing::TempDir() + "/what-if.json";
  std::remove(out.c_str());
  const std::string trace = tracetest::data("traces/a100-event-sync.json.gz");
  int rc = std::system((std::string(ATTRIBUTE_BIN) + " --quiet --json " + out +
                        " --what-if faster " + trace + " 2>/dev/null")
                           .c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(std::ifstream(out).good());
  rc = std::system(
      (std::string(ATTRIBUTE_BIN) + " --quiet --hta --replay " + trace + " 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  rc = std::system((std::string(ATTRIBUTE_BIN) + " --quiet --json " + out +
                    " --what-if log-every=1,never " + trace)
                       .c_str());
  EXPECT_EQ(rc, 0);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  for (const char* key : {"\"replays\"", "\"what_if\"", "\"typical_delays\"", "\"log_every\"",
                          "\"why\"", "\"bound\""})
    EXPECT_NE(text.str().find(key), std::string::npos) << key;
}

// pin-copies, node by node: a pageable device-to-host copy whose call waited out a long kernel.
// Pinned, its call returns at once, the copy runs when the kernel is done as before, the next
// kernel queues behind it, and the next sync on the stream waits for both: the wait moves there.
TEST(ReplayWhatIf, APinnedCopysWaitMovesToTheNextSyncOnItsStream) {
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5 * us, 1), call("cudaMemcpyAsync", 10 * us, 1010 * us, 2),
           call("cudaLaunchKernel", 1015 * us, 1020 * us, 3),
           call("cudaStreamSynchronize", 1500 * us, 2300 * us, 4),
           call("cudaMemcpyAsync", 2400 * us, 2405 * us, 5)};
  r.kernels = {kernel(6 * us, 900 * us, 1), kernel(1021 * us, 2290 * us, 3)};
  r.memcpys = {d2h(900 * us, 1000 * us, 2, trace::MemoryKind::Pageable),
               d2h(2410 * us, 2420 * us, 5, trace::MemoryKind::Pinned)};
  r.memcpys[0].bytes = 1000000;  // 1 MB in 100 us: 10 GB/s, pageable
  r.memcpys[1].bytes = 2000000;  // 2 MB in 10 us: the trace's pinned rate, 200 GB/s
  const auto t = imported(r);
  const auto g = trace::replay::build_graph(t.records);
  trace::replay::PinCopiesFacts f;
  const auto s = trace::replay::pin_copies(g, t.records, -1, {}, &f);
  EXPECT_EQ(f.copies, 1u);
  EXPECT_EQ(f.call_ns, static_cast<int64_t>(5 * us));  // the trace's non-blocking copy call
  const auto before = trace::replay::simulate(g), after = trace::replay::simulate(g, s);
  const uint32_t copy = gpu(g, NodeType::Memcpy, 0), k2 = kernel_node(g, 1);
  // The call: 5 us, no longer waiting for the kernel or its copy.
  EXPECT_EQ(after.start[end_of(g, 1)] - after.start[start_of(g, 1)], static_cast<int64_t>(5 * us));
  // The copy: 1 MB at 200 GB/s (5 us), still behind the first kernel on its stream.
  EXPECT_EQ(after.start[copy], end_at(before, kernel_node(g, 0)));
  EXPECT_EQ(after.duration[copy], static_cast<int64_t>(5 * us));
  // The second kernel was launched 995 us earlier; it now waits for the copy on the stream.
  EXPECT_EQ(after.start[start_of(g, 2)], before.start[start_of(g, 2)] - 995 * 1000);
  EXPECT_GE(after.start[k2], end_at(after, copy));
  // The sync: it starts 995 us earlier and now waits for the copy and the kernel behind it, and
  // returns the recorded 10 us after that kernel. The kernel ends 116 us earlier than recorded:
  // the copy's 95 us saved, and the 21 us it waited for its late launch in the trace (it now
  // follows the copy at once). So the sync blocks 995 - 116 us longer: the wait moved to it.
  EXPECT_EQ(after.start[end_of(g, 3)], end_at(after, k2) + 10 * 1000);
  EXPECT_EQ(end_at(before, k2) - end_at(after, k2), 116 * 1000);
  const int64_t blocked_before = before.start[end_of(g, 3)] - before.start[start_of(g, 3)],
                blocked_after = after.start[end_of(g, 3)] - after.start[start_of(g, 3)];
  EXPECT_EQ(blocked_after - blocked_before, (995 - 116) * 1000);
  // The trace's end moves by those 116 us, not by the 995 us the copy's call blocked.
  EXPECT_EQ(
      end_at(before, gpu(g, NodeType::Memcpy, 1)) - end_at(after, gpu(g, NodeType::Memcpy, 1)),
      116 * 1000);
}

TEST(ReplayWhatIf, APinnedCopyWithNoSyncAfterItStillEndsTheStep) {
  // The copy is the step's last GPU work and no sync follows: the step's total waits for it.
  trace::RecordSet r;
  r.api = {call("cudaLaunchKernel", 0, 5 * us, 1), call("cudaMemcpyAsync", 10 * us, 1010 * us, 2)};
  r.kernels = {kernel(6 * us, 900 * us, 1)};
  r.memcpys = {d2h(900 * us, 1000 * us, 2, trace::MemoryKind::Pageable)};
  r.memcpys[0].bytes = 1000000;
  step(&r, "ProfilerStep#1", 0, 1015 * us);
  const auto rep = replay_trace(imported(r), {parse_what_if("pin-copies")});
  const auto& x = rep.what_ifs[0];
  // The host's step: 10 us, then a 5 us call (the default: no non-blocking copy call in the
  // trace), then the recorded 5 us; the total runs until the copy ends: 1 MB at 16 GB/s (no
  // pinned copy in the trace, and no GPU named: the slowest link's published peak), 62.5 us from
  // the kernel's end at 900 us.
  EXPECT_EQ(x.steps[0].predicted_ns, static_cast<int64_t>(20 * us));
  EXPECT_EQ(x.total.predicted_ns, static_cast<int64_t>(962500));
  EXPECT_NE(x.note.find("16.0 GB/s (no pinned copy"), std::string::npos) << x.note;
  EXPECT_NE(x.note.find("names no GPU, so the most conservative"), std::string::npos) << x.note;
  // The GPU named: its link's.
  auto a100 = imported(r);
  a100.devices.push_back({0, "NVIDIA A100-SXM4-80GB", 8, 0, 0});
  const auto named = replay_trace(a100, {parse_what_if("pin-copies")});
  EXPECT_EQ(named.what_ifs[0].total.predicted_ns, static_cast<int64_t>(900 * us + 31250));
  EXPECT_NE(named.what_ifs[0].note.find("the A100 row; NVIDIA A100"), std::string::npos)
      << named.what_ifs[0].note;
}

TEST(AttributeWhatIf, StepStartsNamesWhatItDidNotFindAndExitsTwo) {
  const std::string trace = tracetest::data("traces_pairs/h100-toyblock-compile-default.json.gz");
  const auto exit_code = [&](const std::string& flags) {
    const int rc = std::system(
        (std::string(ATTRIBUTE_BIN) + " --quiet " + flags + " " + trace + " 2>/dev/null").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(exit_code("--replay --step-starts 'Torch-Compiled Region'"), 0);
  EXPECT_EQ(exit_code("--replay --step-starts 'No Such Region'"), 2);
  EXPECT_EQ(exit_code("--replay --step-every 8"), 2);  // without --step-starts
  EXPECT_EQ(exit_code("--replay --step-starts aten::mm --step-every 0"), 2);
  EXPECT_EQ(exit_code("--step-range aten::mm --step-starts aten::mm"), 2);
  EXPECT_EQ(exit_code("--what-if 'graph=Torch-Compiled Region:node-us=-1'"), 2);
}
