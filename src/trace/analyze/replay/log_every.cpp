#include "trace/analyze/replay/log_every.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trace::replay {

Scenario keep_every(const Graph& g, const std::vector<Site>& sites,
                    const std::vector<SiteNodes>& nodes, uint32_t every) {
  Scenario s;
  s.flags.assign(g.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i)
    if (every == 0 || i % every != 0) remove_site(g, sites[i], nodes[i], &s);
  return s;
}

namespace {

std::string us(double ns) {
  char b[32];
  const double v = ns / 1000.0;
  std::snprintf(b, sizeof b,
                std::fabs(v) >= 100  ? "%.0f"
                : std::fabs(v) >= 10 ? "%.1f"
                                     : "%.2f",
                v);
  return b;
}

// Only the sites in `keep` stay.
Scenario keep_only(const Graph& g, const std::vector<Site>& sites,
                   const std::vector<SiteNodes>& nodes, size_t keep) {
  Scenario s;
  s.flags.assign(g.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i)
    if (i != keep) remove_site(g, sites[i], nodes[i], &s);
  return s;
}

// `one` names a site: "sync", or the op ("`log`") or API the selector picked.
std::string explain(const LogEveryCurve& c, const std::string& one) {
  if (c.sites == 0) return "No " + one + " in the trace: nothing to keep or remove.";
  const double per = c.saving_per_sync_ns;
  std::string w;
  if (std::fabs(per) < 100) {  // below a tenth of a microsecond per site
    w = "Flat: keeping or removing them changes the step by less than the replay can tell (" +
        us(per) + " us per " + one + ").";
  } else if (c.linear) {
    w = "Linear: every kept " + one + " adds about " + us(per) +
        " us, however many others are kept";
    if (c.isolated_samples) w += " (one kept alone adds " + us(c.isolated_cost_ns) + " us)";
    w += ".";
  } else {
    w = "Not linear: ";
    if (c.isolated_samples && std::fabs(c.isolated_cost_ns - per) > 0.25 * std::fabs(per))
      w += "one " + one + " kept alone adds " + us(c.isolated_cost_ns) +
           " us, one among all of them " + us(per) + " us on average";
    else
      w += "the points stray up to " +
           std::to_string(static_cast<int>(std::lround(100 * c.max_deviation))) +
           "% of the rise from the straight line between never and every";
    w += ".";
  }
  const double b = c.blocked_per_sync_ns, q = c.queued_per_sync_ns;
  if (b <= 0) {
    w += " Why: these block on nothing (no GPU work to wait for): what one saves is its own host "
         "time.";
  } else if (std::fabs(per) < 100) {
    w += " Why: a sync blocked " + us(b) +
         " us, but the run's critical path does not pass through the syncs: another "
         "thread, or the GPU, bounds it.";
  } else if (per >= 0.8 * b) {
    w += " Why: removing one saves about all the time it blocked (" + us(per) + " of " + us(b) +
         " us): the GPU work it " + "waited for (" + us(q) +
         " us) then runs while the CPU goes on, off the critical path.";
  } else if (q < 0.1 * b) {
    w += " Why: the syncs find the GPU queue (almost) empty (" + us(q) +
         " us of GPU work ran while one blocked " + us(b) +
         " us), so each costs its fixed price; removing one saves " + us(per) +
         " us of it, the rest was hidden behind other work (the run was not waiting on that thread "
         "then).";
  } else {
    w += " Why: a sync blocked " + us(b) + " us, " + us(q) +
         " us of it behind queued GPU work, and removing it saves " + us(per) +
         " us: the wait behind queued work is not saved, it moves to the next sync (or to the end "
         "of the run, "
         "when the GPU is the bottleneck); what goes is the sync's fixed price and the CPU-GPU "
         "overlap it broke.";
  }
  return w;
}

}  // namespace

LogEveryCurve log_every_curve(const Graph& g, const std::vector<Site>& sites,
                              const std::vector<SiteNodes>& nodes, const WhatIf& what_if,
                              const ScenarioResult& replayed, const Evaluate& evaluate,
                              uint32_t isolated_samples, std::vector<ScenarioResult>* results) {
  LogEveryCurve c;
  c.selector = what_if.sites.text();
  c.text = what_if.text;
  c.sites = sites.size();
  const double windows = std::max<size_t>(1, replayed.windows.size());
  const double all_total = static_cast<double>(replayed.total.predicted_ns);
  c.replayed_ns = all_total / windows;
  for (const Site& s : sites)
    c.blocked_per_sync_ns += static_cast<double>(s.blocked_ns),
        c.queued_per_sync_ns += static_cast<double>(s.queued_ns);
  if (c.sites)
    c.blocked_per_sync_ns /= static_cast<double>(c.sites),
        c.queued_per_sync_ns /= static_cast<double>(c.sites);

  const ScenarioResult none =
      evaluate(keep_every(g, sites, nodes, 0), what_if.text + " (none kept)");
  const double none_total = static_cast<double>(none.total.predicted_ns);
  c.never_ns = none_total / windows;
  c.saving_per_sync_ns = c.sites ? (all_total - none_total) / static_cast<double>(c.sites) : 0;
  // One site kept alone, at evenly spaced sites: what a sync costs with no other sync near it.
  const uint32_t samples = static_cast<uint32_t>(std::min<size_t>(isolated_samples, sites.size()));
  for (uint32_t k = 0; k < samples; ++k) {
    const size_t i = samples == 1 ? sites.size() / 2 : k * (sites.size() - 1) / (samples - 1);
    c.isolated_cost_ns +=
        static_cast<double>(evaluate(keep_only(g, sites, nodes, i), "").total.predicted_ns) -
        none_total;
  }
  if (samples) c.isolated_cost_ns /= samples, c.isolated_samples = samples;

  for (uint32_t every : what_if.every) {
    ScenarioResult r = every == 0 ? none : evaluate(keep_every(g, sites, nodes, every), "");
    r.name = "log-every=" + (every ? std::to_string(every) : std::string("never")) +
             (what_if.sites.by == SiteSelector::By::Blocking
                  ? ""
                  : ":" + std::string(what_if.sites.by == SiteSelector::By::Op ? "op=" : "api=") +
                        what_if.sites.name);
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
    p.kept_per_window = kept / windows;
    p.predicted_ns = p.extrapolated ? (none_total + kept * c.isolated_cost_ns) / windows
                                    : static_cast<double>(r.total.predicted_ns) / windows;
    c.points.push_back(p);
    results->push_back(std::move(r));
  }
  // Linear: the replayed points lie on the line from "never" to "every site kept".
  const double rise = c.replayed_ns - c.never_ns, x_all = static_cast<double>(c.sites) / windows;
  for (const LogEveryPoint& p : c.points) {
    if (p.extrapolated || x_all <= 0 || std::fabs(rise) < 1) continue;
    const double line = c.never_ns + p.kept_per_window / x_all * rise;
    c.max_deviation = std::max(c.max_deviation, std::fabs(p.predicted_ns - line) / std::fabs(rise));
  }
  const bool isolated_agrees =
      !c.isolated_samples || std::fabs(c.isolated_cost_ns - c.saving_per_sync_ns) <=
                                 0.25 * std::fabs(c.saving_per_sync_ns) + 1000.0;
  c.linear = c.max_deviation <= 0.1 && isolated_agrees;
  const SiteSelector& sel = what_if.sites;
  c.why = explain(c, sel.by == SiteSelector::By::Op    ? "`" + sel.name + "`"
                     : sel.by == SiteSelector::By::Api ? sel.name + " call"
                                                       : "sync");
  return c;
}

}  // namespace trace::replay
