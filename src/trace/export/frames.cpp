#include "trace/export/frames.h"

#include <cmath>

#include "trace/analyze/blocking_calls.h"
#include "trace/export/call_sites_out.h"
#include "trace/export/output_schema.h"
#include "trace/model/units.h"

namespace trace {
namespace {

// One row per step and one for the whole trace ("step" is the step's name, or "total").
void step_rows(const StepFigures& f, bool total, ColumnTable* t) {
  const Attribution& a = f.a;
  t->text("step", f.name);
  t->flag("is_total", total);
  t->f64("start_us", us(f.start_ns));
  t->f64("wall_us", us(f.wall_ns));
  t->i64("phase_steps", static_cast<int64_t>(a.steps));
  t->i64("launches", static_cast<int64_t>(a.launches));
  t->f64("launch_api_us", us(a.launch_api_ns));
  t->i64("kernels", static_cast<int64_t>(a.kernels));
  t->f64("kernel_us", us(a.kernel_ns));
  t->f64("gpu_busy_us", us(a.gpu_busy_ns));
  t->f64("gpu_idle_us", us(a.gpu_idle_ns()));
  t->i64("memcpys", static_cast<int64_t>(a.memcpys));
  t->f64("memcpy_gpu_us", us(a.memcpy_gpu_ns));
  t->i64("memsets", static_cast<int64_t>(a.memsets));
  t->i64("syncs", static_cast<int64_t>(a.syncs));
  t->f64("sync_api_us", us(a.sync_api_ns));
  t->i64("blocking_copies", static_cast<int64_t>(a.blocking_copies));
  t->f64("blocking_copy_us", us(a.blocking_copy_ns));
  t->i64("nonblocking_copies", static_cast<int64_t>(a.nonblocking_copies));
  t->f64("nonblocking_copy_us", us(a.nonblocking_copy_ns));
  t->f64("memcpy_api_us", us(a.memcpy_api_ns));
  t->f64("blocked_us", us(a.blocked_ns));
  t->f64("host_rest_us", static_cast<double>(a.host_rest_ns()) / 1000.0);
  t->f64("idle_host_wait_us", us(a.idle_host_wait_ns));
  t->f64("idle_kernel_wait_us", us(a.idle_kernel_wait_ns));
  t->f64("idle_other_us", us(a.idle_other_ns));
  t->text("queue_regime", to_string(f.queue.regime));
}

void idle_rows(const StepFigures& f, ColumnTable* t) {
  const std::pair<const char*, uint64_t> causes[] = {{"host_wait", f.a.idle_host_wait_ns},
                                                     {"kernel_wait", f.a.idle_kernel_wait_ns},
                                                     {"other", f.a.idle_other_ns}};
  const double window = static_cast<double>(f.a.window_ns);
  for (const auto& [cause, ns] : causes) {
    t->text("step", f.name);
    t->text("cause", cause);
    t->f64("idle_us", us(ns));
    t->f64("share_of_window", window > 0 ? static_cast<double>(ns) / window : 0.0);
  }
}

void copy_rows(const StepFigures& f, ColumnTable* t) {
  for (const auto& [kind, c] : f.a.memcpy_by_kind) {
    t->text("step", f.name);
    t->text("kind", kind);
    t->i64("count", static_cast<int64_t>(c.count));
    t->i64("bytes", static_cast<int64_t>(c.bytes));
    t->f64("gpu_us", us(c.gpu_ns));
  }
}

void delay_rows(const StepFigures& f, ColumnTable* t) {
  const Distribution& d = f.a.launch_delay;
  t->text("step", f.name);
  t->i64("count", static_cast<int64_t>(d.count));
  t->f64("mean_us", d.mean / 1000), t->f64("min_us", d.min / 1000);
  t->f64("p50_us", d.p50 / 1000), t->f64("p90_us", d.p90 / 1000);
  t->f64("p99_us", d.p99 / 1000), t->f64("max_us", d.max / 1000);
}

// One row per call site (call_sites.h); `cost` names the time column.
void site_rows(const RecordSet& r, const std::vector<SiteRow>& rows, const char* cost,
               ColumnTable* t) {
  const auto frame = [&](const char* column, uint32_t n) {
    if (n == kNoFrame)
      t->missing_text(column);
    else
      t->text(column, r.frame_names[n]);
  };
  for (const auto& s : rows) {
    t->text("site", site_label(r, s));
    frame("caller", s.caller), frame("callee", s.callee), frame("user_frame", s.user);
    frame("module", s.module);
    t->text("op", s.op);
    t->i64("order", s.order), t->i64("calls", static_cast<int64_t>(s.calls));
    t->i64("occurrences", static_cast<int64_t>(s.occurrences));
    t->f64(cost, us(s.blocked_ns)), t->f64("gpu_queued_us", us(s.gpu_queued_ns));
    t->i64("steps", static_cast<int64_t>(s.steps));
  }
}

void time_stats(const std::string& p, const TimeStats& s, ColumnTable* t) {
  t->i64(p + "_count", static_cast<int64_t>(s.count));
  t->f64(p + "_total_us", us(s.total_ns));
  t->f64(p + "_mean_us", s.mean_ns() / 1000);
  t->f64(p + "_median_us", s.median_ns / 1000);
  t->f64(p + "_min_us", us(s.min_ns));
  t->f64(p + "_max_us", us(s.max_ns));
}

void blocking_call_rows(const TraceReport& rep, ColumnTable* calls) {
  const RecordSet& r = rep.trace->records;
  const SiteReport& sites = rep.sites;
  for (size_t i = 0; i < rep.syncs.calls.size(); ++i) {
    const SyncCall& c = rep.syncs.calls[i];
    calls->text("api", c.api);
    calls->text("kind", blocking_label(c.kind));
    if (c.kind == Blocking::Sync)
      calls->missing_text("reason");
    else
      calls->text("reason", blocking_reason(c.kind));
    calls->text("op", c.op), calls->text("op_path", c.op_path);
    if (c.step >= 0)
      calls->text("step", r.steps[c.step].name);
    else
      calls->missing_text("step");
    calls->i64("thread", c.thread_id);
    calls->f64("start_us", us(c.start_ns)), calls->f64("blocked_us", us(c.blocked_ns));
    calls->f64("gpu_queued_us", us(c.gpu_queued_ns));
    calls->i64("queue_depth", static_cast<int64_t>(c.queue_depth));
    calls->i64("drained", static_cast<int64_t>(c.drained));
    calls->f64("gpu_idle_after_us", us(c.idle_after_ns));
    calls->text("regime", to_string(c.regime));
    // Where it was made: its site's label, its caller frame, its stack (outermost first).
    const int32_t row = i < sites.site_of_call.size() ? sites.site_of_call[i] : -1;
    if (row >= 0 && sites.stacks != SiteReport::Stacks::None)
      calls->text("site", site_label(r, sites.sites[static_cast<size_t>(row)]));
    else
      calls->missing_text("site");
    const CallSite* cs = i < sites.calls.size() ? &sites.calls[i] : nullptr;
    if (cs && cs->caller >= 0)
      calls->text("caller", r.frame_names[cs->stack[static_cast<size_t>(cs->caller)]]);
    else
      calls->missing_text("caller");
    if (cs && !cs->stack.empty()) {
      std::string stack;
      for (uint32_t n : cs->stack) stack += (stack.empty() ? "" : " > ") + r.frame_names[n];
      calls->text("stack", stack);
    } else {
      calls->missing_text("stack");
    }
  }
}

void window_rows(const replay::ScenarioResult& s, ColumnTable* t) {
  const auto row = [&](const replay::StepResult& w, bool total) {
    t->text("scenario", s.name);
    t->text("window", w.name);
    t->flag("is_total", total);
    t->f64("measured_us", us(w.measured_ns));
    t->f64("replayed_us", us(w.replayed_ns));
    t->f64("predicted_us", us(w.predicted_ns));
    t->text("bound_by", w.bound.empty() ? std::string() : w.bound.front().resource);
  };
  for (const auto& w : s.steps) row(w, false);
  row(s.total, true);
}

// The frames named, each with its declared columns (output_schema.h), ready to fill.
std::map<std::string, ColumnTable> declared(std::initializer_list<const char*> names) {
  std::map<std::string, ColumnTable> out;
  for (const char* n : names) out[n] = schema::empty_frame(schema::table(n));
  return out;
}

// The filled frames still hold exactly their declared columns, in order.
std::map<std::string, ColumnTable> checked(std::map<std::string, ColumnTable> frames) {
  for (const auto& [name, t] : frames) schema::check_frame(schema::table(name), t);
  return frames;
}

}  // namespace

std::map<std::string, ColumnTable> report_frames(const TraceReport& rep) {
  auto out = declared({"steps", "idle", "copies", "launch_delays", "blocking_calls", "call_sites",
                       "would_sync", "syncs_by_cause", "kernels"});
  ColumnTable& steps = out["steps"];
  ColumnTable& idle = out["idle"];
  ColumnTable& copies = out["copies"];
  ColumnTable& delays = out["launch_delays"];
  for (const auto& s : rep.steps) {
    step_rows(s, false, &steps), idle_rows(s, &idle), copy_rows(s, &copies);
    delay_rows(s, &delays);
  }
  step_rows(rep.total, true, &steps), idle_rows(rep.total, &idle), copy_rows(rep.total, &copies);
  delay_rows(rep.total, &delays);

  blocking_call_rows(rep, &out["blocking_calls"]);
  const SiteReport& sites = rep.sites;
  const RecordSet& r = rep.trace->records;
  if (sites.stacks != SiteReport::Stacks::None)
    site_rows(r, sites.sites, "blocked_us", &out["call_sites"]);
  site_rows(r, sites.would_sync_sites, "host_us", &out["would_sync"]);
  ColumnTable& causes = out["syncs_by_cause"];
  for (const auto& c : rep.syncs.by_cause) {
    causes.text("op", c.op);
    causes.i64("calls", static_cast<int64_t>(c.calls));
    causes.i64("op_occurrences", static_cast<int64_t>(c.op_occurrences));
    causes.f64("sync_us", us(c.sync_ns)), causes.f64("blocking_copy_us", us(c.blocking_copy_ns));
    causes.f64("blocked_us", us(c.blocked_ns)), causes.f64("gpu_queued_us", us(c.gpu_queued_ns));
  }
  ColumnTable& kernels = out["kernels"];
  for (const auto& k : rep.kernels.by_name) {
    kernels.text("name", k.name);
    time_stats("api", k.api, &kernels), time_stats("queue", k.queue, &kernels);
    time_stats("kernel", k.kernel, &kernels);
  }
  return checked(std::move(out));
}

std::map<std::string, ColumnTable> replay_frames(const replay::ReplayReport& report) {
  auto out = declared({"windows"});
  ColumnTable& windows = out["windows"];
  window_rows(report.replay, &windows);
  for (const auto& s : report.what_ifs) window_rows(s, &windows);
  return checked(std::move(out));
}

std::map<std::string, ColumnTable> diff_frames(const TraceDiff& d) {
  auto out = declared({"diff_rows", "diff_predictions"});
  ColumnTable& rows = out["diff_rows"];
  for (const auto& s : d.sections)
    for (const auto& r : s.rows) {
      rows.text("section", s.name), rows.text("item", r.item), rows.text("figure", r.figure);
      rows.f64("a", r.a), rows.f64("b", r.b), rows.f64("diff", r.diff());
      rows.f64("ratio", r.ratio().value_or(std::nan("")));
    }
  ColumnTable& p = out["diff_predictions"];
  for (const auto& x : d.predictions) {
    p.text("scenario", x.scenario), p.text("window", x.window);
    p.f64("a_measured_us", x.a_measured_us), p.f64("predicted_us", x.predicted_us);
    p.f64("b_measured_us", x.b_measured_us), p.f64("error", x.error().value_or(std::nan("")));
  }
  return checked(std::move(out));
}

}  // namespace trace
