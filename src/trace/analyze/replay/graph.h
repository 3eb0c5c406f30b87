// The replay graph of one trace: every point in time that the replay moves, and what each
// waits for. Built from plain records (model/records.h), so it replays any importer's trace.
//
// Nodes are host points (a GPU-facing API call's start or end on its thread, a thread's first
// and last event, a step boundary, the ends of a region a what-if removes, the ends of an idle
// gap that waits for another thread) and GPU operations (kernel, copy, set: a start and a
// duration). A node starts at the latest of its in-edges: from.start + from.duration + delay.
// The rules that make the edges, each in one place with the observation that justifies it:
//   host_chain.cpp  CPU order on a thread, its observed gaps kept as CPU work; idle gaps that
//                   end right after another thread's event wait for that thread
//   gpu_edges.cpp   launch -> GPU work by correlation (graph launches: every kernel of the
//                   graph); stream order; cudaStreamWaitEvent from Kineto's cuda_sync rows;
//                   unexplained GPU waits on another stream's work
//   sync_waits.cpp  what each blocking call (device, stream, event sync, blocking copy) waits for
// Delays: an edge that bound its node in the trace (the dependency that ended last) keeps the
// observed delay, so an unchanged replay starts every node where it started; any other edge
// gets the trace's typical delay of its kind, capped by the observed one. Why: when a what-if
// frees a node from the edge that bound it, the next one binds with a realistic delay (a
// kernel queued behind another starts a couple of microseconds after it, not when its launch
// happened to return in the trace).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/launch_queue.h"
#include "trace/model/records.h"

namespace trace::replay {

constexpr uint32_t kNone = 0xFFFFFFFFu;

enum class EdgeKind : uint8_t {
  Gap,         // host -> host, same thread: CPU work between two points (observed length)
  Call,        // host -> host, same thread: inside a call that does not wait (copy, memset, ...)
  LaunchCall,  // host -> host, same thread: inside a launch call
  SyncCall,    // host -> host, same thread: a blocking call's own price
  QueueCall,   // host -> host, same thread: a launch call's own price where it waited for a
               // slot in its stream's full launch queue (QueueWait)
  WaitGap,     // host -> host, same thread: an idle gap that waits for another thread (weight 0)
  Launch,      // host -> GPU: a kernel starts after its launch call returns
  Enqueue,     // host -> GPU: a copy or memset starts after its call began (queued inside it)
  Stream,      // GPU -> GPU: stream order
  EventWait,   // GPU -> GPU: cudaStreamWaitEvent (Kineto's Stream Wait Event row)
  GpuWait,     // GPU -> GPU: an unexplained wait that ended right after another stream's work
  SyncWait,    // GPU -> host: a blocking call returns after the work it waits for
  QueueWait,   // GPU -> host: a launch into a full queue returns after the work that freed a slot
  ThreadWait,  // host -> host: an idle gap ends after another thread's event
};
const char* to_string(EdgeKind k);
inline bool is_chain(EdgeKind k) { return k <= EdgeKind::WaitGap; }
// A delay between resources rather than a duration of work.
inline bool is_delay(EdgeKind k) { return k >= EdgeKind::Launch; }
// Delays taken as recorded, never by the binding rule: CPU work, and the waits that only exist
// because they were seen (an idle gap's end after another thread's event).
inline bool is_fixed(EdgeKind k) {
  return (is_chain(k) && k != EdgeKind::SyncCall && k != EdgeKind::QueueCall) ||
         k == EdgeKind::ThreadWait;
}

struct Edge {
  uint32_t from = kNone;
  EdgeKind kind = EdgeKind::Gap;
  int64_t delay = 0;  // ns, >= 0
};

enum class NodeType : uint8_t { Host, Kernel, Memcpy, Memset };

struct Resource {
  bool gpu = false;
  uint32_t id = 0;            // thread id, or stream id
  uint32_t device = 0;        // GPU only
  std::string label() const;  // "CPU thread 4515", "GPU 0 stream 7"
};

// A stretch of one thread a caller needs the ends of as nodes (a step it measures, a region a
// what-if removes). Its start sorts before a call that starts at the same time, its end after one
// that ends then; an end inside a call moves out to the call's start or end.
struct Span {
  uint32_t thread = 0;  // thread id
  uint64_t start_ns = 0, end_ns = 0;
};

// A span's two nodes on its thread; kNone for a span not in the graph.
struct SpanNodes {
  uint32_t open = kNone, close = kNone;
  bool in_graph() const { return open != kNone && close != kNone; }
};

struct BuildOptions {
  // An idle gap on a thread (no event of it starts or ends, outside any call) at least this
  // long that ends within thread_wake_ns after another thread's event ended waits for that
  // thread (host_chain.cpp).
  uint64_t thread_wait_min_gap_ns = 50000;
  uint64_t thread_wake_ns = 100000;
  // GPU work that started more than gpu_wait_min_ns after its launch returned and its stream
  // was free, within a wake-up after another stream's work ended, waited for that work; the
  // wake-up is at least gpu_wake_ns, longer where the trace's launches or named event waits
  // on that device are slower, at most gpu_wake_max_ns (gpu_edges.cpp).
  uint64_t gpu_wait_min_ns = 10000;
  uint64_t gpu_wake_ns = 10000, gpu_wake_max_ns = 50000;
  // A launch call made while its stream held this many pieces of work waits for the oldest to
  // finish: launch_queue.h's full queue (CUDA's per-stream limit less the entries the records do
  // not show).
  uint32_t full_queue = QueueOptions{}.max_queue - QueueOptions{}.full_within;
};

// Counts per rule, for the page's account of the graph.
struct GraphStats {
  uint64_t host_nodes = 0, gpu_nodes = 0, edges = 0;
  uint64_t launches = 0, graph_launch_kernels = 0, unlaunched_gpu = 0;
  uint64_t blocking_calls = 0, sync_targets_from_rows = 0, sync_targets_guessed = 0,
           syncs_waiting_on_nothing = 0;
  uint64_t event_waits = 0, gpu_waits = 0, thread_waits = 0;
  uint64_t queue_waits = 0;          // launch calls that waited for a slot in a full launch queue
  uint64_t unnamed_event_waits = 0;  // cudaStreamWaitEvent calls with no Stream Wait Event row
  uint64_t overlapping_calls = 0;    // calls on one thread that overlap (clamped to follow)
  uint64_t cycle_edges_dropped = 0;  // dependencies dropped to break a cycle (inconsistent times)
};

struct Graph {
  // Nodes (structure of arrays). Host nodes of one thread are numbered consecutively in
  // chain order; GPU nodes follow all host nodes.
  std::vector<int64_t> observed;   // start as recorded (ns)
  std::vector<int64_t> duration;   // GPU work's recorded duration; 0 for host points
  std::vector<uint32_t> resource;  // index into resources
  std::vector<NodeType> type;
  std::vector<uint32_t> record;  // GPU node: index into kernels / memcpys / memsets; host: kNone
  uint32_t host_count = 0;

  // In-edges, CSR: in[in_begin[v] .. in_begin[v + 1]); a host node's chain edge and a GPU
  // node's stream edge come first (has_chain / has_stream).
  std::vector<uint32_t> in_begin;
  std::vector<Edge> in;
  std::vector<uint8_t> first_is_chain;  // 1 when in[in_begin[v]] is the chain / stream edge
  std::vector<uint32_t> topo;           // a topological order of all nodes

  std::vector<Resource> resources;
  // Per thread resource: its host nodes are [thread_first[r], thread_first[r] + thread_count[r]).
  std::vector<uint32_t> thread_first, thread_count;

  // Per API record: the node of its start (its end is the next node), or kNone when the call is
  // not a node (nested driver call, or a call that touches no GPU work); and the GPU nodes it
  // queued, CSR: call_gpu[call_gpu_begin[a] .. call_gpu_begin[a + 1]).
  std::vector<uint32_t> call_node;
  std::vector<uint32_t> call_gpu_begin, call_gpu;
  std::vector<uint8_t> call_blocking;  // 1 when the call is a blocking call with a node

  std::vector<uint32_t> node_call;    // host node -> the API record whose start it is, else kNone
  std::vector<SpanNodes> span_nodes;  // build_graph's spans, one each, in the order given
  // The typical delay of each edge kind (median over the edges of that kind that bound their
  // node; with none, the smallest of its kind; INT64_MAX when the kind is absent): what an edge
  // gets when a what-if makes it bind.
  std::vector<int64_t> typical;
  GraphStats stats;

  size_t size() const { return observed.size(); }
  uint32_t thread_resource(uint32_t thread_id) const;  // kNone when the thread has no node
  // The node's end as recorded.
  int64_t observed_end(uint32_t v) const { return observed[v] + duration[v]; }
};

// The middle of `v` (the upper of the two middle values when their count is even), as the
// replay takes every typical figure from the trace; reorders v, which must not be empty.
int64_t upper_median(std::vector<int64_t>* v);

// Builds the graph; the ends of `spans` become host nodes (Graph::span_nodes), clamped out of any
// call they fall inside. Throws nothing on odd input: edges that would close a cycle are dropped
// and counted.
Graph build_graph(const RecordSet& records, const std::vector<Span>& spans = {},
                  const BuildOptions& options = {});

}  // namespace trace::replay
