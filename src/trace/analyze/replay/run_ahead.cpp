#include "trace/analyze/replay/run_ahead.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace trace::replay {

namespace {

// Whether a point inside the range starts a call that queues GPU work or blocks on it.
bool touches_gpu(const Graph& g, const SpanNodes& n) {
  for (uint32_t v = n.open + 1; v < n.close; ++v) {
    const uint32_t a = g.node_call[v];
    if (a != kNone && (g.call_blocking[a] || g.call_gpu_begin[a] < g.call_gpu_begin[a + 1]))
      return true;
  }
  return false;
}

}  // namespace

Scenario run_ahead(const Graph& g, const std::vector<SpanNodes>& ranges, uint32_t workers,
                   RunAheadFacts* facts) {
  if (workers == 0) throw std::invalid_argument("workers=N: N must be 1 or more");
  Scenario s;
  s.flags.assign(g.size(), 0);
  s.cpu_scale = 0;
  std::map<uint32_t, std::vector<SpanNodes>> by_thread;  // thread resource -> its instances
  for (const SpanNodes& n : ranges)
    if (n.in_graph() && n.close > n.open) by_thread[g.resource[n.open]].push_back(n);
  for (auto& [thread, spans] : by_thread) {
    std::sort(spans.begin(), spans.end(),
              [](const SpanNodes& a, const SpanNodes& b) { return a.open < b.open; });
    Prefetch p;
    p.workers = workers, p.depth = kPrefetchPerWorker;
    for (const SpanNodes& n : spans) {
      // An instance a worker cannot take, or one that does not follow the one before (outermost
      // ranges do; clamped ends may not), ends the stretch the workers run ahead in.
      if (touches_gpu(g, n) || (!p.close.empty() && n.open < p.close.back())) break;
      p.open.push_back(n.open), p.close.push_back(n.close);
      p.load_ns.push_back(g.observed[n.close] - g.observed[n.open]);
      for (uint32_t v = n.open + 1; v <= n.close; ++v) s.flags[v] |= kScaled;
    }
    facts->ranges += p.open.size();
    facts->kept += spans.size() - p.open.size();
    if (p.open.empty()) continue;
    ++facts->threads;
    s.prefetch.push_back(std::move(p));
  }
  return s;
}

}  // namespace trace::replay
