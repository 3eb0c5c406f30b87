// The published figures the replay falls back on where a trace measures nothing of its own, per
// GPU and host link, each row with its source: the data of the what-ifs' constants in one place
// (pin-copies: transforms.h; graph captures: graph_capture.h). A figure nobody published is left
// out, never guessed: a row without it says 0, and the lookup moves to the next source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/imported_trace.h"

namespace trace::replay {

enum class HostLink : uint8_t { Pcie3x16, Pcie4x16, Pcie5x16, NvlinkC2c };

struct LinkRow {
  HostLink link;
  const char* name;
  double gbps;  // per direction: half the two-way figure the datasheet gives
  const char* source;
};

// A datasheet's two-way figure halved: each direction alone (a copy goes one way). A peak: a
// copy never beats it, so a what-if that uses it predicts the most the link allows.
inline constexpr LinkRow kLinks[] = {
    {HostLink::Pcie3x16, "PCIe 3.0 x16", 16.0,
     "NVIDIA Tesla V100 datasheet: PCIe 32 GB/s, both ways together"},
    {HostLink::Pcie4x16, "PCIe 4.0 x16", 32.0,
     "NVIDIA A100 Tensor Core GPU datasheet: PCIe Gen4 64 GB/s, both ways together"},
    {HostLink::Pcie5x16, "PCIe 5.0 x16", 64.0,
     "NVIDIA H100 Tensor Core GPU datasheet: PCIe Gen5 128 GB/s, both ways together"},
    {HostLink::NvlinkC2c, "NVLink-C2C", 450.0,
     "NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink-C2C 900 GB/s, both ways together"},
};

struct GpuRow {
  const char* gpu;
  // Words of the device name that pick the row ('|' between), matched whole: "A100" picks
  // "NVIDIA A100-SXM4-80GB"; PG509 is the A100 SXM board's name in some traces.
  const char* names;
  // What picks the row when no name does, for an NVIDIA GPU (of that compute capability's rows,
  // the one with the slowest host link).
  int32_t compute_major, compute_minor;
  HostLink link;
  const char* link_source;
  // Back-to-back kernels on one stream, start to start, an empty kernel each; 0: none published.
  int64_t stream_kernel_ns;
  // The same inside a CUDA graph: the kernel boundary's cost, during which the GPU does no work;
  // 0: none published.
  int64_t graph_kernel_ns;
  const char* kernel_source;  // where the two above come from ("" when both are 0)
};

// Rows are matched in order: GH200 before H200, whose word it does not contain but whose compute
// capability it shares.
inline constexpr GpuRow kGpus[] = {
    {"GH200", "GH200", 9, 0, HostLink::NvlinkC2c,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (CPU to GPU over NVLink-C2C)", 0, 0, ""},
    {"H100", "H100", 9, 0, HostLink::Pcie5x16, "NVIDIA H100 Tensor Core GPU datasheet (PCIe Gen5)",
     2100, 1300,
     "Hazy Research, \"Look Ma, No Bubbles! Designing a Low-Latency Megakernel for Llama-1B\" "
     "(2025-05-27): about 2.1 us per kernel launched on a stream and 1.3 us per kernel in a CUDA "
     "graph on an H100"},
    {"H200", "H200", 9, 0, HostLink::Pcie5x16, "NVIDIA H200 Tensor Core GPU datasheet (PCIe Gen5)",
     0, 0, ""},
    {"A100", "A100|PG509", 8, 0, HostLink::Pcie4x16,
     "NVIDIA A100 Tensor Core GPU datasheet (PCIe Gen4)", 2700, 0,
     "reframe-hpc/reframe, cscs-checks/microbenchmarks/gpu/kernel_latency (reference values): "
     "2.7 us per empty kernel queued back to back on an A100"},
    {"V100", "V100", 7, 0, HostLink::Pcie3x16, "NVIDIA Tesla V100 datasheet (PCIe 32 GB/s)", 1830,
     0,
     "reframe-hpc/reframe, cscs-checks/microbenchmarks/gpu/kernel_latency (reference values): "
     "1.83 us per empty kernel queued back to back on a V100"},
    {"T4", "T4", 7, 5, HostLink::Pcie3x16, "NVIDIA T4 product brief: a PCI Express Gen3 x16 card",
     0, 0, ""},
};

// A CUDA graph's launch on the host, whatever the GPU: a straight-line graph's repeat launch.
struct GraphLaunchRow {
  int64_t base_ns, per_node_ns;
  const char* source;
};
inline constexpr GraphLaunchRow kGraphLaunch = {
    2500, 1,
    "NVIDIA Technical Blog, \"Constant Time Launch for Straight-Line CUDA Graphs and Other "
    "Performance Enhancements\" (2024-09-11), CUDA 12.6: about 2.5 us + 1 ns per node"};

// What the replay takes for the trace's GPU: its row, or the most conservative figures when no
// row fits (said so in `why`).
struct GpuConstants {
  const GpuRow* row = nullptr;  // nullptr: no row fits
  const LinkRow* link = nullptr;
  std::string why;  // "NVIDIA A100-SXM4-80GB: the A100 row", "no GPU listed: ..."
};

// The row for the GPU of id `device` among those the trace lists (the first one listed when
// none has that id): by a word of its name, else by its compute capability, else none (then the
// most conservative figures).
GpuConstants gpu_constants(const std::vector<DeviceProperties>& devices, uint32_t device);

// The figures for one device as given.
GpuConstants gpu_constants(const DeviceProperties& device);

// The largest per-kernel figure published for any GPU: the cost an unknown GPU is given (a graph
// what-if then saves the least it could).
int64_t conservative_kernel_ns(const char** source);

}  // namespace trace::replay
