#include "trace/analyze/replay/graph.h"

#include <algorithm>

#include "trace/analyze/replay/builder.h"

namespace trace::replay {

const char* to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::Gap:
      return "cpu";
    case EdgeKind::Call:
      return "call";
    case EdgeKind::LaunchCall:
      return "launch call";
    case EdgeKind::SyncCall:
      return "sync call";
    case EdgeKind::QueueCall:
      return "launch call into a full queue";
    case EdgeKind::WaitGap:
      return "idle";
    case EdgeKind::Launch:
      return "launch";
    case EdgeKind::Enqueue:
      return "enqueue";
    case EdgeKind::Stream:
      return "stream";
    case EdgeKind::EventWait:
      return "event wait";
    case EdgeKind::GpuWait:
      return "gpu wait";
    case EdgeKind::SyncWait:
      return "sync wait";
    case EdgeKind::QueueWait:
      return "full-queue wait";
    case EdgeKind::ThreadWait:
      return "thread wait";
  }
  return "?";
}

std::string Resource::label() const {
  return gpu ? "GPU " + std::to_string(device) + " stream " + std::to_string(id)
             : "CPU thread " + std::to_string(id);
}

uint32_t Graph::thread_resource(uint32_t thread_id) const {
  for (uint32_t i = 0; i < resources.size(); ++i)
    if (!resources[i].gpu && resources[i].id == thread_id) return i;
  return kNone;
}

uint32_t Builder::thread_resource(uint32_t tid) {
  auto [it, fresh] = thread_res.try_emplace(tid, static_cast<uint32_t>(g.resources.size()));
  if (fresh) g.resources.push_back({false, tid, 0});
  return it->second;
}

uint32_t Builder::stream_resource(uint32_t device, uint32_t stream) {
  const uint64_t key = static_cast<uint64_t>(device) << 32 | stream;
  auto [it, fresh] = stream_res.try_emplace(key, static_cast<uint32_t>(g.resources.size()));
  if (fresh) {
    g.resources.push_back({true, stream, device});
    stream_by_id.try_emplace(stream, it->second);
  }
  return it->second;
}

uint32_t Builder::add_node(int64_t observed, int64_t duration, uint32_t resource, NodeType type,
                           uint32_t record) {
  g.observed.push_back(observed);
  g.duration.push_back(duration);
  g.resource.push_back(resource);
  g.type.push_back(type);
  g.record.push_back(record);
  return static_cast<uint32_t>(g.observed.size() - 1);
}

int64_t upper_median(std::vector<int64_t>* v) {
  auto mid = v->begin() + static_cast<std::ptrdiff_t>(v->size() / 2);
  std::nth_element(v->begin(), mid, v->end());
  return *mid;
}

namespace {

// The edges by destination (Graph::in_begin; stable: each node's chain or stream edge stays
// first); `edges` is emptied.
std::vector<Candidate> by_destination(Graph& g, std::vector<Candidate>* edges) {
  const size_t n = g.size();
  g.in_begin.assign(n + 1, 0);
  for (const Candidate& c : *edges) ++g.in_begin[c.to + 1];
  for (size_t v = 0; v < n; ++v) g.in_begin[v + 1] += g.in_begin[v];
  std::vector<Candidate> sorted(edges->size());
  std::vector<uint32_t> fill(g.in_begin.begin(), g.in_begin.end() - 1);
  for (const Candidate& c : *edges) sorted[fill[c.to]++] = c;
  edges->clear();
  edges->shrink_to_fit();
  return sorted;
}

constexpr size_t kKinds = static_cast<size_t>(EdgeKind::ThreadWait) + 1;

// The binding rule (graph.h): per node, the decided edge that ended last in the trace binds
// and keeps its recorded delay; the others get their kind's typical delay (the median over
// the edges of that kind that bound, Graph::typical), capped by their recorded one. Returns
// which edges bind.
std::vector<uint8_t> bind(Graph& g, const std::vector<Candidate>& sorted) {
  std::vector<int64_t> samples[kKinds], launch_calls;
  std::vector<uint8_t> binds(sorted.size(), 0);
  for (size_t v = 0; v < g.size(); ++v) {
    size_t best = SIZE_MAX;
    for (size_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
      if (!is_fixed(sorted[e].kind) && (best == SIZE_MAX || sorted[e].slack < sorted[best].slack))
        best = e;
    // A thread's wake-up after another's event is fixed (it only exists because it was seen),
    // but its typical value serves a replay with typical delays (simulate.h).
    for (size_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
      if (sorted[e].kind == EdgeKind::ThreadWait)
        samples[static_cast<size_t>(EdgeKind::ThreadWait)].push_back(
            std::max<int64_t>(0, sorted[e].slack));
    if (best == SIZE_MAX) continue;
    binds[best] = 1;
    samples[static_cast<size_t>(sorted[best].kind)].push_back(
        std::max<int64_t>(0, sorted[best].slack));
  }
  // A kind with no edge that bound: the smallest delay of its kind seen (the fastest the trace
  // shows it can be). Two exceptions: a stream gap that never bound was an idle stream, which
  // says nothing of how soon queued work follows queued work, so work queued behind work is
  // taken to follow at once (0); a blocking call's own price has no better guess than the
  // wake-up after the work it waited for.
  g.typical.assign(kKinds, INT64_MAX);
  std::vector<int64_t> smallest(kKinds, INT64_MAX);
  for (const Candidate& c : sorted) {
    int64_t& m = smallest[static_cast<size_t>(c.kind)];
    m = std::min(m, std::max<int64_t>(0, c.slack));
    if (c.kind == EdgeKind::LaunchCall) launch_calls.push_back(std::max<int64_t>(0, c.slack));
  }
  for (size_t k = 0; k < kKinds; ++k)
    g.typical[k] = samples[k].empty() ? smallest[k] : upper_median(&samples[k]);
  const size_t stream = static_cast<size_t>(EdgeKind::Stream);
  if (samples[stream].empty() && g.typical[stream] != INT64_MAX) g.typical[stream] = 0;
  const size_t sync_call = static_cast<size_t>(EdgeKind::SyncCall),
               sync_wait = static_cast<size_t>(EdgeKind::SyncWait);
  if (samples[sync_call].empty() && !samples[sync_wait].empty())
    g.typical[sync_call] = g.typical[sync_wait];
  // A launch into a full queue costs, once a slot is free, what the other launches cost.
  const size_t queue_call = static_cast<size_t>(EdgeKind::QueueCall);
  if (!launch_calls.empty()) g.typical[queue_call] = upper_median(&launch_calls);
  return binds;
}

// Graph::in with each edge's delay as bind() decided it.
void set_delays(Graph& g, const std::vector<Candidate>& sorted, const std::vector<uint8_t>& binds) {
  const size_t n = g.size();
  g.in.resize(sorted.size());
  g.first_is_chain.assign(n, 0);
  for (size_t v = 0; v < n; ++v) {
    for (size_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) {
      const Candidate& c = sorted[e];
      const int64_t observed = std::max<int64_t>(0, c.slack);
      int64_t delay = observed;
      if (!is_fixed(c.kind) && !binds[e])
        delay = std::min(observed, g.typical[static_cast<size_t>(c.kind)]);
      if (c.kind == EdgeKind::WaitGap) delay = 0;
      g.in[e] = {c.from, c.kind, delay};
    }
    if (g.in_begin[v] < g.in_begin[v + 1]) {
      const EdgeKind k = g.in[g.in_begin[v]].kind;
      g.first_is_chain[v] = is_chain(k) || k == EdgeKind::Stream;
    }
  }
}

// Kahn's algorithm over the in-edges (out-degrees counted from them), into Graph::topo.
void topological_order(Graph& g) {
  const size_t n = g.size();
  std::vector<uint32_t> out_begin(n + 1, 0), remaining(n, 0);
  for (const Edge& e : g.in) ++out_begin[e.from + 1];
  for (size_t v = 0; v < n; ++v) out_begin[v + 1] += out_begin[v];
  std::vector<uint32_t> out(g.in.size());
  {
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (size_t v = 0; v < n; ++v)
      for (size_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
        out[fill[g.in[e].from]++] = static_cast<uint32_t>(v);
  }
  for (size_t v = 0; v < n; ++v) remaining[v] = g.in_begin[v + 1] - g.in_begin[v];
  g.topo.clear();
  g.topo.reserve(n);
  std::vector<uint32_t> ready;
  for (size_t v = 0; v < n; ++v)
    if (!remaining[v]) ready.push_back(static_cast<uint32_t>(v));
  std::vector<uint8_t> done(n, 0);
  const auto drain = [&] {  // out-entries of dropped edges are kNone (below)
    while (!ready.empty()) {
      const uint32_t v = ready.back();
      ready.pop_back();
      done[v] = 1;
      g.topo.push_back(v);
      for (uint32_t k = out_begin[v]; k < out_begin[v + 1]; ++k)
        if (out[k] != kNone && --remaining[out[k]] == 0) ready.push_back(out[k]);
    }
  };
  drain();
  if (g.topo.size() == n) return;
  // Drop every cross edge into an unfinished node whose source is unfinished too.
  for (size_t v = 0; v < n; ++v) {
    if (done[v]) continue;
    for (size_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) {
      Edge& x = g.in[e];
      const bool chain = is_chain(x.kind) || x.kind == EdgeKind::Stream;
      if (chain || x.from == kNone || done[x.from]) continue;
      // Only this edge's count: its source still counts it in out[], but a dropped edge is
      // never followed again, since x.from is kNone now.
      for (uint32_t k = out_begin[x.from]; k < out_begin[x.from + 1]; ++k)
        if (out[k] == v) {
          out[k] = kNone;
          break;
        }
      x.from = kNone;
      ++g.stats.cycle_edges_dropped;
      if (--remaining[v] == 0) ready.push_back(static_cast<uint32_t>(v));
    }
  }
  drain();
}

}  // namespace

// CSR by destination, the binding rule for the delays, then Kahn's topological order; a cycle
// (only inconsistent timestamps make one: every rule points from earlier recorded work to
// later) is broken by dropping the cross edges into the nodes left, never the chain or stream
// edges, which alone cannot cycle.
void Builder::finish() {
  const std::vector<Candidate> sorted = by_destination(g, &edges);
  const std::vector<uint8_t> binds = bind(g, sorted);
  set_delays(g, sorted, binds);
  topological_order(g);
  g.stats.edges = g.in.size();
}

Graph build_graph(const RecordSet& records, const std::vector<Span>& spans,
                  const BuildOptions& options) {
  Builder b(records, options);
  // A driver call inside a runtime call is the runtime call's host time (records.h order_calls).
  const CallOrder order = order_calls(records.api);
  b.nested = order.nested_driver;
  b.api_by_corr = IdMap(records.api.size());
  for (uint32_t i = 0; i < records.api.size(); ++i)
    if (records.api[i].correlation_id) b.api_by_corr.insert(records.api[i].correlation_id, i);
  b.find_thread_waits();
  b.build_chains(spans);
  b.add_gpu_nodes();
  b.add_sync_waits();
  b.add_queue_waits();
  b.add_thread_waits();
  b.finish();
  b.g.stats.host_nodes = b.g.host_count;
  b.g.stats.gpu_nodes = b.g.size() - b.g.host_count;
  return std::move(b.g);
}

}  // namespace trace::replay
