#include "trace/export/report_text.h"

#include <cstdio>

#include "trace/export/advice_out.h"
#include "trace/export/call_sites_out.h"
#include "trace/export/diagnosis_out.h"
#include "trace/export/graph_breaks_out.h"
#include "trace/model/units.h"

namespace trace {

namespace {

// Per step and for the trace, each GPU's launch queue and the step's regime (launch_queue.h).
std::string queue_table(const TraceReport& rep) {
  bool any = false;
  for (const auto& g : rep.total.queue.gpus) any |= g.pieces > 0;
  if (!any) return "\n  launch queue: no GPU work\n";
  std::string out;
  char line[512];
  const QueueOptions& o = rep.queue_options;
  std::snprintf(line, sizeof line,
                "\n  launch queue (work queued and not finished, per GPU; launch-bound: empty >= "
                "%.0f%%, GPU-bound: empty < %.0f%% and depth p50 >= %u):\n",
                100 * o.launch_bound_empty_share, 100 * o.gpu_bound_empty_share,
                o.gpu_bound_median_depth);
  out += line;
  std::snprintf(line, sizeof line, "  %-20s %4s %8s %8s %6s %6s %6s %10s %12s  %s\n", "step", "gpu",
                "pieces", "empty %", "p50", "p90", "max", "full calls", "full-queue us", "regime");
  out += line;
  const auto rows = [&](const StepFigures& f) {
    for (const auto& g : f.queue.gpus) {
      std::snprintf(line, sizeof line, "  %-20.20s %4u %8llu %8.1f %6u %6u %6u %10llu %12.1f  %s\n",
                    f.name.c_str(), g.device, static_cast<unsigned long long>(g.pieces),
                    100 * g.depth.empty_share(), g.depth.p50, g.depth.p90, g.depth.max,
                    static_cast<unsigned long long>(g.full_queue_calls), us(g.full_queue_ns),
                    to_string(f.queue.regime));
      out += line;
    }
  };
  for (const auto& s : rep.steps) rows(s);
  rows(rep.total);
  return out;
}

// One line for the per-kernel table of the JSON (kernel_times.h).
std::string kernel_times_line(const KernelTimesTable& k) {
  if (k.by_name.empty() && !k.kernels_without_call) return "";
  uint64_t n = 0, queued = 0, api = 0, queue = 0, kernel = 0;
  for (const auto& t : k.by_name)
    n += t.kernel.count, queued += t.queue.count, api += t.api.total_ns, queue += t.queue.total_ns,
        kernel += t.kernel.total_ns;
  char line[768];
  std::snprintf(line, sizeof line,
                "\n  kernels (Nsight Systems' cuda_kern_exec_sum split; JSON kernels_by_name): %zu "
                "names, %llu kernels with their launch call: API %.1f us, queue %.1f us (%llu "
                "kernels queued), kernel %.1f us; %llu kernels without a call",
                k.by_name.size(), static_cast<unsigned long long>(n), us(api), us(queue),
                static_cast<unsigned long long>(queued), us(kernel),
                static_cast<unsigned long long>(k.kernels_without_call));
  std::string out = line;
  if (!k.by_name.empty()) {
    const auto& top = k.by_name.front();
    std::snprintf(line, sizeof line, "; longest: %.60s (%llu x, %.1f us)", top.name.c_str(),
                  static_cast<unsigned long long>(top.kernel.count), us(top.kernel.total_ns));
    out += line;
  }
  return out + "\n";
}

// What a cause's calls drained and what removing them could save (sync_drain.h), with the
// what-if that replays it.
std::string drain_line(const SyncCause& c) {
  const char* why = "";
  switch (c.advice) {
    case DrainAdvice::OwnCost:
      why = "its own blocked time: the GPU sat idle after each call longer than it waited";
      break;
    case DrainAdvice::WaitMoves:
      why =
          "only the GPU's idle after each call: the GPU was soon busy again, the wait moves to "
          "the next sync";
      break;
    case DrainAdvice::Mixed:
      why = "call by call the smaller of its blocked time and the GPU's idle after it";
      break;
    case DrainAdvice::NoGpuWork:
      why = "its own host time: no GPU work";
      break;
  }
  const std::string replay = c.op == "(no op)" ? std::string("no-syncs") : "no-syncs:op=" + c.op;
  char line[1024];
  std::snprintf(line, sizeof line,
                "      %s: found %llu queued (p50; max %llu), drained %llu, GPU idle after %.1f us;"
                " removing them saves about %.1f us (first order: %s); replay: --what-if %.80s\n",
                to_string(c.regime), static_cast<unsigned long long>(c.queue_depth_p50),
                static_cast<unsigned long long>(c.queue_depth_max),
                static_cast<unsigned long long>(c.drained), us(c.idle_after_ns),
                us(c.saving_estimate_ns), why, replay.c_str());
  return line;
}

}  // namespace

std::string report_table(const TraceReport& rep) {
  const ImportedTrace& t = *rep.trace;
  std::string out;
  char line[512];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("%s  (rank %lld, %llu events, %.1f MB of %s, clock %s)\n", t.file.c_str(),
      static_cast<long long>(t.rank), static_cast<unsigned long long>(t.events),
      static_cast<double>(t.bytes) / 1e6, t.format.c_str(), t.records.clock.c_str());
  for (const auto& w : t.warnings) add("  note: %s\n", w.c_str());
  out += diagnosis_text(rep.diagnosis);
  out += advice_text(rep);
  add("\n  %-20s %10s %8s %10s %10s %10s %7s %10s %10s %10s %10s %10s %9s %9s\n", "step", "wall us",
      "launch", "launch us", "sync us", "blk copy", "kernels", "kernel us", "busy us", "idle host",
      "idle kern", "idle oth", "delay p50", "delay p90");
  const auto row = [&](const StepFigures& f) {
    const Attribution& a = f.a;
    add("  %-20.20s %10.1f %8llu %10.1f %10.1f %10.1f %7llu %10.1f %10.1f %10.1f %10.1f %10.1f "
        "%9.1f %9.1f\n",
        f.name.c_str(), us(f.wall_ns), static_cast<unsigned long long>(a.launches),
        us(a.launch_api_ns), us(a.sync_api_ns), us(a.blocking_copy_ns),
        static_cast<unsigned long long>(a.kernels), us(a.kernel_ns), us(a.gpu_busy_ns),
        us(a.idle_host_wait_ns), us(a.idle_kernel_wait_ns), us(a.idle_other_ns),
        a.launch_delay.p50 / 1000, a.launch_delay.p90 / 1000);
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
  out += queue_table(rep);
  out += kernel_times_line(rep.kernels);
  const auto& y = rep.syncs;
  add("\n  blocking calls, by the innermost op that issued them: %llu syncs (%.1f us) + %llu "
      "blocking copies (%.1f us)"
      " = %.1f us blocked:\n",
      static_cast<unsigned long long>(y.syncs), us(y.sync_ns),
      static_cast<unsigned long long>(y.blocking_copies), us(y.blocking_copy_ns), us(y.blocked_ns));
  if (y.by_cause.empty()) out += "    none\n";
  const double wall = static_cast<double>(rep.steps_wall_ns);
  for (const auto& c : y.by_cause) {
    add("    %-40.40s %5llu calls %10.1f us blocked (sync %.1f, copies %.1f)  %5.1f%% of the %s  "
        "GPU busy meanwhile %.1f us\n",
        c.op.c_str(), static_cast<unsigned long long>(c.calls), us(c.blocked_ns), us(c.sync_ns),
        us(c.blocking_copy_ns), wall > 0 ? 100.0 * static_cast<double>(c.blocked_ns) / wall : 0.0,
        rep.steps.empty() ? "trace" : "steps", us(c.gpu_queued_ns));
    out += drain_line(c);
  }
  out += call_sites_text(rep);
  out += graph_breaks_text(rep);
  return out;
}

}  // namespace trace
