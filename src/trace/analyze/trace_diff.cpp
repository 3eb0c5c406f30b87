#include "trace/analyze/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "trace/analyze/call_sites.h"
#include "trace/analyze/program_words.h"
#include "trace/model/units.h"

namespace trace {
namespace {

using Windows = std::vector<std::pair<uint64_t, uint64_t>>;  // [start, end), by start

bool unique_names(const std::vector<StepFigures>& steps) {
  std::set<std::string> seen;
  for (const auto& s : steps)
    if (!seen.insert(s.name).second) return false;
  return true;
}

// By name when A's names are distinct and some are B's too (ProfilerStep#N of two runs), else
// step i with step i (ranges of one name, or runs whose step numbers differ).
void match_steps(const TraceReport& a, const TraceReport& b, TraceDiff* d) {
  d->a_steps = a.steps.size(), d->b_steps = b.steps.size();
  if (a.steps.empty() || b.steps.empty()) {
    d->match = "whole trace";
    if (!a.steps.empty() || !b.steps.empty())
      d->notes.push_back(std::string(a.steps.empty() ? "A" : "B") +
                         " has no steps: the whole traces are compared");
    return;
  }
  if (unique_names(a.steps) && unique_names(b.steps)) {
    std::map<std::string, size_t> in_b;
    for (size_t j = 0; j < b.steps.size(); ++j) in_b[b.steps[j].name] = j;
    for (size_t i = 0; i < a.steps.size(); ++i)
      if (auto it = in_b.find(a.steps[i].name); it != in_b.end())
        d->pairs.push_back({i, it->second});
  }
  d->match = d->pairs.empty() ? "by position" : "by name";
  if (d->pairs.empty())
    for (size_t i = 0; i < std::min(a.steps.size(), b.steps.size()); ++i)
      d->pairs.push_back({i, i});
  if (d->pairs.size() < std::max(a.steps.size(), b.steps.size()))
    d->notes.push_back(std::to_string(d->pairs.size()) + " steps matched of A's " +
                       std::to_string(a.steps.size()) + " and B's " +
                       std::to_string(b.steps.size()) + ": the rest are left out");
}

// One side's matched steps (the whole trace without steps): their windows and figures summed.
struct Side {
  const TraceReport* r = nullptr;
  std::vector<const StepFigures*> steps;
  std::vector<int> step_index;  // into RecordSet::steps, for the blocking calls' `step`
  Windows windows;
  Attribution sum;
};

Side side_of(const TraceReport& r, const TraceDiff& d, bool first) {
  Side s;
  s.r = &r;
  if (d.pairs.empty()) {
    s.steps.push_back(&r.total);
  } else {
    for (const auto& p : d.pairs) {
      const size_t i = first ? p.first : p.second;
      s.steps.push_back(&r.steps[i]);
      s.step_index.push_back(static_cast<int>(i));
    }
  }
  for (const StepFigures* f : s.steps) {
    s.windows.push_back({f->a.window_start_ns, f->a.window_start_ns + f->a.window_ns});
    const Attribution& a = f->a;
    Attribution& t = s.sum;
    t.window_ns += a.window_ns;
    t.launches += a.launches, t.launch_api_ns += a.launch_api_ns;
    t.kernels += a.kernels, t.kernel_ns += a.kernel_ns, t.gpu_busy_ns += a.gpu_busy_ns;
    t.memcpys += a.memcpys, t.memcpy_gpu_ns += a.memcpy_gpu_ns, t.memsets += a.memsets;
    t.syncs += a.syncs, t.sync_api_ns += a.sync_api_ns;
    t.blocking_copies += a.blocking_copies, t.blocking_copy_ns += a.blocking_copy_ns;
    t.nonblocking_copies += a.nonblocking_copies, t.memcpy_api_ns += a.memcpy_api_ns;
    t.blocked_ns += a.blocked_ns;
    t.idle_host_wait_ns += a.idle_host_wait_ns, t.idle_kernel_wait_ns += a.idle_kernel_wait_ns;
    t.idle_other_ns += a.idle_other_ns;
    for (const auto& [kind, c] : a.memcpy_by_kind) {
      CopyStats& to = t.memcpy_by_kind[kind];
      to.count += c.count, to.bytes += c.bytes, to.gpu_ns += c.gpu_ns;
    }
  }
  std::sort(s.windows.begin(), s.windows.end());
  return s;
}

bool in_windows(const Windows& w, uint64_t t) {
  auto it = std::upper_bound(w.begin(), w.end(), std::make_pair(t, UINT64_MAX));
  return it != w.begin() && t < std::prev(it)->second;
}

struct Pair {
  double a = 0, b = 0;
};
using Keyed = std::map<std::string, std::map<std::string, Pair>>;  // item -> figure -> A, B

// Rows of `keyed`, items ordered by `order_by` (the largest |B - A| first), figures as `figures`.
std::vector<DiffRow> rows_of(const Keyed& keyed, const std::vector<std::string>& figures,
                             const std::string& order_by) {
  std::vector<std::pair<std::string, const std::map<std::string, Pair>*>> items;
  for (const auto& [item, by] : keyed) items.push_back({item, &by});
  const auto gap = [&](const std::map<std::string, Pair>& by) {
    auto it = by.find(order_by);
    return it == by.end() ? 0.0 : std::fabs(it->second.b - it->second.a);
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const auto& x, const auto& y) { return gap(*x.second) > gap(*y.second); });
  std::vector<DiffRow> out;
  for (const auto& [item, by] : items)
    for (const auto& fig : figures) {
      auto it = by->find(fig);
      const Pair p = it == by->end() ? Pair{} : it->second;
      out.push_back({item, fig, p.a, p.b});
    }
  return out;
}

DiffSection steps_section(const Side& a, const Side& b, const TraceDiff& d) {
  DiffSection s{"steps", "each matched step's wall time (" + d.match + ")", {}};
  std::vector<double> wa, wb;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const std::string& na = a.steps[i]->name;
    const std::string& nb = b.steps[i]->name;
    const double ta = us(a.steps[i]->wall_ns), tb = us(b.steps[i]->wall_ns);
    s.rows.push_back({na == nb ? na : na + " ~ " + nb, "wall_us", ta, tb});
    wa.push_back(ta), wb.push_back(tb);
  }
  if (d.pairs.empty()) return s;  // the one row is the whole trace
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  s.rows.push_back({"median step", "wall_us", median(wa), median(wb)});
  double sa = 0, sb = 0;
  for (size_t i = 0; i < wa.size(); ++i) sa += wa[i], sb += wb[i];
  s.rows.push_back({"matched steps", "wall_us", sa, sb});
  return s;
}

DiffSection summary_section(const Side& a, const Side& b) {
  DiffSection s{"summary", "launches, syncs, copies and GPU time over the matched steps", {}};
  const auto row = [&](const char* fig, double x, double y) { s.rows.push_back({"", fig, x, y}); };
  const Attribution &x = a.sum, &y = b.sum;
  row("launches", static_cast<double>(x.launches), static_cast<double>(y.launches));
  row("launch_api_us", us(x.launch_api_ns), us(y.launch_api_ns));
  row("kernels", static_cast<double>(x.kernels), static_cast<double>(y.kernels));
  row("kernel_us", us(x.kernel_ns), us(y.kernel_ns));
  row("gpu_busy_us", us(x.gpu_busy_ns), us(y.gpu_busy_ns));
  row("syncs", static_cast<double>(x.syncs), static_cast<double>(y.syncs));
  row("sync_api_us", us(x.sync_api_ns), us(y.sync_api_ns));
  row("blocking_copies", static_cast<double>(x.blocking_copies),
      static_cast<double>(y.blocking_copies));
  row("blocking_copy_us", us(x.blocking_copy_ns), us(y.blocking_copy_ns));
  row("blocked_us", us(x.blocked_ns), us(y.blocked_ns));
  row("memcpys", static_cast<double>(x.memcpys), static_cast<double>(y.memcpys));
  row("memcpy_gpu_us", us(x.memcpy_gpu_ns), us(y.memcpy_gpu_ns));
  row("memsets", static_cast<double>(x.memsets), static_cast<double>(y.memsets));
  row("host_rest_us", static_cast<double>(x.host_rest_ns()) / 1000.0,
      static_cast<double>(y.host_rest_ns()) / 1000.0);
  return s;
}

// Each blocking call in the matched steps (every one without steps), by its call site's label,
// or by its op in a trace without stacks.
void add_sites(const Side& side, bool first, Keyed* k) {
  const TraceReport& r = *side.r;
  const RecordSet& rec = r.trace->records;
  std::vector<std::string> labels(r.sites.sites.size());
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = site_label(rec, r.sites.sites[i]);
  const bool with_stacks = r.sites.stacks != SiteReport::Stacks::None;
  std::vector<char> matched(rec.steps.size() + 1, side.step_index.empty());
  for (int i : side.step_index) matched[static_cast<size_t>(i)] = 1;
  for (size_t i = 0; i < r.syncs.calls.size(); ++i) {
    const SyncCall& c = r.syncs.calls[i];
    // Outside every step (step -1): counted only when the whole traces are compared.
    const size_t at = c.step < 0 ? rec.steps.size() : static_cast<size_t>(c.step);
    if (at >= matched.size() || !matched[at]) continue;
    const int32_t site = i < r.sites.site_of_call.size() ? r.sites.site_of_call[i] : -1;
    const std::string& key = with_stacks && site >= 0 ? labels[static_cast<size_t>(site)] : c.op;
    auto& by = (*k)[key];
    (first ? by["calls"].a : by["calls"].b) += 1;
    (first ? by["blocked_us"].a : by["blocked_us"].b) += us(c.blocked_ns);
  }
}

// Kernels that start in the matched windows, by name.
void add_kernels(const Side& side, bool first, Keyed* k) {
  const RecordSet& rec = side.r->trace->records;
  std::unordered_map<std::string, Pair> by;  // count, ns
  for (const auto& kr : rec.kernels) {
    if (!in_windows(side.windows, kr.start_ns)) continue;
    Pair& p = by[kernel_name(rec, kr)];
    p.a += 1, p.b += static_cast<double>(kr.end_ns - kr.start_ns);
  }
  for (const auto& [name, p] : by) {
    auto& row = (*k)[name];
    (first ? row["count"].a : row["count"].b) = p.a;
    (first ? row["kernel_us"].a : row["kernel_us"].b) = p.b / 1000.0;
  }
}

DiffSection classes_section(const TraceReport& a, const TraceReport& b) {
  DiffSection s{"classes", "the diagnosis' classes per steady step (each trace's own steps)", {}};
  const auto steady = [](const Diagnosis& d) {
    return static_cast<double>(
        std::max<size_t>(d.windows - std::min(d.windows, d.cold_windows), 1));
  };
  const Diagnosis &x = a.diagnosis, &y = b.diagnosis;
  for (size_t i = 0; i < kBounds; ++i) {
    const auto bound = static_cast<Bound>(i);
    const double ua = x.gpu ? us(x.steady.ns[i]) / steady(x) : 0;
    const double ub = y.gpu ? us(y.steady.ns[i]) / steady(y) : 0;
    if (ua == 0 && ub == 0) continue;
    s.rows.push_back({to_string(bound), "us_per_step", ua, ub});
    s.rows.push_back({to_string(bound), "share", x.gpu ? x.steady.share(bound) : 0,
                      y.gpu ? y.steady.share(bound) : 0});
  }
  return s;
}

}  // namespace

TraceDiff diff_reports(const TraceReport& a, const TraceReport& b) {
  TraceDiff d;
  d.words_in_common = words_in_common(a, b);
  d.a_verdict = a.diagnosis.gpu ? verdict_line(a.diagnosis) : "no GPU work";
  d.b_verdict = b.diagnosis.gpu ? verdict_line(b.diagnosis) : "no GPU work";
  match_steps(a, b, &d);
  const Side sa = side_of(a, d, true), sb = side_of(b, d, false);
  d.sections.push_back(steps_section(sa, sb, d));
  d.sections.push_back(summary_section(sa, sb));
  Keyed sites;
  add_sites(sa, true, &sites), add_sites(sb, false, &sites);
  d.sections.push_back({"syncs by call site",
                        "blocking calls in the matched steps, by call site (by op without stacks)",
                        rows_of(sites, {"calls", "blocked_us"}, "blocked_us")});
  Keyed copies;
  for (const auto& [kind, c] : sa.sum.memcpy_by_kind)
    copies[kind]["count"].a = static_cast<double>(c.count),
    copies[kind]["bytes"].a = static_cast<double>(c.bytes), copies[kind]["gpu_us"].a = us(c.gpu_ns);
  for (const auto& [kind, c] : sb.sum.memcpy_by_kind)
    copies[kind]["count"].b = static_cast<double>(c.count),
    copies[kind]["bytes"].b = static_cast<double>(c.bytes), copies[kind]["gpu_us"].b = us(c.gpu_ns);
  d.sections.push_back({"copies by kind", "copies in the matched steps, by kind and host memory",
                        rows_of(copies, {"count", "bytes", "gpu_us"}, "gpu_us")});
  Keyed kernels;
  add_kernels(sa, true, &kernels), add_kernels(sb, false, &kernels);
  d.sections.push_back({"kernels by name", "kernels that start in the matched steps, by name",
                        rows_of(kernels, {"count", "kernel_us"}, "kernel_us")});
  DiffSection idle{"idle by cause", "GPU idle time in the matched steps, by cause", {}};
  idle.rows.push_back(
      {"host_wait", "idle_us", us(sa.sum.idle_host_wait_ns), us(sb.sum.idle_host_wait_ns)});
  idle.rows.push_back(
      {"kernel_wait", "idle_us", us(sa.sum.idle_kernel_wait_ns), us(sb.sum.idle_kernel_wait_ns)});
  idle.rows.push_back({"other", "idle_us", us(sa.sum.idle_other_ns), us(sb.sum.idle_other_ns)});
  d.sections.push_back(std::move(idle));
  d.sections.push_back(classes_section(a, b));
  return d;
}

void add_predictions(const replay::ReplayReport& a_replay, const TraceReport& b, TraceDiff* d) {
  std::vector<const replay::ScenarioResult*> scenarios = {&a_replay.replay};
  for (const auto& w : a_replay.what_ifs) scenarios.push_back(&w);
  for (const auto* s : scenarios) {
    double pa = 0, pp = 0, pb = 0;
    for (const auto& [i, j] : d->pairs) {
      if (i >= s->steps.size()) continue;
      const auto& st = s->steps[i];
      DiffPrediction p{s->name, st.name, us(st.measured_ns), us(st.predicted_ns),
                       us(b.steps[j].wall_ns)};
      pa += p.a_measured_us, pp += p.predicted_us, pb += p.b_measured_us;
      d->predictions.push_back(std::move(p));
    }
    if (d->pairs.empty())
      d->predictions.push_back({s->name, "total", us(s->total.measured_ns),
                                us(s->total.predicted_ns), us(b.total.wall_ns)});
    else
      d->predictions.push_back({s->name, "matched steps", pa, pp, pb});
  }
}

}  // namespace trace
