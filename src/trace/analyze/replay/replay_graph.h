// One trace's replay graph (graph.h) with what the replay measures and changes on it: each
// step and each site holds its own nodes, so no caller matches nodes to them by position.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/measured_steps.h"
#include "trace/analyze/replay/sites.h"

namespace trace::replay {

// A step with its start and end as nodes; not in the graph when it is measured on no thread
// (the whole trace, or a step no host record holds).
struct PlacedStep {
  MeasuredStep step;
  SpanNodes nodes;
};

// A site with, for a region (sites.h), its start and end as nodes; other sites are their calls.
struct PlacedSite {
  Site site;
  SpanNodes nodes;
};

struct ReplayGraph {
  Graph graph;
  std::vector<PlacedStep> steps;
  std::map<SiteSelector, std::vector<PlacedSite>> sites;
  // Per name: the host ranges a what-if captures in a graph (graph_capture.h), their ends as nodes.
  std::map<std::string, std::vector<SpanNodes>> regions;
  // The graph breaks' entries into the region after each (graph_breaks.h), in their order.
  std::vector<SpanNodes> break_entries;
};

// Builds the graph with the ends of every step on a thread, of every region site, of every
// named region and of every graph break's entry as nodes.
ReplayGraph build_replay_graph(const RecordSet& records, std::vector<MeasuredStep> steps,
                               std::map<SiteSelector, std::vector<Site>> sites,
                               const BuildOptions& options,
                               const std::map<std::string, std::vector<Span>>& regions = {},
                               const std::vector<Span>& break_entries = {});

}  // namespace trace::replay
