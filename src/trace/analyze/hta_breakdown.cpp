#include "trace/analyze/hta_breakdown.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace trace {

double linear_percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The double Python's float() gives for the trace's text, from our exact ns.
double us_double(int64_t ns) {
  if (ns % 1000 == 0) return static_cast<double>(ns / 1000);
  return static_cast<double>(ns) / 1000.0;
}

struct Row {
  const HtaEvent* e;
  double ts, dur, end;
  bool gpu;
};

HtaRank one_rank(const ImportedTrace& t, bool filter_steps, const HtaOptions& opt) {
  HtaRank out;
  const bool round = opt.ns_rounding && t.hta_float_ts;
  std::vector<Row> rows;
  rows.reserve(t.hta.size());
  for (const auto& e : t.hta) {
    Row r{&e, us_double(e.ts_ns), us_double(e.dur_ns), 0, false};
    if (round) {
      const double end = r.ts + r.dur;
      r.ts = std::ceil(r.ts);
      r.end = std::floor(end);
      r.dur = r.end - r.ts;
    } else {
      r.end = r.ts + r.dur;
    }
    r.gpu = (e.stream >= 0 && e.correlation >= 0) || (e.flags & HtaEvent::kDeviceSyncName);
    rows.push_back(r);
  }

  // index_correlation, before the step filter: a GPU event's host event is the last one in
  // file order with its correlation; 0 (the file's first event) when none.
  std::unordered_map<int64_t, int64_t> host_by_corr;
  for (const auto& r : rows)
    if (!r.gpu && r.e->correlation != -1) host_by_corr[r.e->correlation] = r.e->index;

  // The step filter.
  std::vector<const Row*> kept;
  if (filter_steps) {
    double last_start = kNaN;
    for (const auto& r : rows)
      if (!r.gpu && (r.e->flags & HtaEvent::kStepName)) last_start = std::isnan(last_start) ? r.ts : std::max(last_start, r.ts);
    std::unordered_map<int64_t, int> host_count;
    for (const auto& r : rows)
      if (!r.gpu && r.ts < last_start) kept.push_back(&r), ++host_count[r.e->correlation];
    for (const auto& r : rows)
      if (r.gpu)
        if (auto it = host_count.find(r.e->correlation); it != host_count.end())
          for (int k = 0; k < it->second; ++k) kept.push_back(&r);
  } else {
    for (const auto& r : rows) kept.push_back(&r);
  }
  std::unordered_map<int64_t, double> kept_host_ts;  // by file index, host rows only
  double first_event_ts = kNaN;                      // the file's event 0, if kept
  for (const Row* r : kept) {
    if (!r->gpu) kept_host_ts[r->e->index] = r->ts;
    if (r->e->index == 0) first_event_ts = r->ts;
  }

  // Temporal breakdown.
  std::vector<const Row*> dev;
  for (const Row* r : kept)
    if (r->e->stream != -1) dev.push_back(r);
  const auto by_ts = [](const Row* a, const Row* b) { return a->ts < b->ts; };
  std::stable_sort(dev.begin(), dev.end(), by_ts);
  const auto union_of = [](const std::vector<const Row*>& v, double* first, double* last) {
    double total = 0, gs = 0, ge = 0;
    bool open = false;
    for (const Row* r : v) {
      if (!open || r->ts > ge) {
        if (open) total += ge - gs;
        gs = r->ts, ge = r->end, open = true;
        if (first && std::isnan(*first)) *first = gs;
      } else ge = std::max(ge, r->end);
    }
    if (open) total += ge - gs;
    if (last) *last = ge;
    return total;
  };
  if (!dev.empty()) {
    out.has_gpu = true;
    double first = kNaN, last = 0;
    const double busy = union_of(dev, &first, &last);
    out.kernel_time_us = last - first;
    out.idle_us = out.kernel_time_us - busy;
    std::vector<const Row*> comp;
    for (const Row* r : dev)
      if (r->e->flags & HtaEvent::kComputeName) comp.push_back(r);
    out.compute_us = union_of(comp, nullptr, nullptr);
    out.non_compute_us = out.kernel_time_us - out.compute_us - out.idle_us;
  }

  // Idle time by stream.
  std::map<int64_t, std::vector<const Row*>> streams;
  for (const Row* r : dev)
    if (r->e->flags & HtaEvent::kKernelCat) streams[r->e->stream].push_back(r);  // already by ts
  for (auto& [stream, v] : streams) {
    HtaIdle& idle = out.idle_by_stream[stream];
    for (size_t i = 1; i < v.size(); ++i) {
      const double prev_end = v[i - 1]->ts + v[i - 1]->dur;
      const double gap = v[i]->ts - prev_end;
      double runtime_ts = kNaN;
      if (v[i]->e->correlation >= 0) {
        auto h = host_by_corr.find(v[i]->e->correlation);
        if (h == host_by_corr.end()) runtime_ts = first_event_ts;  // index_correlation 0
        else if (auto k = kept_host_ts.find(h->second); k != kept_host_ts.end()) runtime_ts = k->second;
      }
      if (runtime_ts > prev_end) idle.host_wait_us += gap;
      else if (gap < opt.consecutive_kernel_delay_us) idle.kernel_wait_us += gap;
      else idle.other_us += gap;
    }
  }

  // Kernel launch statistics.
  std::set<int64_t> launch_corrs;
  for (const Row* r : kept)
    if (r->e->flags & (HtaEvent::kLaunchName | HtaEvent::kMemAsyncName)) launch_corrs.insert(r->e->correlation);
  std::unordered_map<int64_t, std::vector<const Row*>> calls;
  for (const Row* r : kept)
    if (r->e->stream == -1 && launch_corrs.count(r->e->correlation)) calls[r->e->correlation].push_back(r);
  std::vector<double> delays;
  for (const Row* g : kept) {
    if (g->e->stream == -1 || !launch_corrs.count(g->e->correlation)) continue;
    auto it = calls.find(g->e->correlation);
    if (it == calls.end()) continue;
    for (const Row* c : it->second) delays.push_back(std::max(0.0, g->ts - c->ts - c->dur));
  }
  std::sort(delays.begin(), delays.end());
  auto& s = out.launch_delay;
  s.count = delays.size();
  if (!delays.empty()) {
    double sum = 0;
    for (double d : delays) sum += d;
    s.mean = sum / static_cast<double>(delays.size());
    s.min = delays.front(), s.max = delays.back();
    s.p50 = linear_percentile(delays, 50), s.p90 = linear_percentile(delays, 90);
  }
  return out;
}

}  // namespace

std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces, const HtaOptions& options) {
  std::set<std::string> step_names;
  for (const auto* t : traces) step_names.insert(t->hta_step_names.begin(), t->hta_step_names.end());
  std::map<int64_t, HtaRank> out;
  for (const auto* t : traces) out[t->rank] = one_rank(*t, step_names.size() >= 2, options);
  return out;
}

}  // namespace trace
