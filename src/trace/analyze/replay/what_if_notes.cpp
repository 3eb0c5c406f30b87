#include "trace/analyze/replay/what_if_notes.h"

#include <algorithm>
#include <cstdio>

namespace trace::replay {

std::string us_text(int64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", static_cast<double>(ns) / 1000.0);
  return b;
}

std::string count(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string graph_note(const WhatIf& w, const GraphFacts& f, size_t captures, uint64_t split,
                       size_t regions) {
  const std::string ranges = count(regions, "range named ", "ranges named ") + w.region;
  if (!f.graphs)
    return "nothing to capture: " +
           (w.region.empty() ? std::string("no step holds a launch or an asynchronous copy")
            : regions        ? "the " + ranges + " queued no GPU work"
                             : "no host range named " + w.region) +
           "; the replay is unchanged";
  std::string n =
      count(f.graphs, "graph", "graphs") + " of " + count(f.nodes, "node", "nodes") + " (" +
      (w.region.empty() ? "one per stretch of a step's launches on a thread, between blocking calls"
                        : ranges);
  if (split)
    n += "; " + std::to_string(split) + " split at a blocking call, which a graph cannot hold";
  if (captures > f.graphs)
    n += "; " + std::to_string(captures - f.graphs) + " with no GPU work kept as recorded";
  n += "): the host work inside each becomes one graph launch of " + us_text(f.launch_ns) + " us";
  if (f.launch_per_node_ns) n += " + " + std::to_string(f.launch_per_node_ns) + " ns a node";
  n += " (" + f.launch_from + "); ";
  n += f.node_period ? "each node takes at least " + us_text(f.node_gap_ns) +
                           " us on the GPU from its start to the next one's, its own time "
                           "included ("
                     : "its nodes run " + us_text(f.node_gap_ns) + " us apart on the GPU (";
  n += f.node_gap_from + ")";
  return n;
}

std::string none_picked(const SiteSelector& sel, const RecordSet& r) {
  using By = SiteSelector::By;
  switch (sel.by) {
    case By::Op:
      return "no host op or range named " + sel.name + " in the trace";
    case By::Api:
      return "no blocking call of " + sel.name + " in the trace";
    case By::Site:
      return "call site " + sel.name + " made no blocking call";
    case By::Blocking:
      break;
  }
  return r.kernels.empty() && r.memcpys.empty() && r.memsets.empty()
             ? "no blocking call in the trace (it has no GPU work; no-syncs:op=NAME removes an "
               "op's own host time)"
             : "no blocking call in the trace";
}

std::vector<size_t> breaks_among(const GraphBreakReport& breaks,
                                 const std::vector<PlacedSite>& sites) {
  std::vector<size_t> out;
  for (size_t i = 0; i < breaks.breaks.size(); ++i) {
    const GraphBreak& b = breaks.breaks[i];
    for (const PlacedSite& p : sites)
      if (p.site.thread == b.thread && p.site.start_ns <= b.end_ns && b.start_ns <= p.site.end_ns) {
        out.push_back(i);
        break;
      }
  }
  return out;
}

std::string merge_note(size_t breaks, std::vector<int64_t> entries, size_t sites,
                       ScenarioResult* x) {
  if (!breaks) return "";
  x->graph_breaks = breaks;
  for (int64_t e : entries) x->merge_saving_ns += e;
  const std::string them = breaks == 1 ? "it" : "them";
  std::string n = std::to_string(breaks) + " of the " + std::to_string(sites) +
                  (breaks == 1 ? " removed is a graph break" : " removed are graph breaks") +
                  " of torch.compile (a value read inside or between compiled regions): removing " +
                  them + " merges the regions around";
  if (entries.empty())
    return n + ", but the trace shows no entry into a region after " + them + " to remove";
  std::sort(entries.begin(), entries.end());
  return n + ", so the entry into the region after " +
         (entries.size() == breaks ? std::string("each")
                                   : std::to_string(entries.size()) + " of them") +
         " (its cache lookup, guards and wrappers, up to its first op) goes too: " +
         us_text(entries[entries.size() / 2]) + " us (median), " + us_text(x->merge_saving_ns) +
         " us in all, in the prediction; the kernels a merged graph might fuse, and under "
         "reduce-overhead the merged region's one graph launch in place of two, are not "
         "predicted";
}

}  // namespace trace::replay
