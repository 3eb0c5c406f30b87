#include "rank_run.h"

#include "capture/bench_names.h"
#include "trace/analyze/advice.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/export/json_out.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/byte_source.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace/import/trace_file.h"

namespace pyiris {
namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// One row per step and one for the whole trace ("step" is the step's name, or "total").
void step_rows(const trace::StepFigures& f, bool total, Table* t) {
  const trace::Attribution& a = f.a;
  t->text("step", f.name);
  t->flag("is_total", total);
  t->f64("start_us", us(f.start_ns));
  t->f64("wall_us", us(f.wall_ns));
  t->i64("epochs", static_cast<int64_t>(a.steps));
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
  t->text("queue_regime", trace::to_string(f.queue.regime));
}

void idle_rows(const trace::StepFigures& f, Table* t) {
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

void copy_rows(const trace::StepFigures& f, Table* t) {
  for (const auto& [kind, c] : f.a.memcpy_by_kind) {
    t->text("step", f.name);
    t->text("kind", kind);
    t->i64("count", static_cast<int64_t>(c.count));
    t->i64("bytes", static_cast<int64_t>(c.bytes));
    t->f64("gpu_us", us(c.gpu_ns));
  }
}

void delay_rows(const trace::StepFigures& f, Table* t) {
  const trace::Distribution& d = f.a.launch_delay;
  t->text("step", f.name);
  t->i64("count", static_cast<int64_t>(d.count));
  t->f64("mean_us", d.mean / 1000), t->f64("min_us", d.min / 1000);
  t->f64("p50_us", d.p50 / 1000), t->f64("p90_us", d.p90 / 1000);
  t->f64("p99_us", d.p99 / 1000), t->f64("max_us", d.max / 1000);
}

void declare_tables(std::map<std::string, Table>* tables) {
  using K = Column::Kind;
  Table& c = (*tables)["copies"];
  for (const char* n : {"step", "kind"}) c.declare(n, K::Text);
  c.declare("count", K::I64), c.declare("bytes", K::I64), c.declare("gpu_us", K::F64);
  Table& b = (*tables)["blocking_calls"];
  for (const char* n : {"api", "kind", "reason", "op", "op_path", "step"}) b.declare(n, K::Text);
  b.declare("thread", K::I64);
  for (const char* n : {"start_us", "blocked_us", "gpu_queued_us"}) b.declare(n, K::F64);
  b.declare("queue_depth", K::I64), b.declare("drained", K::I64);
  b.declare("gpu_idle_after_us", K::F64), b.declare("regime", K::Text);
  for (const char* n : {"site", "caller", "stack"}) b.declare(n, K::Text);
  for (const char* name : {"call_sites", "would_sync"}) {
    Table& w = (*tables)[name];
    for (const char* n : {"site", "caller", "callee", "user_frame", "module", "op"})
      w.declare(n, K::Text);
    for (const char* n : {"order", "calls", "occurrences"}) w.declare(n, K::I64);
    w.declare(std::string(name) == "call_sites" ? "blocked_us" : "host_us", K::F64);
    w.declare("gpu_queued_us", K::F64), w.declare("steps", K::I64);
  }
  Table& s = (*tables)["syncs_by_cause"];
  s.declare("op", K::Text);
  for (const char* n : {"calls", "op_occurrences"}) s.declare(n, K::I64);
  for (const char* n : {"sync_us", "blocking_copy_us", "blocked_us", "gpu_queued_us"})
    s.declare(n, K::F64);
  Table& k = (*tables)["kernels"];
  k.declare("name", K::Text);
  for (const char* p : {"api", "queue", "kernel"}) {
    const std::string q = p;
    k.declare(q + "_count", K::I64);
    for (const char* n : {"_total_us", "_mean_us", "_median_us", "_min_us", "_max_us"})
      k.declare(q + n, K::F64);
  }
}

// One row per call site (call_sites.h); `cost` names the time column.
void site_rows(const trace::RecordSet& r, const std::vector<trace::SiteRow>& rows, const char* cost,
               Table* t) {
  const auto frame = [&](const char* column, uint32_t n) {
    if (n == trace::kNoFrame)
      t->missing_text(column);
    else
      t->text(column, r.frame_names[n]);
  };
  for (const auto& s : rows) {
    t->text("site", trace::site_label(r, s));
    frame("caller", s.caller), frame("callee", s.callee), frame("user_frame", s.user);
    frame("module", s.module);
    t->text("op", s.op);
    t->i64("order", s.order), t->i64("calls", static_cast<int64_t>(s.calls));
    t->i64("occurrences", static_cast<int64_t>(s.occurrences));
    t->f64(cost, us(s.blocked_ns)), t->f64("gpu_queued_us", us(s.gpu_queued_ns));
    t->i64("steps", static_cast<int64_t>(s.steps));
  }
}

void time_stats(const std::string& p, const trace::TimeStats& s, Table* t) {
  t->i64(p + "_count", static_cast<int64_t>(s.count));
  t->f64(p + "_total_us", us(s.total_ns));
  t->f64(p + "_mean_us", s.mean_ns() / 1000);
  t->f64(p + "_median_us", s.median_ns / 1000);
  t->f64(p + "_min_us", us(s.min_ns));
  t->f64(p + "_max_us", us(s.max_ns));
}

}  // namespace

std::vector<std::string> expand_paths(const std::vector<std::string>& paths) {
  return trace::expand_trace_paths(paths);
}

RankRun run_rank(const std::string& path, const RankOptions& options) {
  trace::ImportOptions io;            // as ./attribute without --hta or --replay
  io.step_phase = bench::kStepPhase;  // bench's own files: each epoch is a step
  io.phase_domain = bench::kPhaseDomain;
  io.kernel_name_ids = true;
  trace::ImportedTrace t = trace::import_file(path, io);
  if (!options.step_range.empty() && trace::use_step_ranges(&t, options.step_range) == 0)
    throw trace::InputError(path + ": no host range named " + options.step_range +
                            " (--step-range)");
  trace::TraceReport rep = trace::build_report(t);
  trace::add_advice(&rep, options.advice < 0    ? trace::AdviceMode::BySize
                          : options.advice == 0 ? trace::AdviceMode::Off
                                                : trace::AdviceMode::On);
  RankRun out;
  out.file = t.file, out.rank = t.rank, out.format = t.format, out.bytes = t.bytes;
  out.text = trace::report_table(rep) + "\n";
  trace::JsonOut j;
  trace::write_report_json(j, rep);
  out.json = j.str();

  declare_tables(&out.tables);
  Table& steps = out.tables["steps"];
  Table& idle = out.tables["idle"];
  Table& copies = out.tables["copies"];
  Table& delays = out.tables["launch_delays"];
  for (const auto& s : rep.steps) {
    step_rows(s, false, &steps), idle_rows(s, &idle), copy_rows(s, &copies);
    delay_rows(s, &delays);
  }
  step_rows(rep.total, true, &steps), idle_rows(rep.total, &idle), copy_rows(rep.total, &copies);
  delay_rows(rep.total, &delays);

  Table& calls = out.tables["blocking_calls"];
  const trace::SiteReport& sites = rep.sites;
  for (size_t i = 0; i < rep.syncs.calls.size(); ++i) {
    const trace::SyncCall& c = rep.syncs.calls[i];
    calls.text("api", c.api);
    calls.text("kind", trace::blocking_label(c.kind));
    if (c.kind == trace::Blocking::Sync)
      calls.missing_text("reason");
    else
      calls.text("reason", trace::blocking_reason(c.kind));
    calls.text("op", c.op), calls.text("op_path", c.op_path);
    if (c.step >= 0)
      calls.text("step", t.records.steps[c.step].name);
    else
      calls.missing_text("step");
    calls.i64("thread", c.thread_id);
    calls.f64("start_us", us(c.start_ns)), calls.f64("blocked_us", us(c.blocked_ns));
    calls.f64("gpu_queued_us", us(c.gpu_queued_ns));
    calls.i64("queue_depth", static_cast<int64_t>(c.queue_depth));
    calls.i64("drained", static_cast<int64_t>(c.drained));
    calls.f64("gpu_idle_after_us", us(c.idle_after_ns));
    calls.text("regime", trace::to_string(c.regime));
    // Where it was made: its site's label, its caller frame, its stack (outermost first).
    const int32_t row = i < sites.site_of_call.size() ? sites.site_of_call[i] : -1;
    if (row >= 0 && sites.stacks != trace::SiteReport::Stacks::None)
      calls.text("site", trace::site_label(t.records, sites.sites[static_cast<size_t>(row)]));
    else
      calls.missing_text("site");
    const trace::CallSite* cs = i < sites.calls.size() ? &sites.calls[i] : nullptr;
    if (cs && cs->caller >= 0)
      calls.text("caller", t.records.frame_names[cs->stack[static_cast<size_t>(cs->caller)]]);
    else
      calls.missing_text("caller");
    if (cs && !cs->stack.empty()) {
      std::string stack;
      for (uint32_t n : cs->stack) stack += (stack.empty() ? "" : " > ") + t.records.frame_names[n];
      calls.text("stack", stack);
    } else {
      calls.missing_text("stack");
    }
  }
  if (sites.stacks != trace::SiteReport::Stacks::None)
    site_rows(t.records, sites.sites, "blocked_us", &out.tables["call_sites"]);
  site_rows(t.records, sites.would_sync_sites, "host_us", &out.tables["would_sync"]);
  Table& causes = out.tables["syncs_by_cause"];
  for (const auto& c : rep.syncs.by_cause) {
    causes.text("op", c.op);
    causes.i64("calls", static_cast<int64_t>(c.calls));
    causes.i64("op_occurrences", static_cast<int64_t>(c.op_occurrences));
    causes.f64("sync_us", us(c.sync_ns)), causes.f64("blocking_copy_us", us(c.blocking_copy_ns));
    causes.f64("blocked_us", us(c.blocked_ns)), causes.f64("gpu_queued_us", us(c.gpu_queued_ns));
  }
  Table& kernels = out.tables["kernels"];
  for (const auto& k : rep.kernels.by_name) {
    kernels.text("name", k.name);
    time_stats("api", k.api, &kernels), time_stats("queue", k.queue, &kernels);
    time_stats("kernel", k.kernel, &kernels);
  }
  return out;  // the records go with t here
}

}  // namespace pyiris
