#include "trace/export/replay_text.h"

#include <cmath>
#include <cstdio>

#include "trace/model/units.h"

namespace trace {

namespace {

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

// A time in microseconds, to three significant figures or so.
std::string us_text(double ns) {
  char b[32];
  const double v = ns / 1000.0;
  std::snprintf(b, sizeof b,
                std::fabs(v) >= 100  ? "%.0f"
                : std::fabs(v) >= 10 ? "%.1f"
                                     : "%.2f",
                v);
  return b;
}

// One site, as the curve's sentences name it: "sync", the op ("`log`") or the API's call.
std::string one_site(const replay::SiteSelector& sel) {
  using By = replay::SiteSelector::By;
  return sel.by == By::Op     ? "`" + sel.name + "`"
         : sel.by == By::Api  ? sel.name + " call"
         : sel.by == By::Site ? "call of site " + sel.name
                              : "sync";
}

std::string shape_text(const replay::LogEveryCurve& c, const std::string& one) {
  using Shape = replay::LogEveryCurve::Shape;
  const double per = c.saving_per_sync_ns;
  switch (c.shape) {
    case Shape::NoSites:
      return "No " + one + " in the trace: nothing to keep or remove.";
    case Shape::Flat:
      return "Flat: keeping or removing them changes the step by less than the replay can tell (" +
             us_text(per) + " us per " + one + ").";
    case Shape::Linear: {
      std::string w = "Linear: every kept " + one + " adds about " + us_text(per) +
                      " us, however many others are kept";
      if (c.isolated_samples) w += " (one kept alone adds " + us_text(c.isolated_cost_ns) + " us)";
      return w + ".";
    }
    case Shape::AloneDiffers:
      return "Not linear: one " + one + " kept alone adds " + us_text(c.isolated_cost_ns) +
             " us, one among all of them " + us_text(per) + " us on average.";
    case Shape::Strays:
      return "Not linear: the points stray up to " +
             std::to_string(static_cast<int>(std::lround(100 * c.max_deviation))) +
             "% of the rise from the straight line between never and every.";
  }
  return "";
}

std::string cause_text(const replay::LogEveryCurve& c) {
  using Cause = replay::LogEveryCurve::Cause;
  const std::string per = us_text(c.saving_per_sync_ns), b = us_text(c.blocked_per_sync_ns),
                    q = us_text(c.queued_per_sync_ns);
  switch (c.cause) {
    case Cause::BlocksOnNothing:
      return " Why: these block on nothing (no GPU work to wait for): what one saves is its own "
             "host time.";
    case Cause::OffCriticalPath:
      return " Why: a sync blocked " + b +
             " us, but the run's critical path does not pass through the syncs: another thread, "
             "or the GPU, bounds it.";
    case Cause::SavesWhatItBlocked:
      return " Why: removing one saves about all the time it blocked (" + per + " of " + b +
             " us): the GPU work it waited for (" + q +
             " us) then runs while the CPU goes on, off the critical path.";
    case Cause::SavesItsHostWork:
      return " Why: removing one saves " + per + " us, more than the " + b +
             " us it blocked: the rest is the site's own host work (its op's dispatch, the "
             "copy's launch, the code around it), which goes with it; the GPU work it waited "
             "for (" +
             q + " us) then runs while the CPU goes on.";
    case Cause::EmptyQueue:
      return " Why: the syncs find the GPU queue (almost) empty (" + q +
             " us of GPU work ran while one blocked " + b +
             " us), so each costs its fixed price; removing one saves " + per +
             " us of it, the rest was hidden behind other work (the run was not waiting on that "
             "thread then).";
    case Cause::WaitMoves:
      return " Why: a sync blocked " + b + " us, " + q +
             " us of it behind queued GPU work, and removing it saves " + per +
             " us: the wait behind queued work is not saved, it moves to the next sync (or to the "
             "end of the run, when the GPU is the bottleneck); what goes is the sync's fixed "
             "price and the CPU-GPU overlap it broke.";
  }
  return "";
}

}  // namespace

std::string site_selector_text(const replay::SiteSelector& sel) {
  switch (sel.by) {
    case replay::SiteSelector::By::Op:
      return "op " + sel.name;
    case replay::SiteSelector::By::Api:
      return "api " + sel.name;
    case replay::SiteSelector::By::Site:
      return "site " + sel.name;
    default:
      return "blocking syncs";
  }
}

std::string log_every_why(const replay::LogEveryCurve& c) {
  const std::string one = one_site(c.selector);
  if (c.shape == replay::LogEveryCurve::Shape::NoSites) return shape_text(c, one);
  return shape_text(c, one) + cause_text(c);
}

std::vector<std::string> replay_notes(const replay::ReplayReport& rep) {
  std::vector<std::string> out;
  if (!rep.target_missed()) return out;
  const replay::GraphStats& s = rep.graph;
  if (s.unlaunched_gpu)
    out.push_back(std::to_string(s.unlaunched_gpu) +
                  " GPU operations have no launch call in the trace (queued before it began): "
                  "they start where they were recorded, whatever happens before them");
  if (s.sync_targets_guessed)
    out.push_back(std::to_string(s.sync_targets_guessed) +
                  " blocking calls have no cuda_sync row: what they wait for is guessed "
                  "(the stream their thread used last, else every stream)");
  if (s.gpu_waits)
    out.push_back(std::to_string(s.gpu_waits) +
                  " GPU operations waited for another stream without a Stream Wait Event row: "
                  "each is tied to the work that ended just before it started");
  if (s.thread_waits)
    out.push_back(std::to_string(s.thread_waits) +
                  " idle gaps are taken as waits for another thread (ended just after its event)");
  for (const replay::ExcessDelay& d : rep.excess_delays) {
    std::string n = std::to_string(d.count) + " " + replay::to_string(d.kind) +
                    " delays exceed the typical " + std::to_string(d.typical_ns / 1000) +
                    " us, by " + std::to_string(d.excess_ns / 1000) + " us in all";
    if (d.kind == replay::EdgeKind::Stream)
      n += " (GPU work waited with its stream free and its launch done, for something the trace "
           "does not name" +
           (s.unnamed_event_waits ? ": " + std::to_string(s.unnamed_event_waits) +
                                        " cudaStreamWaitEvent calls have no Stream Wait Event row"
                                  : std::string()) +
           ")";
    out.push_back(n);
  }
  if (s.cycle_edges_dropped)
    out.push_back(std::to_string(s.cycle_edges_dropped) +
                  " dependencies contradicted the recorded times and were dropped");
  return out;
}

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
      rep.has_steps ? "its steps" : "the whole trace");
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
  const auto replay_row = [&](const replay::StepResult& w, const replay::StepResult& t) {
    add("  %-22.22s %12.1f %12.1f %+7.2f%% %12.1f %+7.2f%%  %s\n", w.name.c_str(),
        us(static_cast<double>(w.measured_ns)), us(static_cast<double>(w.replayed_ns)),
        err(w.replayed_ns, w.measured_ns), us(static_cast<double>(t.predicted_ns)),
        err(t.predicted_ns, w.measured_ns), bound_text(w.bound, w.replayed_ns).c_str());
  };
  for (size_t i = 0; i < rep.replay.steps.size(); ++i)
    replay_row(rep.replay.steps[i], rep.typical.steps[i]);
  if (rep.replay.steps.size() > 1) replay_row(rep.replay.total, rep.typical.total);
  const char* target = rep.has_steps ? "median <= 2%, every step within 5%" : "the span within 5%";
  add("  replay error: median %.2f%%, max %.2f%% (target: %s): %s\n", 100 * rep.median_error,
      100 * rep.max_error, target, rep.target_met ? "met" : "NOT met");
  add("  with typical delays: median %.2f%%, max %.2f%%: %s\n", 100 * rep.typical_median_error,
      100 * rep.typical_max_error, rep.typical_target_met ? "met" : "NOT met");
  for (const auto& n : replay_notes(rep)) add("  note: %s\n", n.c_str());

  for (const auto& s : rep.what_ifs) {
    add("\n  what if %s", s.name.c_str());
    if (s.sites) add(" (%llu of %llu syncs kept)", u(s.sites_kept), u(s.sites));
    add(":\n  %-22s %12s %12s %12s  %s\n", "window", "replayed us", "predicted us", "saving us",
        "critical path");
    const auto row = [&](const replay::StepResult& w) {
      add("  %-22.22s %12.1f %12.1f %12.1f  %s\n", w.name.c_str(),
          us(static_cast<double>(w.replayed_ns)), us(static_cast<double>(w.predicted_ns)),
          us(static_cast<double>(w.replayed_ns - w.predicted_ns)),
          bound_text(w.bound, w.predicted_ns).c_str());
    };
    for (const auto& w : s.steps) row(w);
    if (s.steps.size() > 1) row(s.total);
    if (!s.note.empty()) out += "  assumed: " + s.note + "\n";
  }
  for (const auto& c : rep.curves) {
    add("\n  %s (%s, %llu in the trace): predicted time per %s against syncs kept\n",
        c.text.c_str(), site_selector_text(c.selector).c_str(), u(c.sites),
        rep.has_steps ? "step" : "trace");
    add("  %8s %12s %12s %14s\n", "every", "kept", "per window", "predicted us");
    for (const auto& p : c.points)
      add("  %8s %12llu %12.3f %14.1f%s\n", p.every ? std::to_string(p.every).c_str() : "never",
          u(p.kept), p.kept_per_step, us(p.predicted_ns),
          p.extrapolated ? "  (extrapolated: fewer than 2 kept in the trace)" : "");
    add("  %s\n", log_every_why(c).c_str());
  }
  return out;
}

}  // namespace trace
