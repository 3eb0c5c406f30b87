// replay_trace (what_if.h): windows and sites, one graph with their nodes, then a simulation per
// scenario.
#include "trace/analyze/replay/what_if.h"

#include <cstdio>
#include <map>
#include <utility>

#include "trace/analyze/replay/accuracy.h"
#include "trace/analyze/replay/evaluate.h"
#include "trace/analyze/replay/log_every.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/simulate.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/sync_causes.h"

namespace trace::replay {

namespace {

bool removes_syncs(const WhatIf& w) {
  return w.kind == WhatIf::Kind::NoSyncs || w.kind == WhatIf::Kind::LogEvery;
}

// The sites of every selector the what-ifs name.
std::map<SiteSelector, std::vector<Site>> sites_asked(const RecordSet& r,
                                                      const std::vector<WhatIf>& what_ifs) {
  std::map<SiteSelector, std::vector<Site>> out;
  bool any = false;
  for (const WhatIf& w : what_ifs) any |= removes_syncs(w);
  if (!any) return out;
  const SyncReport syncs = find_syncs(r);
  for (const WhatIf& w : what_ifs)
    if (removes_syncs(w) && !out.count(w.sites)) out[w.sites] = find_sites(r, syncs, w.sites);
  return out;
}

void fill_replayed(ScenarioResult* r, const ScenarioResult& replay) {
  for (size_t i = 0; i < r->windows.size(); ++i) {
    r->windows[i].measured_ns = replay.windows[i].measured_ns;
    r->windows[i].replayed_ns = replay.windows[i].predicted_ns;
    r->windows[i].replayed_pace_ns = replay.windows[i].predicted_pace_ns;
  }
  r->total.replayed_ns = replay.total.predicted_ns;
  r->total.replayed_pace_ns = replay.total.predicted_pace_ns;
}

}  // namespace

ReplayReport replay_trace(const ImportedTrace& trace, const std::vector<WhatIf>& what_ifs,
                          const ReplayOptions& options) {
  const RecordSet& r = trace.records;
  ReplayReport rep;
  rep.trace = &trace;
  rep.steps = !r.steps.empty();
  const ReplayGraph replay =
      build_replay_graph(r, replay_windows(r), sites_asked(r, what_ifs), options.build);
  const Graph& g = replay.graph;
  rep.graph = g.stats;

  const Evaluator eval(replay);
  rep.replay = eval(Scenario{}, "replay");
  fill_replayed(&rep.replay, rep.replay);
  Scenario typical;
  typical.typical_delays = true;
  rep.typical = eval(typical, "replay with typical delays");
  fill_replayed(&rep.typical, rep.replay);
  replay_errors(rep.replay, rep.steps, &rep.median_error, &rep.max_error, &rep.target_met);
  replay_errors(rep.typical, rep.steps, &rep.typical_median_error, &rep.typical_max_error,
                &rep.typical_target_met);
  if (rep.target_missed()) rep.excess_delays = excess_delays(g);

  for (const WhatIf& w : what_ifs) {
    switch (w.kind) {
      case WhatIf::Kind::NoSyncs: {
        const auto& sites = replay.sites.at(w.sites);
        Scenario s;
        s.flags.assign(g.size(), 0);
        for (const PlacedSite& site : sites) remove_site(g, site, &s);
        ScenarioResult x = eval(s, w.text);
        x.sites = sites.size();
        rep.what_ifs.push_back(std::move(x));
        break;
      }
      case WhatIf::Kind::LogEvery:
        rep.curves.push_back(log_every_curve(g, replay.sites.at(w.sites), w, rep.replay, eval,
                                             options.isolated_samples, &rep.what_ifs));
        break;
      case WhatIf::Kind::ScaleKernels:
        rep.what_ifs.push_back(eval(scale_kernels(g, r, w.factor, w.pattern), w.text));
        break;
      case WhatIf::Kind::ScaleLaunches:
        rep.what_ifs.push_back(eval(scale_launches(w.factor), w.text));
        break;
      case WhatIf::Kind::PinCopies: {
        PinCopiesFacts f;
        const Scenario s = pin_copies(g, r, w.gbps, &f);
        ScenarioResult x = eval(s, w.text);
        char note[768];
        std::snprintf(note, sizeof note,
                      "%llu pageable copies (%.1f MB) made asynchronous and pinned: host to device "
                      "at %.1f GB/s (%s), device to host at %.1f GB/s (%s); each call %.1f us of "
                      "host time (%s)",
                      static_cast<unsigned long long>(f.copies), static_cast<double>(f.bytes) / 1e6,
                      f.htod_gbps, f.htod_from.c_str(), f.dtoh_gbps, f.dtoh_from.c_str(),
                      static_cast<double>(f.call_ns) / 1000.0, f.call_from.c_str());
        x.note = note;
        rep.what_ifs.push_back(std::move(x));
        break;
      }
      case WhatIf::Kind::StreamSyncs: {
        uint64_t changed = 0;
        ScenarioResult x = eval(stream_syncs(g, r, &changed), w.text);
        x.note = std::to_string(changed) +
                 " device-wide syncs wait for the stream their thread last queued work on only";
        rep.what_ifs.push_back(std::move(x));
        break;
      }
      case WhatIf::Kind::GraphSteps: {
        std::vector<std::pair<uint64_t, uint64_t>> spans;
        for (const PlacedWindow& x : replay.windows)
          spans.push_back({x.window.start_ns, x.window.end_ns});
        const int64_t cost = w.launch_ns >= 0 ? w.launch_ns : typical_graph_launch_ns(r);
        rep.what_ifs.push_back(eval(graph_steps(g, r, spans, cost), w.text));
        break;
      }
    }
  }
  for (auto& x : rep.what_ifs) fill_replayed(&x, rep.replay);
  return rep;
}

}  // namespace trace::replay
