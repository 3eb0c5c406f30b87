#include "trace/analyze/replay/replay_graph.h"

#include <utility>

namespace trace::replay {

ReplayGraph build_replay_graph(const RecordSet& records, std::vector<MeasuredStep> steps,
                               std::map<SiteSelector, std::vector<Site>> sites,
                               const BuildOptions& options,
                               const std::map<std::string, std::vector<Span>>& regions,
                               const std::vector<Span>& break_entries) {
  ReplayGraph out;
  // Each span asked for, with the nodes it fills in: the two lists grow together, here only.
  std::vector<Span> spans;
  std::vector<SpanNodes*> owners;
  const auto ask = [&](uint32_t thread, uint64_t start, uint64_t end, SpanNodes* nodes) {
    spans.push_back({thread, start, end});
    owners.push_back(nodes);
  };
  out.steps.reserve(steps.size());
  for (MeasuredStep& s : steps) out.steps.push_back({std::move(s), {}});
  for (PlacedStep& p : out.steps)
    if (p.step.thread != kNone) ask(p.step.thread, p.step.start_ns, p.step.end_ns, &p.nodes);
  for (auto& [selector, list] : sites) {
    std::vector<PlacedSite>& placed = out.sites[selector];
    placed.reserve(list.size());
    for (Site& s : list) placed.push_back({std::move(s), {}});
    for (PlacedSite& p : placed)
      if (p.site.region) ask(p.site.thread, p.site.start_ns, p.site.end_ns, &p.nodes);
  }
  for (const auto& [name, list] : regions) {
    std::vector<SpanNodes>& placed = out.regions[name];
    placed.resize(list.size());
    for (size_t i = 0; i < list.size(); ++i)
      ask(list[i].thread, list[i].start_ns, list[i].end_ns, &placed[i]);
  }
  out.break_entries.resize(break_entries.size());
  for (size_t i = 0; i < break_entries.size(); ++i)
    ask(break_entries[i].thread, break_entries[i].start_ns, break_entries[i].end_ns,
        &out.break_entries[i]);
  out.graph = build_graph(records, spans, options);
  for (size_t k = 0; k < spans.size(); ++k) *owners[k] = out.graph.span_nodes[k];
  return out;
}

}  // namespace trace::replay
