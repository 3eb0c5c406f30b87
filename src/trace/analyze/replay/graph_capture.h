// What-if "captured in a CUDA graph": a stretch of one host thread (each step's launches,
// graph-steps; or each instance of a named range such as torch.compile's `Torch-Compiled Region`,
// graph=REGION) replayed as a CUDA graph replay would run it.
//
// The mechanism. A graph replay runs none of the host work that built the captured work: no
// Python, no dispatcher, no autograd, no launch calls; the host makes one graph launch instead.
// The GPU then runs the captured work in its stream order, with no launch to wait for. So, per
// capture, each part counted once:
//   host  the time between the capture's two ends becomes one graph launch (as given, else the
//         trace's own median cudaGraphLaunch, else the published cost, gpu_constants.h); what
//         lies outside the capture (the loop around it, the input copies made before it, a sync
//         after it) stays as recorded;
//   GPU   each captured kernel, copy or memset keeps its duration, waits for the graph launch's
//         end instead of its own call, and follows the captured node before it on its stream
//         after the graph's node-to-node gap, whatever it waited for in the trace. The gap is
//         measured where it can be: as given, else the trace's own gaps between the kernels of
//         one graph launch, else between kernels queued back to back on one stream (a graph's
//         are no longer). Else a published per-kernel cost (gpu_constants.h) is the least a node
//         takes from its start to the next one's: a kernel's recorded time already holds part of
//         its boundary's cost, so the figure is not added on top of it.
// A graph cannot hold a host sync: a blocking call splits a capture in two and stays, with its
// wait. GPU work another thread queued meanwhile is not captured (each thread its own graphs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/replay/gpu_constants.h"
#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/simulate.h"
#include "trace/model/records.h"

namespace trace::replay {

// One capture: host nodes [open, close] of one thread, open < close.
struct Capture {
  uint32_t open = kNone, close = kNone;
};

// graph-steps: in each step (start_ns, end_ns), on each thread, the stretches between blocking
// calls, each from the start of its first call that queues GPU work without blocking (launch,
// asynchronous copy or memset) to the end of its last one.
std::vector<Capture> step_captures(const Graph& graph,
                                   const std::vector<std::pair<uint64_t, uint64_t>>& steps);

// graph=REGION: each region (its two ends as nodes, graph.h SpanNodes) split at the blocking
// calls inside it. `split` counts the regions that held one.
std::vector<Capture> region_captures(const Graph& graph, const std::vector<SpanNodes>& regions,
                                     uint64_t* split);

// The outermost host ranges (ops, annotations, our phases) named `name` (steps_from_ranges.h
// range_name_matches), and Python frames of that name, as spans for build_graph.
std::vector<Span> named_regions(const RecordSet& records, const std::string& name);

struct GraphOptions {
  int64_t launch_ns = -1;    // a graph launch's host cost; -1: the trace's, or the published one
  int64_t node_gap_ns = -1;  // between two nodes on the GPU; -1: the trace's, or the published one
  GpuConstants gpu;          // the published figures for the trace's GPU
};

// What capture_graphs assumed, each figure with where it came from, for the output to state.
struct GraphFacts {
  uint64_t graphs = 0, nodes = 0;  // captures that held GPU work, and that work
  int64_t launch_ns = 0;           // one graph launch (before its per-node part, when one)
  int64_t launch_per_node_ns = 0;
  std::string launch_from;
  int64_t node_gap_ns = 0;
  // node_gap_ns is a published per-kernel cost: the least time from a node's start to the next
  // one's (the gap after a node: what of it the node's own duration leaves), not a gap.
  bool node_period = false;
  std::string node_gap_from;
};

// The scenario; captures with no GPU work are left as they are.
Scenario capture_graphs(const Graph& graph, const RecordSet& records,
                        const std::vector<Capture>& captures, const GraphOptions& options,
                        GraphFacts* facts);

}  // namespace trace::replay
