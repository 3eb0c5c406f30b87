#include "trace/export/replay_text.h"

#include <cmath>
#include <cstdio>

namespace trace {

namespace {

double us(double ns) { return ns / 1000.0; }

// "CPU thread 4515 62%, GPU 0 stream 7 30%": the resources on the critical path, largest first.
std::string bound_text(const std::vector<replay::Bound>& bound, int64_t window) {
  std::string s;
  char b[96];
  for (size_t i = 0; i < bound.size() && i < 2; ++i) {
    std::snprintf(
        b, sizeof b, "%s%s %.0f%%", i ? ", " : "", bound[i].resource.c_str(),
        window > 0 ? 100.0 * static_cast<double>(bound[i].ns) / static_cast<double>(window) : 0.0);
    s += b;
  }
  return s.empty() ? "-" : s;
}

}  // namespace

std::string replay_table(const replay::ReplayReport& rep) {
  const auto& t = *rep.trace;
  const auto& g = rep.graph;
  std::string out;
  char line[768];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  add("%s  (rank %lld): replay over %s\n", t.file.c_str(), static_cast<long long>(t.rank),
      rep.steps ? "its steps" : "the whole trace");
  add("  graph: %llu host nodes, %llu GPU nodes, %llu edges; %llu kernel launches (%llu in graph "
      "launches), %llu GPU ops "
      "with no launch; %llu blocking calls (%llu resolved from cuda_sync rows or their own copy, "
      "%llu guessed, %llu waiting "
      "on nothing); %llu event waits, %llu GPU waits, %llu thread waits",
      u(g.host_nodes), u(g.gpu_nodes), u(g.edges), u(g.launches), u(g.graph_launch_kernels),
      u(g.unlaunched_gpu), u(g.blocking_calls), u(g.sync_targets_from_rows),
      u(g.sync_targets_guessed), u(g.syncs_waiting_on_nothing), u(g.event_waits), u(g.gpu_waits),
      u(g.thread_waits));
  if (g.cycle_edges_dropped)
    add("; %llu edges dropped to break cycles (inconsistent times)", u(g.cycle_edges_dropped));
  out += "\n\n";
  add("  %-22s %12s %12s %8s %12s %8s  %s\n", "window", "measured us", "replayed us", "error",
      "typical us", "error", "critical path (replayed)");
  const auto err = [](int64_t p, int64_t m) {
    return m ? 100.0 * static_cast<double>(p - m) / static_cast<double>(m) : 0.0;
  };
  const auto replay_row = [&](const replay::WindowResult& w, const replay::WindowResult& t) {
    add("  %-22.22s %12.1f %12.1f %+7.2f%% %12.1f %+7.2f%%  %s\n", w.name.c_str(),
        us(static_cast<double>(w.measured_ns)), us(static_cast<double>(w.replayed_ns)),
        err(w.replayed_ns, w.measured_ns), us(static_cast<double>(t.predicted_ns)),
        err(t.predicted_ns, w.measured_ns), bound_text(w.bound, w.replayed_ns).c_str());
  };
  for (size_t i = 0; i < rep.replay.windows.size(); ++i)
    replay_row(rep.replay.windows[i], rep.typical.windows[i]);
  if (rep.replay.windows.size() > 1) replay_row(rep.replay.total, rep.typical.total);
  const char* target = rep.steps ? "median <= 2%, every step within 5%" : "the span within 5%";
  add("  replay error: median %.2f%%, max %.2f%% (target: %s): %s\n", 100 * rep.median_error,
      100 * rep.max_error, target, rep.target_met ? "met" : "NOT met");
  add("  with typical delays: median %.2f%%, max %.2f%%: %s\n", 100 * rep.typical_median_error,
      100 * rep.typical_max_error, rep.typical_target_met ? "met" : "NOT met");
  for (const auto& n : rep.notes) add("  note: %s\n", n.c_str());

  for (const auto& s : rep.what_ifs) {
    add("\n  what if %s", s.name.c_str());
    if (s.sites) add(" (%llu of %llu syncs kept)", u(s.sites_kept), u(s.sites));
    add(":\n  %-22s %12s %12s %12s  %s\n", "window", "replayed us", "predicted us", "saving us",
        "critical path");
    const auto row = [&](const replay::WindowResult& w) {
      add("  %-22.22s %12.1f %12.1f %12.1f  %s\n", w.name.c_str(),
          us(static_cast<double>(w.replayed_ns)), us(static_cast<double>(w.predicted_ns)),
          us(static_cast<double>(w.replayed_ns - w.predicted_ns)),
          bound_text(w.bound, w.predicted_ns).c_str());
    };
    for (const auto& w : s.windows) row(w);
    if (s.windows.size() > 1) row(s.total);
  }
  for (const auto& c : rep.curves) {
    add("\n  %s (%s, %llu in the trace): predicted time per %s against syncs kept\n",
        c.text.c_str(), c.selector.c_str(), u(c.sites), rep.steps ? "step" : "trace");
    add("  %8s %12s %12s %14s\n", "every", "kept", "per window", "predicted us");
    for (const auto& p : c.points)
      add("  %8s %12llu %12.3f %14.1f%s\n", p.every ? std::to_string(p.every).c_str() : "never",
          u(p.kept), p.kept_per_window, us(p.predicted_ns),
          p.extrapolated ? "  (extrapolated: fewer than 2 kept in the trace)" : "");
    add("  %s\n", c.why.c_str());
  }
  return out;
}

}  // namespace trace
