// replay_trace (what_if.h): steps and sites, one graph with their nodes, then a simulation per
// scenario.
#include "trace/analyze/replay/what_if.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "trace/analyze/graph_breaks.h"
#include "trace/analyze/replay/accuracy.h"
#include "trace/analyze/replay/evaluate.h"
#include "trace/analyze/replay/gpu_constants.h"
#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/log_every.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/run_ahead.h"
#include "trace/analyze/replay/simulate.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/replay/what_if_notes.h"
#include "trace/analyze/sync_causes.h"

namespace trace::replay {

namespace {

bool removes_syncs(const WhatIf& w) {
  return w.kind == WhatIf::Kind::NoSyncs || w.kind == WhatIf::Kind::LogEvery;
}

// The sites of every selector the what-ifs name.
std::map<SiteSelector, std::vector<Site>> sites_asked(const RecordSet& r, const SyncReport& syncs,
                                                      const std::vector<WhatIf>& what_ifs) {
  std::map<SiteSelector, std::vector<Site>> out;
  for (const WhatIf& w : what_ifs)
    if (removes_syncs(w) && !out.count(w.sites)) out[w.sites] = find_sites(r, syncs, w.sites);
  return out;
}

// The host ranges of every graph=REGION the what-ifs name.
std::map<std::string, std::vector<Span>> regions_asked(const RecordSet& r,
                                                       const std::vector<WhatIf>& what_ifs) {
  std::map<std::string, std::vector<Span>> out;
  for (const WhatIf& w : what_ifs)
    if ((w.kind == WhatIf::Kind::GraphSteps || w.kind == WhatIf::Kind::ScaleHost ||
         w.kind == WhatIf::Kind::Workers) &&
        !w.region.empty() && !out.count(w.region))
      out[w.region] = named_regions(r, w.region);
  return out;
}

// The GPU that ran the trace's kernels: the one most of them ran on (the first one listed when
// none ran).
uint32_t worked_on(const RecordSet& r) {
  std::map<uint32_t, uint64_t> n;
  for (const auto& k : r.kernels) ++n[k.device_id];
  uint32_t best = UINT32_MAX;
  uint64_t most = 0;
  for (const auto& [device, count] : n)
    if (count > most) best = device, most = count;
  return best;
}

void fill_replayed(ScenarioResult* r, const ScenarioResult& replay) {
  for (size_t i = 0; i < r->steps.size(); ++i) {
    r->steps[i].measured_ns = replay.steps[i].measured_ns;
    r->steps[i].replayed_ns = replay.steps[i].predicted_ns;
    r->steps[i].replayed_pace_ns = replay.steps[i].predicted_pace_ns;
  }
  r->total.replayed_ns = replay.total.predicted_ns;
  r->total.replayed_pace_ns = replay.total.predicted_pace_ns;
}

// What every what-if is evaluated with: the records, their syncs, the graph and its evaluator.
struct WhatIfRun {
  const RecordSet& r;
  const SyncReport& syncs;
  const ReplayGraph& replay;
  const Evaluator& eval;
  const GraphBreakReport& breaks;  // found when a what-if removes syncs
  GpuConstants gpu;                // the published figures for the trace's GPU
};

// The entry into the next region of every graph break, to be removed with its break.
std::vector<Span> break_entries(const GraphBreakReport& breaks) {
  std::vector<Span> out;
  for (const GraphBreak& b : breaks.breaks)
    out.push_back({b.thread, b.entry_start_ns, b.entry_end_ns});
  return out;
}

ScenarioResult without_syncs(const WhatIfRun& run, const WhatIf& w) {
  const Graph& g = run.replay.graph;
  const auto& sites = run.replay.sites.at(w.sites);
  Scenario s;
  s.flags.assign(g.size(), 0);
  for (const PlacedSite& site : sites) remove_site(g, site, &s);
  // A graph break removed merges the compiled regions around it: the next one's entry goes.
  const std::vector<size_t> merged = breaks_among(run.breaks, sites);
  std::vector<int64_t> gone;  // the entries removed
  for (size_t i : merged) {
    const GraphBreak& b = run.breaks.breaks[i];
    PlacedSite entry{{}, run.replay.break_entries[i]};
    entry.site.thread = b.thread, entry.site.region = true;
    entry.site.start_ns = b.entry_start_ns, entry.site.end_ns = b.entry_end_ns;
    if (b.entry_ns <= 0 || !entry.nodes.in_graph() || entry.nodes.close <= entry.nodes.open)
      continue;
    remove_site(g, entry, &s);
    gone.push_back(b.entry_ns);
  }
  ScenarioResult x = run.eval(s, w.text);
  x.sites = sites.size();
  x.note = sites.empty()
               ? "nothing to remove: " + none_picked(w.sites, run.r) + "; the replay is unchanged"
               : merge_note(merged.size(), gone, sites.size(), &x);
  return x;
}

ScenarioResult kernels_scaled(const WhatIfRun& run, const WhatIf& w) {
  const Scenario s = scale_kernels(run.replay.graph, run.r, w.factor, w.pattern);
  ScenarioResult x = run.eval(s, w.text);
  if (std::none_of(s.flags.begin(), s.flags.end(), [](uint8_t f) { return f & kScaled; }))
    x.note = "nothing to scale: " +
             (w.pattern.empty() ? std::string("no kernel in the trace")
                                : "no kernel whose name holds " + w.pattern) +
             "; the replay is unchanged";
  return x;
}

ScenarioResult launches_scaled(const WhatIfRun& run, const WhatIf& w) {
  ScenarioResult x = run.eval(scale_launches(w.factor), w.text);
  if (!run.replay.graph.stats.launches)
    x.note = "nothing to scale: no launch call in the trace; the replay is unchanged";
  return x;
}

ScenarioResult copies_pinned(const WhatIfRun& run, const WhatIf& w) {
  PinCopiesFacts f;
  const Scenario s = pin_copies(run.replay.graph, run.r, w.gbps, run.gpu, &f);
  ScenarioResult x = run.eval(s, w.text);
  char note[768];
  std::snprintf(note, sizeof note,
                "%llu pageable copies (%.1f MB) made asynchronous and pinned: host to device "
                "at %.1f GB/s (%s), device to host at %.1f GB/s (%s); each call %.1f us of "
                "host time (%s)",
                static_cast<unsigned long long>(f.copies), static_cast<double>(f.bytes) / 1e6,
                f.htod_gbps, f.htod_from.c_str(), f.dtoh_gbps, f.dtoh_from.c_str(),
                static_cast<double>(f.call_ns) / 1000.0, f.call_from.c_str());
  x.note = f.copies ? std::string(note)
                    : "nothing to pin: no copy between the GPU and pageable host memory in "
                      "the trace; the replay is unchanged";
  if (f.copies && !f.link_from.empty()) x.note += "; the link: " + f.link_from;
  return x;
}

ScenarioResult syncs_on_streams(const WhatIfRun& run, const WhatIf& w) {
  uint64_t changed = 0;
  ScenarioResult x = run.eval(stream_syncs(run.replay.graph, run.r, &changed), w.text);
  x.note = changed ? count(changed, "device-wide sync waits", "device-wide syncs wait") +
                         " for the stream its thread last queued work on only"
                   : "nothing to change: no device-wide sync after its thread queued GPU "
                     "work in the trace; the replay is unchanged";
  return x;
}

ScenarioResult steps_in_graphs(const WhatIfRun& run, const WhatIf& w) {
  const Graph& g = run.replay.graph;
  std::vector<Capture> captures;
  uint64_t split = 0;
  size_t regions = 0;
  if (w.region.empty()) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const PlacedStep& x : run.replay.steps) spans.push_back({x.step.start_ns, x.step.end_ns});
    captures = step_captures(g, spans);
  } else {
    const auto& placed = run.replay.regions.at(w.region);
    regions = placed.size();
    captures = region_captures(g, placed, &split);
  }
  GraphFacts f;
  ScenarioResult x =
      run.eval(capture_graphs(g, run.r, captures, {w.launch_ns, w.node_ns, run.gpu}, &f), w.text);
  x.note = graph_note(w, f, captures.size(), split, regions);
  return x;
}

// The host time inside each range (its CPU work and calls, the chain edges between its ends)
// scaled; what it waits for and the GPU work it queued stay.
ScenarioResult host_scaled(const WhatIfRun& run, const WhatIf& w) {
  const Graph& g = run.replay.graph;
  Scenario s;
  s.flags.assign(g.size(), 0);
  s.cpu_scale = w.factor;
  uint64_t ranges = 0;
  for (const SpanNodes& n : run.replay.regions.at(w.region)) {
    if (!n.in_graph() || n.close <= n.open) continue;
    ++ranges;
    for (uint32_t v = n.open + 1; v <= n.close; ++v) s.flags[v] |= kScaled;
  }
  ScenarioResult x = run.eval(s, w.text);
  char factor[32];
  std::snprintf(factor, sizeof factor, "%g", w.factor);
  x.note = ranges ? count(ranges, "host range", "host ranges") + " named " + w.region +
                        ": the host time inside each x " + factor +
                        " (its waits and the GPU work it queued stay)"
                  : "nothing to scale: no host range named " + w.region +
                        " holds a traced call; the replay is unchanged";
  return x;
}

// The range's host time moved to worker processes that run it ahead (run_ahead.h).
ScenarioResult host_run_ahead(const WhatIfRun& run, const WhatIf& w) {
  RunAheadFacts f;
  ScenarioResult x =
      run.eval(run_ahead(run.replay.graph, run.replay.regions.at(w.region), w.workers, &f), w.text);
  if (!f.ranges) {
    x.note = f.kept ? "nothing to move: every host range named " + w.region +
                          " queues or waits for GPU work, which a worker process cannot hold; "
                          "the replay is unchanged"
                    : "nothing to move: no host range named " + w.region +
                          " holds a traced call; the replay is unchanged";
    return x;
  }
  x.note = count(f.ranges, "host range", "host ranges") + " named " + w.region + " on " +
           count(f.threads, "thread", "threads") + " run ahead by " +
           count(w.workers, "worker", "workers") + ", " + std::to_string(kPrefetchPerWorker) +
           " asked ahead each (DataLoader's default prefetch_factor), each taking its recorded "
           "host time; the thread waits for what is not loaded yet; handing a batch over is "
           "taken as free";
  if (f.kept)
    x.note += "; " + count(f.kept, "range stays", "ranges stay") +
              " on its thread from the first that queues or waits for GPU work";
  return x;
}

}  // namespace

ReplayReport replay_trace(const ImportedTrace& trace, const std::vector<WhatIf>& what_ifs,
                          const ReplayOptions& options) {
  const RecordSet& r = trace.records;
  ReplayReport rep;
  rep.trace = &trace;
  rep.has_steps = !r.steps.empty();
  bool removes = false;
  for (const WhatIf& w : what_ifs) removes |= removes_syncs(w);
  const SyncReport syncs = removes ? find_syncs(r) : SyncReport{};
  const GraphBreakReport breaks = removes ? find_graph_breaks(r, syncs) : GraphBreakReport{};
  const ReplayGraph replay =
      build_replay_graph(r, measured_steps(r), sites_asked(r, syncs, what_ifs), options.build,
                         regions_asked(r, what_ifs), break_entries(breaks));
  const Graph& g = replay.graph;
  rep.graph = g.stats;

  const Evaluator eval(replay);
  rep.replay = eval(Scenario{}, "replay");
  fill_replayed(&rep.replay, rep.replay);
  Scenario typical;
  typical.typical_delays = true;
  rep.typical = eval(typical, "replay with typical delays");
  fill_replayed(&rep.typical, rep.replay);
  replay_errors(rep.replay, rep.has_steps, &rep.median_error, &rep.max_error, &rep.target_met);
  replay_errors(rep.typical, rep.has_steps, &rep.typical_median_error, &rep.typical_max_error,
                &rep.typical_target_met);
  if (rep.target_missed()) rep.excess_delays = excess_delays(g);

  const WhatIfRun run{r, syncs, replay, eval, breaks, gpu_constants(trace.devices, worked_on(r))};
  for (const WhatIf& w : what_ifs) {
    switch (w.kind) {
      case WhatIf::Kind::NoSyncs:
        rep.what_ifs.push_back(without_syncs(run, w));
        break;
      case WhatIf::Kind::LogEvery:
        rep.curves.push_back(log_every_curve(g, replay.sites.at(w.sites), w, rep.replay, eval,
                                             options.isolated_samples, &rep.what_ifs));
        break;
      case WhatIf::Kind::ScaleKernels:
        rep.what_ifs.push_back(kernels_scaled(run, w));
        break;
      case WhatIf::Kind::ScaleLaunches:
        rep.what_ifs.push_back(launches_scaled(run, w));
        break;
      case WhatIf::Kind::PinCopies:
        rep.what_ifs.push_back(copies_pinned(run, w));
        break;
      case WhatIf::Kind::StreamSyncs:
        rep.what_ifs.push_back(syncs_on_streams(run, w));
        break;
      case WhatIf::Kind::GraphSteps:
        rep.what_ifs.push_back(steps_in_graphs(run, w));
        break;
      case WhatIf::Kind::ScaleHost:
        rep.what_ifs.push_back(host_scaled(run, w));
        break;
      case WhatIf::Kind::Workers:
        rep.what_ifs.push_back(host_run_ahead(run, w));
        break;
    }
  }
  for (auto& x : rep.what_ifs) fill_replayed(&x, rep.replay);
  return rep;
}

}  // namespace trace::replay
