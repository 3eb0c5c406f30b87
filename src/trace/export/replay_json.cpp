#include "trace/export/replay_json.h"

#include "trace/export/replay_text.h"
#include "trace/model/units.h"

namespace trace {

namespace {

void bound_json(JsonOut& o, const std::vector<replay::Bound>& bound) {
  o.key("bound").begin_array();
  for (const auto& b : bound)
    o.begin_object().key("resource").value(b.resource).key("us").value(us(b.ns)).end_object();
  o.end_array();
}

void window_json(JsonOut& o, const replay::StepResult& w, bool what_if) {
  o.begin_object();
  o.key("name").value(w.name);
  o.key("measured_us").value(us(w.measured_ns));
  o.key("replayed_us").value(us(w.replayed_ns));
  // From the window before it being done (host and GPU) to this one being done (what_if.h).
  o.key("measured_pace_us").value(us(w.measured_pace_ns));
  o.key("replayed_pace_us").value(us(w.replayed_pace_ns));
  if (what_if) o.key("predicted_pace_us").value(us(w.predicted_pace_ns));
  if (what_if) {
    o.key("predicted_us").value(us(w.predicted_ns));
    o.key("saving_us").value(us(w.replayed_ns - w.predicted_ns));
    o.key("error").value(w.measured_ns ? static_cast<double>(w.predicted_ns - w.measured_ns) /
                                             static_cast<double>(w.measured_ns)
                                       : 0.0);
  } else {
    o.key("error").value(w.measured_ns ? static_cast<double>(w.replayed_ns - w.measured_ns) /
                                             static_cast<double>(w.measured_ns)
                                       : 0.0);
  }
  bound_json(o, w.bound);
  o.end_object();
}

void scenario_json(JsonOut& o, const replay::ScenarioResult& s, bool what_if) {
  o.key("windows").begin_array();
  for (const auto& w : s.steps) window_json(o, w, what_if);
  o.end_array();
  o.key("total");
  window_json(o, s.total, what_if);
}

}  // namespace

// one piece: one JSON object, its fields in the order output_schema declares them
void write_replay_json(JsonOut& o, const replay::ReplayReport& rep) {
  const ImportedTrace& t = *rep.trace;
  const auto& g = rep.graph;
  o.begin_object();
  o.key("file").value(t.file);
  o.key("rank").value(t.rank);
  o.key("windows").value(rep.has_steps ? "steps" : "whole trace");
  o.key("graph").begin_object();
  o.key("host_nodes")
      .value(g.host_nodes)
      .key("gpu_nodes")
      .value(g.gpu_nodes)
      .key("edges")
      .value(g.edges);
  o.key("launches").value(g.launches).key("graph_launch_kernels").value(g.graph_launch_kernels);
  o.key("unlaunched_gpu").value(g.unlaunched_gpu).key("blocking_calls").value(g.blocking_calls);
  o.key("sync_targets_from_rows")
      .value(g.sync_targets_from_rows)
      .key("sync_targets_guessed")
      .value(g.sync_targets_guessed);
  o.key("syncs_waiting_on_nothing").value(g.syncs_waiting_on_nothing);
  o.key("event_waits")
      .value(g.event_waits)
      .key("unnamed_event_waits")
      .value(g.unnamed_event_waits)
      .key("gpu_waits")
      .value(g.gpu_waits)
      .key("thread_waits")
      .value(g.thread_waits)
      .key("queue_waits")
      .value(g.queue_waits);
  o.key("overlapping_calls")
      .value(g.overlapping_calls)
      .key("cycle_edges_dropped")
      .value(g.cycle_edges_dropped);
  o.end_object();
  o.key("replay").begin_object();
  o.key("median_error")
      .value(rep.median_error)
      .key("max_error")
      .value(rep.max_error)
      .key("target_met")
      .value(rep.target_met);
  scenario_json(o, rep.replay, false);
  o.end_object();
  o.key("typical_delays").begin_object();
  o.key("median_error")
      .value(rep.typical_median_error)
      .key("max_error")
      .value(rep.typical_max_error);
  o.key("target_met").value(rep.typical_target_met);
  scenario_json(o, rep.typical, true);
  o.end_object();
  o.key("what_ifs").begin_array();
  for (const auto& s : rep.what_ifs) {
    o.begin_object();
    o.key("name").value(s.name).key("sites").value(s.sites).key("sites_kept").value(s.sites_kept);
    if (!s.note.empty()) o.key("assumed").value(s.note);
    if (s.graph_breaks)  // what merging the compiled regions would also save, not replayed
      o.key("graph_breaks")
          .value(s.graph_breaks)
          .key("merge_saving_us")
          .value(us(s.merge_saving_ns));
    scenario_json(o, s, true);
    o.end_object();
  }
  o.end_array();
  o.key("log_every").begin_array();
  for (const auto& c : rep.curves) {
    o.begin_object();
    o.key("what_if")
        .value(c.text)
        .key("selector")
        .value(site_selector_text(c.selector))
        .key("sites")
        .value(c.sites);
    o.key("replayed_us").value(c.replayed_ns / 1000).key("never_us").value(c.never_ns / 1000);
    o.key("saving_per_sync_us").value(c.saving_per_sync_ns / 1000);
    o.key("isolated_cost_us")
        .value(c.isolated_cost_ns / 1000)
        .key("isolated_samples")
        .value(static_cast<uint64_t>(c.isolated_samples));
    o.key("blocked_per_sync_us")
        .value(c.blocked_per_sync_ns / 1000)
        .key("queued_per_sync_us")
        .value(c.queued_per_sync_ns / 1000);
    o.key("max_deviation")
        .value(c.max_deviation)
        .key("linear")
        .value(c.linear)
        .key("why")
        .value(log_every_why(c));
    o.key("points").begin_array();
    for (const auto& p : c.points) {
      o.begin_object();
      o.key("every");
      if (p.every)
        o.value(static_cast<uint64_t>(p.every));
      else
        o.value("never");
      o.key("kept").value(p.kept).key("kept_per_window").value(p.kept_per_step);
      o.key("predicted_us").value(p.predicted_ns / 1000).key("extrapolated").value(p.extrapolated);
      o.end_object();
    }
    o.end_array();
    o.end_object();
  }
  o.end_array();
  o.key("notes").begin_array();
  for (const auto& n : replay_notes(rep)) o.value(n);
  o.end_array();
  o.end_object();
}

}  // namespace trace
