#include "trace/step_report.h"

#include <algorithm>
#include <cstdio>
#include <future>

namespace trace {

TraceReport build_report(const ImportedTrace& t, const AttributionOptions& options) {
  TraceReport rep;
  rep.trace = &t;
  const RecordSet& r = t.records;
  // The syncs need none of the attribution: found on a second core meanwhile.
  auto syncs = std::async(std::launch::async, [&r] { return find_syncs(r); });
  const AttributionIndex index(r);
  // Our own files' epoch ranges, by start: a step that holds epochs is attributed over them.
  std::vector<std::pair<uint64_t, uint64_t>> epochs;
  for (const auto& h : r.ranges)
    if (h.name == "epoch") epochs.push_back({h.start_ns, h.end_ns});
  std::sort(epochs.begin(), epochs.end());
  const auto holds_epoch = [&](uint64_t from, uint64_t to) {
    for (auto it = std::lower_bound(epochs.begin(), epochs.end(), std::make_pair(from, uint64_t{0}));
         it != epochs.end() && it->first <= to; ++it)
      if (it->second <= to) return true;
    return false;
  };
  rep.steps.resize(r.steps.size());
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const StepWindow& w = r.steps[i];
    StepFigures& f = rep.steps[i];
    f.name = w.name;
    f.start_ns = w.start_ns;
    f.wall_ns = w.end_ns - w.start_ns;
    AttributionOptions in_step = options;  // the step is the window (unless it holds our epochs)
    if (!holds_epoch(w.start_ns, w.end_ns)) in_step.window = {w.start_ns, w.end_ns};
    f.a = index.attribute(in_step, w.start_ns, w.end_ns);
    rep.steps_wall_ns += f.wall_ns;
  }
  rep.total.name = "total";
  if (!epochs.empty()) {
    rep.total.a = index.attribute(options);  // our own files: first to last epoch, as bench does
  } else {
    // A Kineto trace: the whole recorded span, host ops and annotations included (attribute()
    // alone would take only the CUDA records' span).
    uint64_t lo = UINT64_MAX, hi = 0;
    const auto see = [&](uint64_t s, uint64_t e) { lo = std::min(lo, s), hi = std::max(hi, e); };
    for (const auto& x : r.api) see(x.start_ns, x.end_ns);
    for (const auto& x : r.kernels) see(x.start_ns, x.end_ns);
    for (const auto& x : r.memcpys) see(x.start_ns, x.end_ns);
    for (const auto& x : r.memsets) see(x.start_ns, x.end_ns);
    for (const auto& x : r.cpu_ops) see(x.start_ns, x.end_ns);
    for (const auto& x : r.annotations) see(x.start_ns, x.end_ns);
    for (const auto& x : r.steps) see(x.start_ns, x.end_ns);
    rep.total.start_ns = lo <= hi ? lo : 0;
    if (lo <= hi) {
      AttributionOptions whole = options;
      whole.window = {lo, hi};
      rep.total.a = index.attribute(whole);
    }
  }
  rep.total.wall_ns = rep.total.a.window_ns;
  if (r.kernels.empty() && r.memcpys.empty() && r.memsets.empty()) {
    // No GPU events: the host figures stand; a GPU idle split would only restate the window.
    for (auto* f : {&rep.total}) f->a.idle_host_wait_ns = f->a.idle_kernel_wait_ns = f->a.idle_other_ns = 0;
    for (auto& f : rep.steps) f.a.idle_host_wait_ns = f.a.idle_kernel_wait_ns = f.a.idle_other_ns = 0;
  }
  if (rep.steps.empty()) rep.steps_wall_ns = rep.total.wall_ns;
  rep.syncs = syncs.get();
  return rep;
}

namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

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
  o.key("sync_api_us").value(us(a.sync_api_ns));
  o.key("memcpy_api_us").value(us(a.memcpy_api_ns));
  o.key("blocked_us").value(us(a.blocked_ns));
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
    o.end_object();
  }
  o.end_array();
  o.key("total").begin_object();
  figures_json(o, rep.total);
  o.end_object();
  const double steps_wall = static_cast<double>(rep.steps_wall_ns);
  o.key("syncs_by_cause").begin_array();
  for (const auto& c : rep.syncs.by_cause) {
    o.begin_object();
    o.key("op").value(c.op).key("calls").value(c.calls).key("api_calls").value(c.api_calls);
    o.key("blocked_us").value(us(c.blocked_ns));
    o.key("share_of_steps").value(steps_wall > 0 ? static_cast<double>(c.blocked_ns) / steps_wall : 0.0);
    o.key("gpu_queued_us").value(us(c.gpu_queued_ns));
    o.end_object();
  }
  o.end_array();
  o.key("syncs").begin_array();
  for (const auto& c : rep.syncs.calls) {
    o.begin_object();
    o.key("api").value(c.api).key("op").value(c.op).key("op_path").value(c.op_path);
    o.key("step");
    if (c.step >= 0) o.value(r.steps[c.step].name);
    else o.null();
    o.key("thread").value(static_cast<uint64_t>(c.thread_id));
    o.key("start_us").value(us(c.start_ns)).key("blocked_us").value(us(c.blocked_ns));
    o.key("gpu_queued_us").value(us(c.gpu_queued_ns));
    o.end_object();
  }
  o.end_array();
  o.key("unmatched_correlations").value(t.unmatched_correlations);
  o.key("launches_without_gpu").value(t.launches_without_gpu);
  o.key("warnings").begin_array();
  for (const auto& w : t.warnings) o.value(w);
  o.end_array();
  o.end_object();
}

std::string report_table(const TraceReport& rep) {
  const ImportedTrace& t = *rep.trace;
  std::string out;
  char line[512];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("%s  (rank %lld, %llu events, %.1f MB of JSON, clock %s)\n", t.file.c_str(), static_cast<long long>(t.rank),
      static_cast<unsigned long long>(t.events), static_cast<double>(t.bytes) / 1e6, t.records.clock.c_str());
  for (const auto& w : t.warnings) add("  note: %s\n", w.c_str());
  add("\n  %-20s %10s %8s %10s %7s %10s %10s %10s %10s %10s %10s %9s %9s\n", "step", "wall us", "launch", "launch us",
      "kernels", "kernel us", "busy us", "blocked us", "idle host", "idle kern", "idle oth", "delay p50", "delay p90");
  const auto row = [&](const StepFigures& f) {
    const Attribution& a = f.a;
    add("  %-20.20s %10.1f %8llu %10.1f %7llu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %9.1f %9.1f\n", f.name.c_str(),
        us(f.wall_ns), static_cast<unsigned long long>(a.launches), us(a.launch_api_ns),
        static_cast<unsigned long long>(a.kernels), us(a.kernel_ns), us(a.gpu_busy_ns), us(a.blocked_ns),
        us(a.idle_host_wait_ns), us(a.idle_kernel_wait_ns), us(a.idle_other_ns), a.launch_delay.p50 / 1000,
        a.launch_delay.p90 / 1000);
  };
  for (const auto& s : rep.steps) row(s);
  row(rep.total);
  if (!rep.total.a.memcpy_by_kind.empty()) {
    out += "\n  copies (whole trace):";
    for (const auto& [kind, c] : rep.total.a.memcpy_by_kind)
      add("  %s %llu (%llu B, %.1f us)", kind.c_str(), static_cast<unsigned long long>(c.count),
          static_cast<unsigned long long>(c.bytes), us(c.gpu_ns));
    out += "\n";
  }
  add("\n  blocking syncs, by the innermost op that issued them (%zu calls, %.1f us blocked):\n", rep.syncs.calls.size(),
      us(rep.syncs.blocked_ns));
  if (rep.syncs.by_cause.empty()) out += "    none\n";
  const double wall = static_cast<double>(rep.steps_wall_ns);
  for (const auto& c : rep.syncs.by_cause)
    add("    %-40.40s %5llu calls %10.1f us blocked  %5.1f%% of the %s  GPU busy meanwhile %.1f us\n", c.op.c_str(),
        static_cast<unsigned long long>(c.calls), us(c.blocked_ns),
        wall > 0 ? 100.0 * static_cast<double>(c.blocked_ns) / wall : 0.0, rep.steps.empty() ? "trace" : "steps",
        us(c.gpu_queued_ns));
  return out;
}

}  // namespace trace
