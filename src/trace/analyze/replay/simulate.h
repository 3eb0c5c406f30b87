// Running the replay graph (graph.h): every node starts at the latest of its in-edges, in
// topological order, with a scenario's changes applied (transforms.h makes them). With no
// change every recorded duration and delay is used: the unchanged replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/replay/graph.h"

namespace trace::replay {

// Per-node changes of a scenario.
enum NodeFlag : uint8_t {
  kRemoved =
      1,        // host node: the CPU time leading to it goes, and any wait; GPU node: the work goes
  kScaled = 2,  // GPU node: its duration is scaled by kernel_scale; host node: the CPU time
                // leading to it (the chain edge) by cpu_scale
  kUnblocked = 4,  // host node ending a call that no longer waits for GPU work (pin-copies)
};

// A host range run ahead by worker processes, as DataLoader(num_workers) runs its loading: its
// instances on one thread in order, worker k % workers loading instance k. Instance k is asked
// for when instance k - workers * depth is taken (the first ones when the first is asked for),
// starts when its worker is free, and takes its recorded host time; the thread waits at its
// end until it is loaded. The host time inside the range is the scenario's to remove.
struct Prefetch {
  std::vector<uint32_t> open, close;  // the host nodes of each instance's ends
  std::vector<int64_t> load_ns;       // each instance's recorded host time
  uint32_t workers = 1, depth = 2;    // depth: DataLoader's prefetch_factor
};

struct Scenario {
  std::vector<uint8_t> flags;  // per node; empty: no flags
  double launch_scale = 1.0;   // every launch call's length
  double kernel_scale = 1.0;   // GPU nodes flagged kScaled (transforms.h flags kernels only)
  double cpu_scale = 1.0;      // host nodes flagged kScaled
  // Per node: a kernel's new launching host node (a graph launch's end, graph_capture.h), which
  // must come before it in the graph's order: its launch edge comes from there, after at most
  // the typical launch delay; else kNone. Empty: none.
  std::vector<uint32_t> launch_from;
  // Per node, a new length (ns) or -1: a GPU node's duration; a host node's chain edge (the
  // call or CPU time leading to it). Empty: none.
  std::vector<int64_t> node_ns;
  // Per node, a new delay (ns) or -1 for a GPU node's stream edge (after the work before it on
  // its stream): a graph's nodes follow one another so. Empty: none.
  std::vector<int64_t> stream_gap_ns;
  // Per node: a host node ending a device-wide sync that now waits for this stream (a resource)
  // only, else kNone; empty: none.
  std::vector<uint32_t> only_stream;
  // Every delay between resources (launch latency, stream gaps, waits, wake-ups) takes its
  // kind's typical value instead of the recorded one; durations and CPU time stay as recorded.
  // Replaying so asks how much of the trace the dependencies alone explain.
  bool typical_delays = false;
  std::vector<Prefetch> prefetch;
  uint8_t flag(uint32_t v) const { return flags.empty() ? 0 : flags[v]; }
};

struct Timeline {
  std::vector<int64_t> start, duration;  // per node, simulated
  std::vector<uint32_t>
      via;  // per node: the in-edge that set its start (index into Graph::in), kNone for a source
  bool removed(uint32_t v, const Scenario& s) const { return (s.flag(v) & kRemoved) != 0; }
};

// A removed GPU node that nothing else constrains starts here: far before anything, so that
// it holds back no one.
constexpr int64_t kNowhere = INT64_MIN / 4;

Timeline simulate(const Graph& graph, const Scenario& scenario = {});

// Where the time of a step went along its critical path: walking back from node `end` over
// the edges that set each start, until `from` (a simulated time). The work of a GPU node counts
// for its stream; a delay counts for the resource of the node it leads to (a thread's CPU
// time, a wait's wake-up, a stream's gaps and launch latency).
struct Share {
  uint32_t resource = kNone;
  int64_t ns = 0;
};
std::vector<Share> critical_path(const Graph& graph, const Timeline& timeline, uint32_t end,
                                 int64_t from);

}  // namespace trace::replay
