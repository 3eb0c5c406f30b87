// Inside build_graph (graph.h): the state its rules share while the graph is assembled. The
// rules live in host_chain.cpp, gpu_edges.cpp and sync_waits.cpp; graph.cpp runs them in order
// and turns the edges into the CSR and a topological order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/model/id_map.h"

namespace trace::replay {

// An in-edge before its delay is decided: `slack` is what was recorded (the node's start minus
// from's end; may be < 0). Fixed kinds (is_fixed) take it as their delay; the others are
// decided together per node by the binding rule (graph.h, graph.cpp bind_delays).
struct Candidate {
  uint32_t to;
  uint32_t from;
  EdgeKind kind;
  int64_t slack;
};

// An idle gap on a thread that waits for another thread (host_chain.cpp).
struct ThreadWaitGap {
  uint32_t thread;     // resource of the waiting thread
  uint64_t from, to;   // the gap
  uint32_t other;      // resource of the thread it waits for
  uint64_t other_end;  // when that thread's event ended
  uint32_t from_node = kNone, to_node = kNone;
};

struct Builder {
  Builder(const RecordSet& r, const BuildOptions& o) : r(r), opt(o) {}

  const RecordSet& r;
  const BuildOptions& opt;
  Graph g;

  // index_calls (graph.cpp)
  std::vector<bool> nested;           // driver call inside a runtime call on its thread
  std::vector<uint8_t> call_is_node;  // a GPU-facing top-level call: its start and end are nodes
  std::vector<uint32_t> top_call;     // per API record: itself, or the top-level call holding it
  std::vector<uint64_t> call_start,
      call_end;  // per API record that is a node: clamped (host_chain.cpp)
  std::unordered_map<uint32_t, uint32_t> thread_res;  // thread id -> resource
  uint32_t thread_resource(uint32_t tid);
  uint32_t stream_resource(uint32_t device, uint32_t stream);
  std::unordered_map<uint64_t, uint32_t> stream_res;    // device << 32 | stream -> resource
  std::unordered_map<uint32_t, uint32_t> stream_by_id;  // stream id -> first resource with it
  IdMap api_by_corr;  // correlation id -> the first API record with it (graph.cpp)

  // host_chain.cpp
  std::vector<ThreadWaitGap> waits;
  void find_thread_waits();
  void build_chains(const std::vector<Span>& spans);
  void add_thread_waits();

  // gpu_edges.cpp
  struct GpuOp {
    uint32_t node;
    uint32_t call = kNone;  // API record that queued it
    uint64_t enqueued;      // its call's start, else its own start
  };
  std::vector<GpuOp> ops;  // by node - host_count
  std::vector<std::vector<uint32_t>>
      stream_ops;  // per resource (streams only): nodes in stream order
  // Per stream: (enqueued, stream position) by enqueue time, with the running max position, to
  // answer "the last work on this stream queued before t".
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> by_enqueue;
  std::vector<uint32_t> last_stream_of_call;  // per API record: stream resource of the last
                                              // work its thread queued up to that call, kNone
  void add_gpu_nodes();
  // The last GPU node on stream resource s queued before t that ended by `by` (recorded), kNone.
  uint32_t last_queued(uint32_t s, uint64_t t, uint64_t by) const;

  // sync_waits.cpp
  void add_sync_waits();

  // queue_waits.cpp
  void add_queue_waits();

  // Every edge, in the order added (a node's chain or stream edge first).
  std::vector<Candidate> edges;
  void edge(uint32_t from, uint32_t to, EdgeKind kind, int64_t slack) {
    edges.push_back({to, from, kind, slack});
  }
  void finish();  // graph.cpp: CSR, delays by the binding rule, topological order

  uint32_t add_node(int64_t observed, int64_t duration, uint32_t resource, NodeType type,
                    uint32_t record);
};

}  // namespace trace::replay
