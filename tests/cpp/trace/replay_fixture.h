// Hand-built traces for the replay tests (analyze/replay/): records with known timings, and
// lookups of the graph's nodes by the record they stand for.
#pragma once

#include <gtest/gtest.h>

#include "synthetic_records.h"
#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/simulate.h"

namespace replaytest {

using trace::replay::Graph;
using trace::replay::kNone;
using trace::replay::NodeType;

inline trace::ApiRecord call(const char* name, uint64_t s, uint64_t e, uint32_t corr = 0,
                             uint32_t thread = 7) {
  return testdata::api(name, s, e, corr, false, thread);
}
inline trace::KernelRecord kernel(uint64_t s, uint64_t e, uint32_t corr, uint32_t stream = 7) {
  return testdata::kernel(s, e, corr, stream);
}
inline trace::MemcpyRecord d2h(uint64_t s, uint64_t e, uint32_t corr,
                               trace::MemoryKind dst = trace::MemoryKind::Pinned,
                               uint32_t stream = 7) {
  return {s, e, corr, 0, stream, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device, dst};
}
// A Kineto cuda_sync row.
inline trace::SyncRecord row(trace::SyncKind kind, uint64_t s, uint64_t e, uint32_t corr,
                             uint32_t stream, uint32_t wait_stream = trace::kNoStream,
                             uint32_t record = 0) {
  trace::SyncRecord y{s, e, corr, stream, kind};
  y.wait_stream = wait_stream, y.wait_record_correlation = record;
  return y;
}
// A ProfilerStep annotation and its step window.
inline void step(trace::RecordSet* r, const std::string& name, uint64_t s, uint64_t e,
                 uint32_t thread = 7) {
  r->annotations.push_back({s, e, thread, false, name});
  r->steps.push_back({s, e, name});
}

inline uint32_t start_of(const Graph& g, uint32_t api) { return g.call_node[api]; }
inline uint32_t end_of(const Graph& g, uint32_t api) {
  return g.call_node[api] == kNone ? kNone : g.call_node[api] + 1;
}
inline uint32_t gpu(const Graph& g, NodeType type, uint32_t index) {
  for (uint32_t v = g.host_count; v < g.size(); ++v)
    if (g.type[v] == type && g.record[v] == index) return v;
  ADD_FAILURE() << "no GPU node for record " << index;
  return 0;
}
inline uint32_t kernel_node(const Graph& g, uint32_t index) {
  return gpu(g, NodeType::Kernel, index);
}
inline int64_t end_at(const trace::replay::Timeline& t, uint32_t v) {
  return t.start[v] + t.duration[v];
}

// Whether v has an in-edge of `kind` from `from` (any source when from == kNone).
inline bool has_edge(const Graph& g, uint32_t v, trace::replay::EdgeKind kind,
                     uint32_t from = kNone) {
  for (uint32_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
    if (g.in[e].kind == kind && (from == kNone || g.in[e].from == from)) return true;
  return false;
}

// Every node where it was recorded: what an unchanged replay of a consistent trace gives.
inline void expect_unchanged(const Graph& g) {
  const auto t = trace::replay::simulate(g);
  for (uint32_t v = 0; v < g.size(); ++v) EXPECT_EQ(t.start[v], g.observed[v]) << "node " << v;
}

// A scenario that scales the duration of one node (GPU work) or the CPU time before it (host).
inline trace::replay::Scenario scale_node(const Graph& g, uint32_t v, double f) {
  trace::replay::Scenario s;
  s.flags.assign(g.size(), 0);
  s.flags[v] = trace::replay::kScaled;
  s.kernel_scale = s.cpu_scale = f;
  return s;
}

}  // namespace replaytest
