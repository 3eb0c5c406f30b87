#include "trace/analyze/step_report.h"

#include <algorithm>
#include <future>

#include "trace/analyze/sync_drain.h"

namespace trace {
namespace {

// The step of median wall time (ties: the earlier), else the whole trace: its depth over time.
void add_timeline(TraceReport* rep, const LaunchQueue& queue) {
  const StepFigures* pick = &rep->total;
  if (!rep->steps.empty()) {
    std::vector<const StepFigures*> by_wall;
    for (const auto& f : rep->steps) by_wall.push_back(&f);
    std::stable_sort(by_wall.begin(), by_wall.end(),
                     [](auto* a, auto* b) { return a->wall_ns < b->wall_ns; });
    pick = by_wall[(by_wall.size() - 1) / 2];
  }
  rep->timeline_window = pick->name;
  rep->timeline_start_ns = pick->a.window_start_ns;
  rep->timeline_end_ns = pick->a.window_start_ns + pick->a.window_ns;
  rep->timeline =
      queue.series(rep->timeline_start_ns, rep->timeline_end_ns, TraceReport::kTimelinePoints);
}

// No GPU events: the host figures stand; a GPU idle split would only restate the window.
void host_figures_only(TraceReport* rep) {
  rep->total.a.idle_host_wait_ns = rep->total.a.idle_kernel_wait_ns = 0;
  rep->total.a.idle_other_ns = 0;
  for (auto& f : rep->steps)
    f.a.idle_host_wait_ns = f.a.idle_kernel_wait_ns = f.a.idle_other_ns = 0;
}

Diagnosis diagnose_steps(const ImportedTrace& t, const AttributionIndex& index) {
  std::vector<std::pair<uint64_t, uint64_t>> windows;
  for (const auto& w : t.records.steps) windows.push_back({w.start_ns, w.end_ns});
  DiagnosisOptions o;
  o.bounds.ops_are_ranges = t.format == "SQLite";  // an Nsight Systems export's NVTX ranges
  return diagnose(t.records, index, windows, o);
}

}  // namespace

TraceReport build_report(const ImportedTrace& t, const AttributionOptions& options) {
  TraceReport rep;
  rep.trace = &t;
  const RecordSet& r = t.records;
  // The syncs need none of the attribution: found on a second core meanwhile.
  auto syncs = std::async(std::launch::async, [&] { return find_syncs(r, t.syncs_named_by_call); });
  const AttributionIndex index(r);
  // The launch queue and the per-kernel table read the index only: built meanwhile too.
  auto extras = std::async(std::launch::async, [&] {
    return std::make_pair(index.launch_queue(rep.queue_options), kernel_times(r, index));
  });
  // The diagnosis reads the records and the index only: meanwhile as well.
  auto diagnosis = std::async(std::launch::async, [&] { return diagnose_steps(t, index); });
  // The step phases (RecordSet::step_phase), by start: a step that holds them is attributed
  // over them.
  std::vector<std::pair<uint64_t, uint64_t>> phases;
  if (!r.step_phase.empty())
    for (const auto& h : r.ranges)
      if (h.name == r.step_phase) phases.push_back({h.start_ns, h.end_ns});
  std::sort(phases.begin(), phases.end());
  const auto holds_phase = [&](uint64_t from, uint64_t to) {
    for (auto it =
             std::lower_bound(phases.begin(), phases.end(), std::make_pair(from, uint64_t{0}));
         it != phases.end() && it->first <= to; ++it)
      if (it->second <= to) return true;
    return false;
  };
  rep.steps.resize(r.steps.size());
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const StepRecord& w = r.steps[i];
    StepFigures& f = rep.steps[i];
    f.name = w.name;
    f.start_ns = w.start_ns;
    f.wall_ns = w.end_ns - w.start_ns;
    AttributionOptions in_step = options;  // the step is the window (unless it holds phases)
    if (!holds_phase(w.start_ns, w.end_ns)) in_step.window = {w.start_ns, w.end_ns};
    f.a = index.attribute(in_step, w.start_ns, w.end_ns);
    rep.steps_wall_ns += f.wall_ns;
  }
  rep.total.name = "total";
  if (!phases.empty()) {
    rep.total.a = index.attribute(options);  // first to last step phase, as bench does
  } else {
    // A Kineto trace: the whole recorded span, host ops and annotations included (attribute()
    // alone would take only the CUDA records' span).
    const auto [lo, hi] = record_span(r);
    rep.total.start_ns = lo <= hi ? lo : 0;
    if (lo <= hi) {
      AttributionOptions whole = options;
      whole.window = {lo, hi};
      rep.total.a = index.attribute(whole);
    }
  }
  rep.total.wall_ns = rep.total.a.window_ns;
  if (r.kernels.empty() && r.memcpys.empty() && r.memsets.empty()) host_figures_only(&rep);
  if (rep.steps.empty()) rep.steps_wall_ns = rep.total.wall_ns;
  auto built = extras.get();
  const LaunchQueue& queue = built.first;
  const auto queue_of = [&](const Attribution& a, bool streams) {
    return queue.figures(a.window_start_ns, a.window_start_ns + a.window_ns, streams);
  };
  for (auto& f : rep.steps) f.queue = queue_of(f.a, false);
  rep.total.queue = queue_of(rep.total.a, true);
  rep.kernels = std::move(built.second);
  rep.syncs = syncs.get();
  std::vector<Regime> step_regimes;
  for (const auto& f : rep.steps) step_regimes.push_back(f.queue.regime);
  add_drain(&rep.syncs, queue, step_regimes, rep.total.queue.regime);
  rep.sites = find_call_sites(r, rep.syncs);
  rep.graph_breaks = find_graph_breaks(r, rep.syncs);
  label_graph_breaks(r, rep.syncs, rep.sites, &rep.graph_breaks);
  add_timeline(&rep, queue);
  rep.diagnosis = diagnosis.get();
  return rep;
}

}  // namespace trace
