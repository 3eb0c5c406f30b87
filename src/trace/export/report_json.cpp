#include "trace/export/report_json.h"

#include "trace/export/advice_out.h"
#include "trace/export/call_sites_out.h"
#include "trace/export/diagnosis_out.h"
#include "trace/export/graph_breaks_out.h"
#include "trace/model/units.h"

namespace trace {

namespace {

const char* drain_advice_label(DrainAdvice a) {
  switch (a) {
    case DrainAdvice::OwnCost:
      return "blocked time";
    case DrainAdvice::WaitMoves:
      return "GPU idle after";
    case DrainAdvice::Mixed:
      return "mixed";
    case DrainAdvice::NoGpuWork:
      break;
  }
  return "no GPU work";
}

void depth_json(JsonOut& o, const QueueDepth& d) {
  o.key("empty_share").value(d.empty_share()).key("empty_us").value(us(d.empty_ns));
  o.key("depth_p50").value(static_cast<uint64_t>(d.p50));
  o.key("depth_p90").value(static_cast<uint64_t>(d.p90));
  o.key("depth_max").value(static_cast<uint64_t>(d.max));
}

// The launch queue of one window (launch_queue.h); streams only where they were computed.
void queue_json(JsonOut& o, const QueueFigures& q, bool streams) {
  o.key("queue").begin_object();
  o.key("regime").value(to_string(q.regime));
  o.key("gpus").begin_array();
  for (const auto& g : q.gpus) {
    o.begin_object().key("device").value(static_cast<uint64_t>(g.device));
    o.key("pieces").value(g.pieces);
    depth_json(o, g.depth);
    o.key("full_queue_calls").value(g.full_queue_calls);
    o.key("full_queue_us").value(us(g.full_queue_ns));
    o.end_object();
  }
  o.end_array();
  if (streams) {
    o.key("streams").begin_array();
    for (const auto& s : q.streams) {
      o.begin_object().key("device").value(static_cast<uint64_t>(s.device));
      o.key("stream").value(static_cast<uint64_t>(s.stream));
      depth_json(o, s.depth);
      o.end_object();
    }
    o.end_array();
  }
  o.end_object();
}

void time_stats_json(JsonOut& o, const char* key, const TimeStats& t) {
  o.key(key).begin_object();
  o.key("count").value(t.count).key("total").value(us(t.total_ns));
  o.key("mean").value(t.mean_ns() / 1000).key("median").value(t.median_ns / 1000);
  o.key("min").value(us(t.min_ns)).key("max").value(us(t.max_ns));
  o.end_object();
}

void figures_json(JsonOut& o, const StepFigures& f) {
  const Attribution& a = f.a;
  o.key("name").value(f.name);
  o.key("start_us").value(us(f.start_ns));
  o.key("wall_us").value(us(f.wall_ns));
  o.key("launches").value(a.launches);
  o.key("launch_api_us").value(us(a.launch_api_ns));
  o.key("kernels").value(a.kernels);
  o.key("kernel_us").value(us(a.kernel_ns));
  o.key("gpu_busy_us").value(us(a.gpu_busy_ns));
  o.key("memcpys").value(a.memcpys);
  o.key("memcpy_gpu_us").value(us(a.memcpy_gpu_ns));
  o.key("memcpy_by_kind").begin_object();
  for (const auto& [kind, c] : a.memcpy_by_kind) {
    o.key(kind).begin_object();
    o.key("count").value(c.count).key("bytes").value(c.bytes).key("gpu_us").value(us(c.gpu_ns));
    o.end_object();
  }
  o.end_object();
  o.key("memsets").value(a.memsets);
  // Host calls, one definition each (blocking_calls.h); wall = launch + sync + blocking copies
  // + host_rest_us.
  o.key("syncs").value(a.syncs);
  o.key("sync_api_us").value(us(a.sync_api_ns));
  o.key("blocking_copies").value(a.blocking_copies);
  o.key("blocking_copy_us").value(us(a.blocking_copy_ns));
  o.key("blocking_copies_by_reason").begin_object();
  o.key("not Async")
      .begin_object()
      .key("calls")
      .value(a.copies_not_async)
      .key("us")
      .value(us(a.copy_not_async_ns))
      .end_object();
  o.key("pageable")
      .begin_object()
      .key("calls")
      .value(a.copies_pageable)
      .key("us")
      .value(us(a.copy_pageable_ns))
      .end_object();
  o.end_object();
  o.key("nonblocking_copies").value(a.nonblocking_copies);
  o.key("nonblocking_copy_us").value(us(a.nonblocking_copy_ns));
  o.key("memcpy_api_us").value(us(a.memcpy_api_ns));
  o.key("blocked_us").value(us(a.blocked_ns));
  o.key("host_rest_us").value(static_cast<double>(a.host_rest_ns()) / 1000.0);
  o.key("idle_host_wait_us").value(us(a.idle_host_wait_ns));
  o.key("idle_kernel_wait_us").value(us(a.idle_kernel_wait_ns));
  o.key("idle_other_us").value(us(a.idle_other_ns));
  o.key("launch_delay_us").begin_object();
  o.key("count").value(a.launch_delay.count);
  o.key("p50").value(a.launch_delay.p50 / 1000).key("p90").value(a.launch_delay.p90 / 1000);
  o.key("p99").value(a.launch_delay.p99 / 1000).key("max").value(a.launch_delay.max / 1000);
  o.end_object();
}

}  // namespace

// one piece: one JSON object, its fields in the order output_schema declares them
void write_report_json(JsonOut& o, const TraceReport& rep) {
  const ImportedTrace& t = *rep.trace;
  const RecordSet& r = t.records;
  const bool gpu = !(r.kernels.empty() && r.memcpys.empty() && r.memsets.empty());
  o.begin_object();
  o.key("file").value(t.file);
  o.key("rank").value(t.rank);
  o.key("gpu_events").value(gpu);
  o.key("clock").value(r.clock);
  o.key("events").value(t.events);
  o.key("json_bytes").value(t.bytes);
  o.key("steps").begin_array();
  for (const auto& s : rep.steps) {
    o.begin_object();
    figures_json(o, s);
    queue_json(o, s.queue, false);
    o.end_object();
  }
  o.end_array();
  o.key("total").begin_object();
  figures_json(o, rep.total);
  queue_json(o, rep.total.queue, true);
  o.end_object();
  const QueueOptions& qo = rep.queue_options;
  o.key("queue_rule").begin_object();
  o.key("max_queue").value(static_cast<uint64_t>(qo.max_queue));
  o.key("launch_bound_empty_share").value(qo.launch_bound_empty_share);
  o.key("gpu_bound_empty_share").value(qo.gpu_bound_empty_share);
  o.key("gpu_bound_median_depth").value(static_cast<uint64_t>(qo.gpu_bound_median_depth));
  o.end_object();
  const double steps_wall = static_cast<double>(rep.steps_wall_ns);
  o.key("blocking_calls").begin_object();
  o.key("syncs").value(rep.syncs.syncs).key("sync_us").value(us(rep.syncs.sync_ns));
  o.key("blocking_copies")
      .value(rep.syncs.blocking_copies)
      .key("blocking_copy_us")
      .value(us(rep.syncs.blocking_copy_ns));
  o.key("blocked_us").value(us(rep.syncs.blocked_ns));
  o.end_object();
  o.key("syncs_by_cause").begin_array();
  for (const auto& c : rep.syncs.by_cause) {
    o.begin_object();
    o.key("op")
        .value(c.op)
        .key("calls")
        .value(c.calls)
        .key("op_occurrences")
        .value(c.op_occurrences);
    o.key("sync_us").value(us(c.sync_ns)).key("blocking_copy_us").value(us(c.blocking_copy_ns));
    o.key("blocked_us").value(us(c.blocked_ns));
    o.key("share_of_steps")
        .value(steps_wall > 0 ? static_cast<double>(c.blocked_ns) / steps_wall : 0.0);
    o.key("gpu_queued_us").value(us(c.gpu_queued_ns));
    o.key("queue_depth_p50").value(c.queue_depth_p50);
    o.key("queue_depth_max").value(c.queue_depth_max);
    o.key("drained").value(c.drained);
    o.key("gpu_idle_after_us").value(us(c.idle_after_ns));
    o.key("saving_estimate_us").value(us(c.saving_estimate_ns));
    o.key("regime").value(to_string(c.regime));
    o.key("saving_estimate_by").value(drain_advice_label(c.advice));
    o.end_object();
  }
  o.end_array();
  write_call_sites_json(o, rep);
  write_graph_breaks_json(o, rep);
  write_diagnosis_json(o, rep.diagnosis);
  write_advice_json(o, rep);
  o.key("syncs").begin_array();
  for (size_t i = 0; i < rep.syncs.calls.size(); ++i) {
    const SyncCall& c = rep.syncs.calls[i];
    o.begin_object();
    o.key("api").value(c.api).key("kind").value(blocking_label(c.kind));
    o.key("reason");
    if (c.kind == Blocking::Sync)
      o.null();
    else
      o.value(blocking_reason(c.kind));
    o.key("op").value(c.op).key("op_path").value(c.op_path);
    o.key("step");
    if (c.step >= 0)
      o.value(r.steps[c.step].name);
    else
      o.null();
    o.key("thread").value(static_cast<uint64_t>(c.thread_id));
    o.key("start_us").value(us(c.start_ns)).key("blocked_us").value(us(c.blocked_ns));
    o.key("gpu_queued_us").value(us(c.gpu_queued_ns));
    o.key("queue_depth").value(c.queue_depth).key("drained").value(c.drained);
    o.key("gpu_idle_after_us").value(us(c.idle_after_ns));
    o.key("regime").value(to_string(c.regime));
    write_call_site_of(o, rep, i);
    o.end_object();
  }
  o.end_array();
  o.key("queue_timeline").begin_object();  // step_report.h: one step's depth, for a plot
  o.key("window").value(rep.timeline_window);
  o.key("start_us").value(us(rep.timeline_start_ns));
  o.key("wall_us").value(us(rep.timeline_end_ns - rep.timeline_start_ns));
  o.key("gpus").begin_array();
  for (const auto& g : rep.timeline) {
    o.begin_object().key("device").value(static_cast<uint64_t>(g.device));
    o.key("t_us").begin_array();  // from the window's start
    for (uint64_t t : g.t) o.value(us(t - rep.timeline_start_ns));
    o.end_array();
    o.key("depth").begin_array();
    for (uint32_t d : g.depth) o.value(static_cast<uint64_t>(d));
    o.end_array();
    o.key("truncated").value(g.truncated);
    o.end_object();
  }
  o.end_array();
  o.end_object();
  o.key("kernels_by_name").begin_array();
  for (const auto& k : rep.kernels.by_name) {
    o.begin_object().key("name").value(k.name);
    time_stats_json(o, "api_us", k.api);
    time_stats_json(o, "queue_us", k.queue);
    time_stats_json(o, "kernel_us", k.kernel);
    o.end_object();
  }
  o.end_array();
  o.key("kernels_without_call").value(rep.kernels.kernels_without_call);
  o.key("unmatched_correlations").value(t.unmatched_correlations);
  o.key("launches_without_gpu").value(t.launches_without_gpu);
  o.key("warnings").begin_array();
  for (const auto& w : t.warnings) o.value(w);
  o.end_array();
  o.end_object();
}

}  // namespace trace
