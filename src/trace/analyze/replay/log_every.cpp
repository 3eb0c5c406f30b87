#include "trace/analyze/replay/log_every.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace trace::replay {

Scenario keep_every(const Graph& g, const std::vector<PlacedSite>& sites, uint32_t every) {
  Scenario s;
  s.flags.assign(g.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i)
    if (every == 0 || i % every != 0) remove_site(g, sites[i], &s);
  return s;
}

namespace {

// Only the site `keep` stays.
Scenario keep_only(const Graph& g, const std::vector<PlacedSite>& sites, size_t keep) {
  Scenario s;
  s.flags.assign(g.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i)
    if (i != keep) remove_site(g, sites[i], &s);
  return s;
}

const char* selector_key(SiteSelector::By by) {
  return by == SiteSelector::By::Op ? "op" : by == SiteSelector::By::Api ? "api" : "site";
}

// Below a tenth of a microsecond per site, the replay cannot tell a site's cost from nothing.
constexpr double kFlatNs = 100;

LogEveryCurve::Shape shape_of(const LogEveryCurve& c) {
  using Shape = LogEveryCurve::Shape;
  const double per = c.saving_per_sync_ns;
  if (c.sites == 0) return Shape::NoSites;
  if (std::fabs(per) < kFlatNs) return Shape::Flat;
  if (c.linear) return Shape::Linear;
  if (c.isolated_samples && std::fabs(c.isolated_cost_ns - per) > 0.25 * std::fabs(per))
    return Shape::AloneDiffers;
  return Shape::Strays;
}

// Why, from what a site blocked (b) and the GPU work that ran meanwhile (q) against what
// removing one saves.
LogEveryCurve::Cause cause_of(const LogEveryCurve& c) {
  using Cause = LogEveryCurve::Cause;
  const double per = c.saving_per_sync_ns, b = c.blocked_per_sync_ns, q = c.queued_per_sync_ns;
  if (b <= 0) return Cause::BlocksOnNothing;
  if (std::fabs(per) < kFlatNs) return Cause::OffCriticalPath;
  // A site is more than its wait (the op's dispatch, the copy's launch, the code around it):
  // a saving well over what it blocked is that host work going too.
  if (per > 1.25 * b) return Cause::SavesItsHostWork;
  if (per >= 0.8 * b) return Cause::SavesWhatItBlocked;
  if (q < 0.1 * b) return Cause::EmptyQueue;
  return Cause::WaitMoves;
}

}  // namespace

LogEveryCurve log_every_curve(const Graph& g, const std::vector<PlacedSite>& sites,
                              const WhatIf& what_if, const ScenarioResult& replayed,
                              const Evaluator& evaluate, uint32_t isolated_samples,
                              std::vector<ScenarioResult>* results) {
  LogEveryCurve c;
  c.selector = what_if.sites;
  c.text = what_if.text;
  c.sites = sites.size();
  const double steps = std::max<size_t>(1, replayed.steps.size());
  const double all_total = static_cast<double>(replayed.total.predicted_ns);
  c.replayed_ns = all_total / steps;
  for (const PlacedSite& s : sites)
    c.blocked_per_sync_ns += static_cast<double>(s.site.blocked_ns),
        c.queued_per_sync_ns += static_cast<double>(s.site.queued_ns);
  if (c.sites)
    c.blocked_per_sync_ns /= static_cast<double>(c.sites),
        c.queued_per_sync_ns /= static_cast<double>(c.sites);

  const ScenarioResult none = evaluate(keep_every(g, sites, 0), what_if.text + " (none kept)");
  const double none_total = static_cast<double>(none.total.predicted_ns);
  c.never_ns = none_total / steps;
  c.saving_per_sync_ns = c.sites ? (all_total - none_total) / static_cast<double>(c.sites) : 0;
  // One site kept alone, at evenly spaced sites: what a sync costs with no other sync near it.
  const uint32_t samples = static_cast<uint32_t>(std::min<size_t>(isolated_samples, sites.size()));
  for (uint32_t k = 0; k < samples; ++k) {
    const size_t i = samples == 1 ? sites.size() / 2 : k * (sites.size() - 1) / (samples - 1);
    c.isolated_cost_ns +=
        static_cast<double>(evaluate(keep_only(g, sites, i), "").total.predicted_ns) - none_total;
  }
  if (samples) c.isolated_cost_ns /= samples, c.isolated_samples = samples;

  for (uint32_t every : what_if.every) {
    ScenarioResult r = every == 0 ? none : evaluate(keep_every(g, sites, every), "");
    r.name = "log-every=" + (every ? std::to_string(every) : std::string("never")) +
             (what_if.sites.by == SiteSelector::By::Blocking
                  ? ""
                  : ":" + std::string(selector_key(what_if.sites.by)) + "=" + what_if.sites.name);
    r.sites = c.sites;
    r.sites_kept = every == 0 ? 0 : (c.sites + every - 1) / every;
    LogEveryPoint p;
    p.every = every;
    p.kept = r.sites_kept;
    // Fewer than two kept (the trace is shorter than the interval): one kept site stands for
    // sites / every of them, each costing what a site kept alone costs.
    p.extrapolated = every > 1 && p.kept < 2 && c.isolated_samples;
    const double kept =
        p.extrapolated ? static_cast<double>(c.sites) / every : static_cast<double>(p.kept);
    p.kept_per_step = kept / steps;
    p.predicted_ns = p.extrapolated ? (none_total + kept * c.isolated_cost_ns) / steps
                                    : static_cast<double>(r.total.predicted_ns) / steps;
    c.points.push_back(p);
    results->push_back(std::move(r));
  }
  // Linear: the replayed points lie on the line from "never" to "every site kept".
  const double rise = c.replayed_ns - c.never_ns, x_all = static_cast<double>(c.sites) / steps;
  for (const LogEveryPoint& p : c.points) {
    if (p.extrapolated || x_all <= 0 || std::fabs(rise) < 1) continue;
    const double line = c.never_ns + p.kept_per_step / x_all * rise;
    c.max_deviation = std::max(c.max_deviation, std::fabs(p.predicted_ns - line) / std::fabs(rise));
  }
  const bool isolated_agrees =
      !c.isolated_samples || std::fabs(c.isolated_cost_ns - c.saving_per_sync_ns) <=
                                 0.25 * std::fabs(c.saving_per_sync_ns) + 1000.0;
  c.linear = c.max_deviation <= 0.1 && isolated_agrees;
  c.shape = shape_of(c);
  c.cause = cause_of(c);
  return c;
}

}  // namespace trace::replay
