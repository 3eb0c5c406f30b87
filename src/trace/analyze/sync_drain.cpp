#include "trace/analyze/sync_drain.h"

#include <algorithm>
#include <array>
#include <map>

namespace trace {

DrainAdvice drain_advice(uint64_t blocked_ns, uint64_t idle_bound_ns, bool gpu_work) {
  if (!gpu_work) return DrainAdvice::NoGpuWork;
  const double blocked = static_cast<double>(blocked_ns);
  const double idle_bound = static_cast<double>(idle_bound_ns);
  if (blocked - idle_bound >= kBindsShare * blocked) return DrainAdvice::OwnCost;
  if (idle_bound >= kBindsShare * blocked) return DrainAdvice::WaitMoves;
  return DrainAdvice::Mixed;
}

void add_drain(SyncReport* syncs, const LaunchQueue& queue, const std::vector<Regime>& step_regimes,
               Regime whole) {
  struct Drained {
    std::vector<uint64_t> depths;
    std::array<uint64_t, 4> blocked_by_regime{};  // index: Regime
  };
  std::map<std::string, size_t> cause_of;
  for (size_t k = 0; k < syncs->by_cause.size(); ++k) {
    SyncCause& g = syncs->by_cause[k];
    g.drained = g.idle_after_ns = g.saving_estimate_ns = g.idle_bound_ns = 0;
    cause_of[g.op] = k;
  }
  std::vector<Drained> drained(syncs->by_cause.size());
  const bool gpu_work = queue.pieces() > 0;
  for (SyncCall& c : syncs->calls) {
    c.queue_depth = queue.depth_at(c.start_ns);
    c.drained = queue.finished_between(c.start_ns, c.start_ns + c.blocked_ns);
    c.regime = c.step >= 0 && static_cast<size_t>(c.step) < step_regimes.size()
                   ? step_regimes[static_cast<size_t>(c.step)]
                   : whole;
    const auto it = cause_of.find(c.op);
    if (it == cause_of.end()) continue;
    SyncCause& g = syncs->by_cause[it->second];
    g.drained += c.drained;
    g.idle_after_ns += c.idle_after_ns;
    g.saving_estimate_ns += std::min(c.blocked_ns, c.idle_after_ns);
    if (c.idle_after_ns < c.blocked_ns) g.idle_bound_ns += c.blocked_ns;
    Drained& d = drained[it->second];
    d.depths.push_back(c.queue_depth);
    d.blocked_by_regime[static_cast<size_t>(c.regime)] += c.blocked_ns;
  }
  for (size_t k = 0; k < drained.size(); ++k) {
    SyncCause& g = syncs->by_cause[k];
    std::vector<uint64_t>& v = drained[k].depths;
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    g.queue_depth_p50 = v[(v.size() - 1) / 2];  // the lower median: a depth some call found
    g.queue_depth_max = v.back();
    // The regime that held most of its blocked time (ties: the first in Regime's order); the
    // trace's when its calls blocked for no time at all.
    const auto& by = drained[k].blocked_by_regime;
    const size_t best = static_cast<size_t>(std::max_element(by.begin(), by.end()) - by.begin());
    g.regime = by[best] ? static_cast<Regime>(best) : whole;
    g.advice = drain_advice(g.blocked_ns, g.idle_bound_ns, gpu_work);
  }
}

}  // namespace trace
