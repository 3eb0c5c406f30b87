// replay_trace (what_if.h): windows, sites and cuts, one graph, then a simulation per scenario.
#include "trace/analyze/replay/what_if.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "trace/analyze/replay/log_every.h"
#include "trace/analyze/replay/simulate.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/sync_causes.h"

namespace trace::replay {

std::vector<Window> replay_windows(const RecordSet& r) {
  std::vector<Window> out;
  if (r.steps.empty()) {
    const auto [lo, hi] = record_span(r);
    if (lo <= hi) out.push_back({"whole trace", lo, hi, kNone});
    return out;
  }
  // A step is measured on the thread that recorded it: the host record of the same name and span.
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> holder;
  const auto offer = [&](const std::string& name, uint64_t s, uint64_t e, uint32_t thread) {
    if (name.rfind("ProfilerStep#", 0) == 0 || name == "epoch")
      holder.emplace(std::make_pair(s, e), thread);
  };
  for (const auto& a : r.annotations)
    if (!a.gpu) offer(a.name, a.start_ns, a.end_ns, a.thread_id);
  for (const auto& o : r.cpu_ops) offer(o.name, o.start_ns, o.end_ns, o.thread_id);
  for (const auto& h : r.ranges) offer(h.name, h.start_ns, h.end_ns, h.thread_id);
  for (const auto& s : r.steps) {
    auto it = holder.find({s.start_ns, s.end_ns});
    out.push_back({s.name, s.start_ns, s.end_ns, it == holder.end() ? kNone : it->second});
  }
  return out;
}

namespace {

std::vector<Bound> bounds(const Graph& g, const std::vector<Share>& shares) {
  std::vector<Bound> out;
  for (const Share& s : shares) out.push_back({g.resources[s.resource].label(), s.ns});
  return out;
}

void add_share(std::vector<Bound>* b, const std::string& resource, int64_t ns) {
  auto it =
      std::find_if(b->begin(), b->end(), [&](const Bound& x) { return x.resource == resource; });
  if (it == b->end())
    b->push_back({resource, ns});
  else
    it->ns += ns;
  std::stable_sort(b->begin(), b->end(),
                   [](const Bound& x, const Bound& y) { return x.ns > y.ns; });
}

// Evaluates scenarios over the windows of one graph.
class Evaluator {
 public:
  Evaluator(const Graph& g, const std::vector<Window>& windows,
            const std::vector<uint32_t>& window_nodes)
      : g_(g), windows_(windows), nodes_(window_nodes) {
    // The GPU work queued from inside the windows (by a call that started in one): the total
    // runs until it is done, so a what-if that lets the CPU run ahead of a busy GPU is not
    // credited with work the GPU still has to do.
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (size_t i = 0; i < windows_.size(); ++i)
      if (nodes_[2 * i] != kNone)
        spans.push_back({g.observed[nodes_[2 * i]], g.observed[nodes_[2 * i + 1]]});
    std::sort(spans.begin(), spans.end());
    for (uint32_t v = 0; v < g.host_count; ++v) {
      const uint32_t a = g.node_call[v];
      if (a == kNone || g.call_gpu_begin[a] == g.call_gpu_begin[a + 1]) continue;
      auto w =
          std::upper_bound(spans.begin(), spans.end(), std::make_pair(g.observed[v], INT64_MAX));
      if (w == spans.begin() || std::prev(w)->second < g.observed[v]) continue;
      for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k)
        launched_.push_back(g.call_gpu[k]);
    }
    for (size_t i = 0; i < windows_.size(); ++i) {
      if (nodes_[2 * i] == kNone) continue;
      if (first_ == kNone || g.observed[nodes_[2 * i]] < g.observed[first_]) first_ = nodes_[2 * i];
      if (last_ == kNone || g.observed[nodes_[2 * i + 1]] > g.observed[last_])
        last_ = nodes_[2 * i + 1];
    }
  }

  // From the first window's start to the later of the last one's end and the end of the GPU
  // work queued inside them; `start`/`duration` recorded or simulated.
  int64_t steps_span(const std::vector<int64_t>& start, const std::vector<int64_t>& duration,
                     const Scenario& s, uint32_t* end_node = nullptr) const {
    int64_t end = start[last_];
    uint32_t at = last_;
    for (uint32_t v : launched_)
      if (!(s.flag(v) & kRemoved) && start[v] + duration[v] > end)
        end = start[v] + duration[v], at = v;
    if (end_node) *end_node = at;
    return end - start[first_];
  }

  ScenarioResult operator()(const Scenario& s, const std::string& name) const {
    const Timeline t = simulate(g_, s);
    ScenarioResult out;
    out.name = name;
    for (size_t i = 0; i < windows_.size(); ++i) {
      const Window& w = windows_[i];
      WindowResult x;
      x.name = w.name;
      x.measured_ns = static_cast<int64_t>(w.end_ns - w.start_ns);
      const uint32_t a = nodes_[2 * i], b = nodes_[2 * i + 1];
      if (a != kNone && b != kNone) {
        x.predicted_ns = t.start[b] - t.start[a];
        x.bound = bounds(g_, critical_path(g_, t, b, t.start[a]));
      } else {
        // The whole trace (or a step on no known thread): first start to last end.
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        uint32_t last = kNone;
        for (uint32_t v = 0; v < g_.size(); ++v) {
          if (t.removed(v, s) || t.start[v] == kNowhere) continue;
          lo = std::min(lo, t.start[v]);
          if (t.start[v] + t.duration[v] > hi) hi = t.start[v] + t.duration[v], last = v;
        }
        if (last != kNone) {
          x.predicted_ns = hi - lo;
          x.bound = bounds(g_, critical_path(g_, t, last, lo));
          // The last node's own work is not on the walk (it ends the path).
          if (t.duration[last])
            add_share(&x.bound, g_.resources[g_.resource[last]].label(), t.duration[last]);
        }
      }
      out.total.measured_ns += x.measured_ns;
      out.total.predicted_ns += x.predicted_ns;
      out.windows.push_back(std::move(x));
    }
    out.total.name = windows_.size() == 1 && nodes_[0] == kNone ? "whole trace" : "total";
    if (out.total.name == "whole trace") out.total.bound = out.windows[0].bound;
    if (first_ != kNone && last_ != kNone) {
      out.total.measured_ns = steps_span(g_.observed, g_.duration, Scenario{});
      uint32_t end = kNone;
      out.total.predicted_ns = steps_span(t.start, t.duration, s, &end);
      out.total.bound = bounds(g_, critical_path(g_, t, end, t.start[first_]));
      if (t.duration[end])
        add_share(&out.total.bound, g_.resources[g_.resource[end]].label(), t.duration[end]);
    }
    return out;
  }

 private:
  const Graph& g_;
  const std::vector<Window>& windows_;
  const std::vector<uint32_t>& nodes_;
  std::vector<uint32_t> launched_;
  uint32_t first_ = kNone, last_ = kNone;
};

void fill_replayed(ScenarioResult* r, const ScenarioResult& replay) {
  for (size_t i = 0; i < r->windows.size(); ++i) {
    r->windows[i].measured_ns = replay.windows[i].measured_ns;
    r->windows[i].replayed_ns = replay.windows[i].predicted_ns;
  }
  r->total.replayed_ns = replay.total.predicted_ns;
}

// Median and largest |predicted - measured| / measured over the windows, and whether the
// targets hold (what_if.h).
void errors(const ScenarioResult& s, bool steps, double* median, double* max, bool* met) {
  std::vector<double> e;
  for (const WindowResult& w : s.windows)
    if (w.measured_ns > 0)
      e.push_back(std::fabs(static_cast<double>(w.predicted_ns - w.measured_ns)) /
                  static_cast<double>(w.measured_ns));
  if (e.empty()) return;
  std::sort(e.begin(), e.end());
  const size_t m = e.size() / 2;
  *median = e.size() % 2 ? e[m] : (e[m - 1] + e[m]) / 2;
  *max = e.back();
  *met = steps ? *median <= 0.02 && *max <= 0.05 : *max <= 0.05;
}

// What the page should say about the rules when a target is missed: the guesses the graph made.
void notes(const Graph& g, ReplayReport& rep) {
  const GraphStats& s = g.stats;
  if (rep.target_met && rep.typical_target_met) return;
  if (s.unlaunched_gpu)
    rep.notes.push_back(
        std::to_string(s.unlaunched_gpu) +
        " GPU operations have no launch call in the trace (queued before it began): "
        "they start where they were recorded, whatever happens before them");
  if (s.sync_targets_guessed)
    rep.notes.push_back(std::to_string(s.sync_targets_guessed) +
                        " blocking calls have no cuda_sync row: what they wait for is guessed "
                        "(the stream their thread used last, else every stream)");
  if (s.gpu_waits)
    rep.notes.push_back(
        std::to_string(s.gpu_waits) +
        " GPU operations waited for another stream without a Stream Wait Event row: "
        "each is tied to the work that ended just before it started");
  if (s.thread_waits)
    rep.notes.push_back(
        std::to_string(s.thread_waits) +
        " idle gaps are taken as waits for another thread (ended just after its event)");
  // Where the recorded delays exceed their kind's typical one: what a replay with typical
  // delays loses, by kind.
  std::vector<int64_t> excess(g.typical.size(), 0);
  std::vector<uint64_t> count(g.typical.size(), 0);
  for (const Edge& e : g.in) {
    const size_t k = static_cast<size_t>(e.kind);
    if (!is_delay(e.kind) || e.from == kNone || g.typical[k] == INT64_MAX ||
        e.delay <= g.typical[k])
      continue;
    excess[k] += e.delay - g.typical[k], ++count[k];
  }
  for (size_t k = 0; k < excess.size(); ++k) {
    if (excess[k] <= 0) continue;
    std::string n = std::to_string(count[k]) + " " + to_string(static_cast<EdgeKind>(k)) +
                    " delays exceed the typical " + std::to_string(g.typical[k] / 1000) +
                    " us, by " + std::to_string(excess[k] / 1000) + " us in all";
    if (static_cast<EdgeKind>(k) == EdgeKind::Stream)
      n += " (GPU work waited with its stream free and its launch done, for something the trace "
           "does not name" +
           (s.unnamed_event_waits ? ": " + std::to_string(s.unnamed_event_waits) +
                                        " cudaStreamWaitEvent calls have no Stream Wait Event row"
                                  : std::string()) +
           ")";
    rep.notes.push_back(n);
  }
  if (s.cycle_edges_dropped)
    rep.notes.push_back(std::to_string(s.cycle_edges_dropped) +
                        " dependencies contradicted the recorded times and were dropped");
}

}  // namespace

ReplayReport replay_trace(const ImportedTrace& trace, const std::vector<WhatIf>& what_ifs,
                          const ReplayOptions& options) {
  const RecordSet& r = trace.records;
  ReplayReport rep;
  rep.trace = &trace;
  const std::vector<Window> windows = replay_windows(r);
  rep.steps = !r.steps.empty();

  // Sites per selector, and the cuts: window ends on their threads, region sites' ends.
  std::map<SiteSelector, std::vector<Site>> sites;
  bool need_syncs = false;
  for (const WhatIf& w : what_ifs)
    need_syncs |= w.kind == WhatIf::Kind::NoSyncs || w.kind == WhatIf::Kind::LogEvery;
  SyncReport syncs;
  if (need_syncs) syncs = find_syncs(r);
  for (const WhatIf& w : what_ifs)
    if ((w.kind == WhatIf::Kind::NoSyncs || w.kind == WhatIf::Kind::LogEvery) &&
        !sites.count(w.sites))
      sites[w.sites] = find_sites(r, syncs, w.sites);
  std::vector<Cut> cuts;
  for (const Window& w : windows)
    if (w.thread != kNone)
      cuts.push_back({w.thread, w.start_ns, true}), cuts.push_back({w.thread, w.end_ns, false});
  std::map<SiteSelector, size_t> first_cut;
  for (const auto& [sel, list] : sites) {
    first_cut[sel] = cuts.size();
    for (const Site& s : list)
      if (s.region)
        cuts.push_back({s.thread, s.start_ns, true}), cuts.push_back({s.thread, s.end_ns, false});
  }

  const Graph g = build_graph(r, cuts, options.build);
  rep.graph = g.stats;
  std::vector<uint32_t> window_nodes;
  {
    size_t c = 0;
    for (const Window& w : windows) {
      if (w.thread != kNone)
        window_nodes.push_back(g.cut_nodes[c]), window_nodes.push_back(g.cut_nodes[c + 1]), c += 2;
      else
        window_nodes.push_back(kNone), window_nodes.push_back(kNone);
    }
  }
  const auto site_nodes = [&](const SiteSelector& sel) {
    std::vector<SiteNodes> out;
    size_t c = first_cut[sel];
    for (const Site& s : sites[sel]) {
      if (s.region)
        out.push_back({g.cut_nodes[c], g.cut_nodes[c + 1]}), c += 2;
      else
        out.push_back({});
    }
    return out;
  };

  const Evaluator eval(g, windows, window_nodes);
  rep.replay = eval(Scenario{}, "replay");
  fill_replayed(&rep.replay, rep.replay);
  Scenario typical;
  typical.typical_delays = true;
  rep.typical = eval(typical, "replay with typical delays");
  fill_replayed(&rep.typical, rep.replay);
  errors(rep.replay, rep.steps, &rep.median_error, &rep.max_error, &rep.target_met);
  errors(rep.typical, rep.steps, &rep.typical_median_error, &rep.typical_max_error,
         &rep.typical_target_met);
  notes(g, rep);

  const Evaluate evaluate = [&](const Scenario& s, const std::string& name) {
    return eval(s, name);
  };
  for (const WhatIf& w : what_ifs) {
    switch (w.kind) {
      case WhatIf::Kind::NoSyncs: {
        const auto& list = sites[w.sites];
        const auto nodes = site_nodes(w.sites);
        Scenario s;
        s.flags.assign(g.size(), 0);
        for (size_t i = 0; i < list.size(); ++i) remove_site(g, list[i], nodes[i], &s);
        ScenarioResult x = eval(s, w.text);
        x.sites = list.size();
        rep.what_ifs.push_back(std::move(x));
        break;
      }
      case WhatIf::Kind::LogEvery: {
        const auto& list = sites[w.sites];
        rep.curves.push_back(log_every_curve(g, list, site_nodes(w.sites), w, rep.replay, evaluate,
                                             options.isolated_samples, &rep.what_ifs));
        break;
      }
      case WhatIf::Kind::ScaleKernels:
        rep.what_ifs.push_back(eval(scale_kernels(g, r, w.factor, w.pattern), w.text));
        break;
      case WhatIf::Kind::ScaleLaunches:
        rep.what_ifs.push_back(eval(scale_launches(w.factor), w.text));
        break;
      case WhatIf::Kind::GraphSteps: {
        std::vector<std::pair<uint64_t, uint64_t>> spans;
        for (const Window& x : windows) spans.push_back({x.start_ns, x.end_ns});
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
