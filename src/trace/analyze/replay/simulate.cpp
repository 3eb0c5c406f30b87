#include "trace/analyze/replay/simulate.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trace::replay {

namespace {

int64_t scaled(int64_t ns, double f) {
  return f == 1.0 ? ns : static_cast<int64_t>(std::llround(static_cast<double>(ns) * f));
}

// Where each prefetched instance's end is (simulate's gate) and when each is loaded.
class Loaders {
 public:
  Loaders(const std::vector<Prefetch>& p, size_t nodes) : p_(p), ready_(p.size()) {
    if (p.empty()) return;
    at_.assign(nodes, {kNone, 0});
    for (uint32_t i = 0; i < p.size(); ++i) {
      ready_[i].assign(p[i].close.size(), 0);
      for (uint32_t k = 0; k < p[i].close.size(); ++k) at_[p[i].close[k]] = {i, k};
    }
  }
  // The earliest start of node v: when its instance is loaded (INT64_MIN when v is no end).
  int64_t gate(uint32_t v, const Timeline& t) {
    if (at_.empty() || at_[v].first == kNone) return INT64_MIN;
    const auto [i, k] = at_[v];
    const Prefetch& p = p_[i];
    const uint32_t ahead = p.workers * p.depth;
    const int64_t asked = k < ahead ? t.start[p.open[0]] : t.start[p.close[k - ahead]];
    const int64_t free = k < p.workers ? INT64_MIN : ready_[i][k - p.workers];
    return ready_[i][k] = std::max(asked, free) + p.load_ns[k];
  }

 private:
  const std::vector<Prefetch>& p_;
  std::vector<std::vector<int64_t>> ready_;
  std::vector<std::pair<uint32_t, uint32_t>> at_;  // per node: (loader, instance) of an end
};

}  // namespace

Timeline simulate(const Graph& g, const Scenario& s) {
  Timeline t;
  const size_t n = g.size();
  t.start.assign(n, 0);
  t.duration.assign(n, 0);
  t.via.assign(n, kNone);
  const auto typical = [&](EdgeKind k) {
    return g.typical.size() > static_cast<size_t>(k) ? g.typical[static_cast<size_t>(k)]
                                                     : INT64_MAX;
  };
  Loaders loaders(s.prefetch, n);
  for (uint32_t v : g.topo) {
    const uint8_t f = s.flag(v);
    const bool host = v < g.host_count, removed = (f & kRemoved) != 0;
    const int64_t set = s.node_ns.empty() ? -1 : s.node_ns[v];
    int64_t d = g.duration[v];
    if (removed)
      d = 0;
    else if (!host && set >= 0)
      d = set;
    else if (f & kScaled)
      d = scaled(d, s.kernel_scale);
    t.duration[v] = d;
    int64_t best = INT64_MIN;
    uint32_t via = kNone;
    const uint32_t b = g.in_begin[v], e = g.in_begin[v + 1];
    for (uint32_t k = b; k < e; ++k) {
      const Edge& x = g.in[k];
      if (x.from == kNone) continue;  // dropped to break a cycle
      if (x.kind == EdgeKind::SyncWait &&
          ((f & kUnblocked) || (!s.only_stream.empty() && s.only_stream[v] != kNone &&
                                g.resource[x.from] != s.only_stream[v])))
        continue;
      uint32_t from = x.from;
      int64_t w = x.delay;
      if (removed) {
        // A removed host point follows its thread at no cost; a removed GPU node keeps its
        // place in its stream and any wait, at no delay, but no longer waits for its call.
        if (host ? !(k == b && g.first_is_chain[v])
                 : (x.kind == EdgeKind::Launch || x.kind == EdgeKind::Enqueue))
          continue;
        w = 0;
      } else if (x.kind == EdgeKind::LaunchCall || x.kind == EdgeKind::QueueCall) {
        w = scaled(w, s.launch_scale);
      }
      if (host && set >= 0 && k == b && g.first_is_chain[v] && !removed)
        w = set;
      else if (host && (f & kScaled) && k == b && g.first_is_chain[v])
        w = scaled(w, s.cpu_scale);
      else if (x.kind == EdgeKind::Launch && !s.launch_from.empty() && s.launch_from[v] != kNone) {
        from = s.launch_from[v];
        w = std::min(w, typical(x.kind));
      } else if (!host && k == b && g.first_is_chain[v] && !s.stream_gap_ns.empty() &&
                 s.stream_gap_ns[v] >= 0) {
        w = s.stream_gap_ns[v];
      }
      if (s.typical_delays && is_delay(x.kind) && !removed) {
        const int64_t typ = g.typical[static_cast<size_t>(x.kind)];
        if (typ != INT64_MAX) w = typ;
      }
      const int64_t at = t.start[from] + t.duration[from] + w;
      if (at > best) best = at, via = k;
    }
    if (via == kNone) best = removed && !host ? kNowhere : g.observed[v];
    best = std::max(best, loaders.gate(v, t));  // waits on its chain: its thread's time
    t.start[v] = best;
    t.via[v] = via;
  }
  return t;
}

std::vector<Share> critical_path(const Graph& g, const Timeline& t, uint32_t end, int64_t from) {
  std::vector<int64_t> by(g.resources.size(), 0);
  uint32_t v = end;
  while (v != kNone && t.start[v] > from) {
    const uint32_t k = t.via[v];
    if (k == kNone) break;
    const Edge& x = g.in[k];
    const uint32_t u = x.from;
    // [start(u), start(u) + duration(u)] is u's work, then the delay up to start(v).
    const int64_t work_end = t.start[u] + t.duration[u];
    by[g.resource[u]] += std::max<int64_t>(0, work_end - std::max(t.start[u], from));
    by[g.resource[v]] += std::max<int64_t>(0, t.start[v] - std::max(work_end, from));
    v = u;
  }
  std::vector<Share> out;
  for (uint32_t r = 0; r < by.size(); ++r)
    if (by[r] > 0) out.push_back({r, by[r]});
  std::sort(out.begin(), out.end(), [](const Share& a, const Share& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.resource < b.resource;
  });
  return out;
}

}  // namespace trace::replay
