// The published constants (analyze/replay/gpu_constants.h): every row with its source, the row a
// trace's device properties pick, the importers that read those properties, and the graph model
// that counts a node's cost once (graph_capture.h) on hand-built records with known answers.
#include <gtest/gtest.h>

#include <string>

#include "replay_fixture.h"
#include "trace/analyze/replay/gpu_constants.h"
#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

using namespace replaytest;
using trace::DeviceProperties;
using trace::replay::gpu_constants;
using trace::replay::GpuConstants;
using trace::replay::kGpus;
using trace::replay::kLinks;

namespace {

const uint64_t us = 1000;

DeviceProperties device(const std::string& name, int major, int minor, uint32_t id = 0) {
  DeviceProperties d;
  d.id = id, d.name = name, d.compute_major = major, d.compute_minor = minor;
  return d;
}

std::string row_of(const DeviceProperties& d) {
  const GpuConstants c = gpu_constants(d);
  return c.row ? c.row->gpu : "none";
}

}  // namespace

TEST(GpuConstants, EveryRowHasItsSource) {
  for (const auto& l : kLinks) {
    EXPECT_GT(l.gbps, 0) << l.name;
    EXPECT_GT(std::string(l.source).size(), 20u) << l.name;
  }
  for (const auto& g : kGpus) {
    EXPECT_GT(std::string(g.link_source).size(), 10u) << g.gpu;
    const bool figures = g.stream_kernel_ns > 0 || g.graph_kernel_ns > 0;
    // A figure only with its source, and a source only for a figure.
    EXPECT_EQ(figures, !std::string(g.kernel_source).empty()) << g.gpu;
    if (g.graph_kernel_ns && g.stream_kernel_ns) EXPECT_LT(g.graph_kernel_ns, g.stream_kernel_ns);
  }
  EXPECT_GT(std::string(trace::replay::kGraphLaunch.source).size(), 20u);
}

TEST(GpuConstants, DevicePropertiesPickTheirRow) {
  EXPECT_EQ(row_of(device("NVIDIA A100-SXM4-80GB", 8, 0)), "A100");
  EXPECT_EQ(row_of(device("NVIDIA A100-PCIE-40GB", 8, 0)), "A100");
  EXPECT_EQ(row_of(device("NVIDIA PG509-210", 8, 0)), "A100");  // the A100 SXM board
  EXPECT_EQ(row_of(device("NVIDIA H100 80GB HBM3", 9, 0)), "H100");
  EXPECT_EQ(row_of(device("NVIDIA H100", 9, 0)), "H100");
  EXPECT_EQ(row_of(device("NVIDIA H200", 9, 0)), "H200");
  EXPECT_EQ(row_of(device("NVIDIA GH200 480GB", 9, 0)), "GH200");
  EXPECT_EQ(row_of(device("Tesla T4", 7, 5)), "T4");
  EXPECT_EQ(row_of(device("Tesla V100-SXM2-16GB", 7, 0)), "V100");
  // No name: its compute capability, and of its rows the slowest host link (an unnamed sm_90 is
  // no GH200 with its NVLink-C2C); another vendor's "compute capability" picks nothing.
  EXPECT_EQ(row_of(device("", 8, 0)), "A100");
  EXPECT_EQ(row_of(device("", 7, 5)), "T4");
  EXPECT_EQ(gpu_constants(device("", 9, 0)).link->gbps,
            gpu_constants(device("NVIDIA H100", 9, 0)).link->gbps);
  EXPECT_NE(row_of(device("NVIDIA H800", 9, 0)), "GH200");
  EXPECT_EQ(row_of(device("AMD Radeon Graphics", 9, 0)), "none");
  EXPECT_EQ(row_of(device("AMD Instinct MI300X", 9, 4)), "none");
  // A word is matched whole: no T4 in an RTX 4090, no A100 in an A1000.
  EXPECT_EQ(row_of(device("NVIDIA GeForce RTX 4090", 8, 9)), "none");
  EXPECT_EQ(row_of(device("NVIDIA RTX A1000", 8, 6)), "none");

  // Each row's link: what pin-copies takes without a pinned copy of the trace's own.
  EXPECT_EQ(gpu_constants(device("NVIDIA A100-SXM4-80GB", 8, 0)).link->gbps, 32.0);
  EXPECT_EQ(gpu_constants(device("NVIDIA H100", 9, 0)).link->gbps, 64.0);
  EXPECT_EQ(gpu_constants(device("NVIDIA H200", 9, 0)).link->gbps, 64.0);
  EXPECT_EQ(gpu_constants(device("NVIDIA GH200 480GB", 9, 0)).link->gbps, 450.0);
  EXPECT_EQ(gpu_constants(device("Tesla T4", 7, 5)).link->gbps, 16.0);
  EXPECT_EQ(gpu_constants(device("Tesla V100-SXM2-16GB", 7, 0)).link->gbps, 16.0);

  // Unknown: the most conservative figures, and it says so.
  const GpuConstants unknown = gpu_constants(device("Some Future GPU", 12, 0));
  EXPECT_EQ(unknown.row, nullptr);
  EXPECT_EQ(unknown.link->gbps, 16.0);  // the slowest link
  EXPECT_NE(unknown.why.find("most conservative"), std::string::npos) << unknown.why;
  const GpuConstants none = gpu_constants({}, 0);
  EXPECT_EQ(none.row, nullptr);
  EXPECT_NE(none.why.find("names no GPU"), std::string::npos) << none.why;
  EXPECT_EQ(trace::replay::conservative_kernel_ns(nullptr), 2700);

  // Among several GPUs, the one of that id.
  const std::vector<DeviceProperties> two = {device("Tesla T4", 7, 5, 0),
                                             device("NVIDIA H100", 9, 0, 1)};
  EXPECT_EQ(std::string(gpu_constants(two, 1).row->gpu), "H100");
  EXPECT_EQ(std::string(gpu_constants(two, 5).row->gpu), "T4");  // no such id: the first one
}

TEST(GpuConstants, TheImportersReadTheDeviceProperties) {
  const auto kineto =
      trace::import_file(tracetest::data("traces_pairs/a100-sidestreams-blocking.json.gz"));
  ASSERT_EQ(kineto.devices.size(), 8u);
  EXPECT_EQ(kineto.devices[0].name, "NVIDIA PG509-210");
  EXPECT_EQ(kineto.devices[0].compute_major, 8);
  EXPECT_EQ(kineto.devices[0].total_memory, 85198045184u);
  EXPECT_EQ(kineto.devices[7].id, 7u);
  const auto nsys = trace::import_file(tracetest::data("nsys/t4-power-iteration.sqlite.gz"));
  ASSERT_EQ(nsys.devices.size(), 1u);
  EXPECT_EQ(nsys.devices[0].name, "Tesla T4");
  EXPECT_EQ(nsys.devices[0].compute_major, 7);
  EXPECT_EQ(nsys.devices[0].compute_minor, 5);
  EXPECT_EQ(row_of(nsys.devices[0]), "T4");
  // A file that lists no GPU: none.
  EXPECT_TRUE(tracetest::import_text(R"({"traceEvents": []})").devices.empty());
  // Bad input names the file and the field.
  const std::string error =
      tracetest::import_error(R"({"deviceProperties": 5, "traceEvents": []})", "bad.json");
  EXPECT_NE(error.find("bad.json"), std::string::npos) << error;
  EXPECT_NE(error.find("deviceProperties"), std::string::npos) << error;
}

namespace {

// A launch-bound stretch: `n` launch calls of 10 us, each kernel `kernel_ns` long, 2 us after
// its call: the GPU idles between kernels, so the trace measures no back-to-back gap.
trace::ImportedTrace tiny_kernels(uint32_t n, uint64_t kernel_ns, const std::string& gpu) {
  trace::ImportedTrace t;
  t.file = "hand-built";
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t s = i * 10 * us;
    t.records.api.push_back(call("cudaLaunchKernel", s, s + 10 * us, i + 1));
    t.records.kernels.push_back(kernel(s + 12 * us, s + 12 * us + kernel_ns, i + 1));
  }
  t.records.api.push_back(call("cudaStreamSynchronize", n * 10 * us, n * 10 * us + 20 * us, 0));
  step(&t.records, "ProfilerStep#1", 0, n * 10 * us + 21 * us);
  if (!gpu.empty()) t.devices.push_back(device(gpu, 9, 0));
  return t;
}

// The GPU time of the captured kernels in the graph what-if: first start to last end.
int64_t captured_gpu_ns(const trace::ImportedTrace& t, trace::replay::GraphFacts* f) {
  const auto g = trace::replay::build_graph(t.records);
  const auto caps = trace::replay::step_captures(g, {{0, t.records.steps[0].end_ns}});
  const auto s =
      trace::replay::capture_graphs(g, t.records, caps, {-1, -1, gpu_constants(t.devices, 0)}, f);
  const auto times = trace::replay::simulate(g, s);
  const uint32_t first = kernel_node(g, 0),
                 last = kernel_node(g, static_cast<uint32_t>(t.records.kernels.size() - 1));
  return end_at(times, last) - times.start[first];
}

}  // namespace

TEST(GraphModel, APublishedPerKernelCostIsNotAddedOnTopOfTheKernelsTime) {
  // 2000 kernels of 1.6 us on an H100, whose published cost is 1.3 us a kernel in a graph: each
  // kernel already takes longer than that, so the graph runs them back to back: 2000 x 1.6 us,
  // not 2000 x (1.6 + 1.3) us.
  trace::replay::GraphFacts f;
  const int64_t ns = captured_gpu_ns(tiny_kernels(2000, 1600, "NVIDIA H100 80GB HBM3"), &f);
  EXPECT_TRUE(f.node_period);
  EXPECT_EQ(f.node_gap_ns, 1300);
  EXPECT_EQ(ns, 2000 * 1600);
  // Kernels shorter than the cost: one every 1.3 us, the last one's own 0.5 us after.
  const int64_t short_ns = captured_gpu_ns(tiny_kernels(100, 500, "NVIDIA H100"), &f);
  EXPECT_EQ(short_ns, 99 * 1300 + 500);
}

TEST(GraphModel, TheTracesOwnBackToBackGapsWinOverTheTable) {
  // A GPU-bound stretch: every kernel queued before the one ahead of it ended, each starting
  // 0.4 us after it: the gap a graph's nodes keep at most.
  trace::ImportedTrace t;
  for (uint32_t i = 0; i < 10; ++i) {
    t.records.api.push_back(call("cudaLaunchKernel", i * 1 * us, i * 1 * us + 800, i + 1));
    t.records.kernels.push_back(kernel(5 * us + i * 5400, 5 * us + i * 5400 + 5 * us, i + 1));
  }
  t.records.api.push_back(call("cudaStreamSynchronize", 10 * us, 60 * us, 0));
  step(&t.records, "ProfilerStep#1", 0, 61 * us);
  t.devices.push_back(device("NVIDIA H100", 9, 0));
  trace::replay::GraphFacts f;
  const int64_t ns = captured_gpu_ns(t, &f);
  EXPECT_FALSE(f.node_period);
  EXPECT_EQ(f.node_gap_ns, 400);
  EXPECT_NE(f.node_gap_from.find("9 gaps between kernels queued back to back"), std::string::npos)
      << f.node_gap_from;
  EXPECT_EQ(ns, 10 * 5000 + 9 * 400);
}

TEST(GraphModel, TheNoteNamesTheGpuRowAndTheUnknownGpuGetsTheLargestCost) {
  auto rep = trace::replay::replay_trace(tiny_kernels(4, 1000, "NVIDIA H100"),
                                         {trace::replay::parse_what_if("graph-steps")});
  const std::string& note = rep.what_ifs[0].note;
  EXPECT_NE(note.find("at least 1.30 us"), std::string::npos) << note;
  EXPECT_NE(note.find("the H100 row"), std::string::npos) << note;
  EXPECT_NE(note.find("Look Ma, No Bubbles"), std::string::npos) << note;
  EXPECT_NE(note.find("Constant Time Launch"), std::string::npos) << note;
  rep = trace::replay::replay_trace(tiny_kernels(4, 1000, ""),
                                    {trace::replay::parse_what_if("graph-steps")});
  EXPECT_NE(rep.what_ifs[0].note.find("at least 2.70 us"), std::string::npos)
      << rep.what_ifs[0].note;
  EXPECT_NE(rep.what_ifs[0].note.find("names no GPU"), std::string::npos) << rep.what_ifs[0].note;
}
