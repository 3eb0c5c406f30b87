// What-if transformations: each turns the replay graph into a scenario (simulate.h) without
// touching the graph, so one graph serves every what-if of a run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/replay/gpu_constants.h"
#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/simulate.h"

namespace trace::replay {

// Removes one site: its blocking calls and their GPU work; for a region, all of its host time
// too (between its nodes), and every call in it with its GPU work.
void remove_site(const Graph& graph, const PlacedSite& site, Scenario* scenario);

// Kernels whose name contains `pattern` ("" = all) take `factor` times as long. Throws
// std::invalid_argument when a pattern is given but the records hold no kernel names.
Scenario scale_kernels(const Graph& graph, const RecordSet& records, double factor,
                       const std::string& pattern);

// Every launch call takes `factor` times as long.
Scenario scale_launches(double factor);

// Capturing a stretch in a CUDA graph: graph_capture.h.

// What pin_copies assumed, each figure with where it came from, for the output to state.
struct PinCopiesFacts {
  uint64_t copies = 0, bytes = 0;  // the pageable copies made asynchronous
  double htod_gbps = 0, dtoh_gbps = 0;
  std::string htod_from, dtoh_from;  // "the trace's N pinned copies", or the published link's
  std::string link_from;  // when a direction took the published link: which GPU, link and source
  int64_t call_ns = 0;    // a copy call's host time once it no longer blocks
  std::string call_from;
};

// Pinned host memory (`pin_memory=True`, `non_blocking=True`): every copy between the device and
// pageable host memory becomes an asynchronous DMA at the pinned bandwidth of its direction, and
// its call stops holding the host: it costs what an asynchronous copy call costs, and no longer
// waits for the copy or the work queued before it; the next sync on its stream then waits for it
// instead (the replay's sync waits follow stream order). Bandwidth per direction: `gbps` when
// given, else the trace's own pinned copies of at least kPinnedSampleBytes (bytes over time),
// else the published peak of the GPU's host link (gpu_constants.h); a copy never gets slower
// than recorded.
Scenario pin_copies(const Graph& graph, const RecordSet& records, double gbps,
                    const GpuConstants& gpu, PinCopiesFacts* facts);

constexpr uint64_t kPinnedSampleBytes = 1u << 20;
// An asynchronous copy call's host time when the trace has none to measure: the H200 machine's
// pinned 4-byte cudaMemcpyAsync with its stream sync took 7.2 us, the call alone less.
constexpr int64_t kDefaultAsyncCopyCallNs = 5000;

// Each device-wide sync (cudaDeviceSynchronize, cuCtxSynchronize) waits only for the stream its
// thread last queued work on, as a stream sync there would: what a device sync costs beyond
// that is the other streams' work. A thread that queued nothing before it keeps its wait.
Scenario stream_syncs(const Graph& graph, const RecordSet& records, uint64_t* changed);

}  // namespace trace::replay
