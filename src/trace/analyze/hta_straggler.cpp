#include "trace/analyze/hta_straggler.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>

// File references are to holistictraceanalysis 0.5.0 / traceinsight 0.6.1 (hta/analyzers) and
// pandas 3.1 (the groupby kernels' arithmetic, as hta_numeric.h).
namespace trace {
namespace {

double nan_min(double a, double b) {
  return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
}
double nan_max(double a, double b) {
  return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
}

struct Window {
  double t_min = kHtaNaN, mean_iter_time = kHtaNaN;
  size_t n_iters = 0;
};

// straggler.py: t_min and mean_iter_time over the selected steps' rows of all ranks. ts + dur is
// added in the concatenated columns' type: the widest integer, float64 if any rank's is.
Window window(const std::map<int64_t, HtaFrame>& frames, const std::set<int64_t>& steps) {
  bool ts_float = false, dur_float = false;
  int ts_bits = 8, dur_bits = 8;
  for (const auto& [rank, f] : frames) {
    if (!f.has_rows) continue;  // HTA drops a rank without rows
    ts_float |= f.ts_bits == 0, dur_float |= f.dur_bits == 0;
    ts_bits = std::max(ts_bits, f.ts_bits), dur_bits = std::max(dur_bits, f.dur_bits);
  }
  const int end_bits = ts_float || dur_float ? 64 : std::max(ts_bits, dur_bits);
  const int slot = end_bits == 8 ? 0 : end_bits == 16 ? 1 : end_bits == 32 ? 2 : 3;
  Window w;
  double max_end = kHtaNaN;
  std::set<int64_t> held;
  for (const auto& [rank, f] : frames)
    for (const HtaIterationSpan& s : f.iteration_spans) {
      if (!steps.count(s.iteration)) continue;
      held.insert(s.iteration);
      w.t_min = nan_min(w.t_min, s.min_ts), max_end = nan_max(max_end, s.max_end[slot]);
    }
  w.n_iters = held.size();
  if (w.n_iters) w.mean_iter_time = (max_end - w.t_min) / static_cast<double>(w.n_iters);
  return w;
}

using KernelKey = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // rank, stream, iteration, name
struct LastKernel {
  double ts = kHtaNaN, dur = kHtaNaN;
};

// The long communication kernels' groupby([rank, stream, iteration, name]).last(): the last value
// that is not NaN of each column, keys ascending.
std::map<KernelKey, LastKernel> last_long_kernels(const std::map<int64_t, HtaFrame>& frames,
                                                  const std::set<int64_t>& steps, double min_dur,
                                                  const std::map<std::string, int64_t>& name_ids,
                                                  std::map<int64_t, std::string>* names) {
  std::map<KernelKey, LastKernel> out;
  std::map<std::string, int64_t> unnumbered;  // names without HTA's id: after every id, apart
  for (const auto& [rank, f] : frames)
    for (size_t g = 0; g < f.gpu_ts.size(); ++g) {
      const int64_t it = f.gpu_iteration[g];
      if (f.gpu_stream[g] <= 0 || it <= 0 || !steps.count(it) || !(f.gpu_dur[g] >= min_dur))
        continue;
      if (f.gpu_name[g] == ListedEvent::kNone) continue;
      const std::string& name = f.gpu_names[f.gpu_name[g]];
      if (std::string_view(name).substr(0, 10) != "ncclKernel") continue;
      const auto id = name_ids.find(name);
      const int64_t sym =
          id != name_ids.end()
              ? id->second
              : unnumbered.emplace(name, INT64_MAX / 2 + static_cast<int64_t>(unnumbered.size()))
                    .first->second;
      (*names)[sym] = name;
      LastKernel& k = out[{rank, f.gpu_stream[g], it, sym}];
      if (!std::isnan(f.gpu_ts[g])) k.ts = f.gpu_ts[g];
      k.dur = f.gpu_dur[g];
    }
  return out;
}

using StreamName = std::pair<int64_t, int64_t>;

// groupby([stream, iteration, name]).duration.std() (group_var: Welford, NaN skipped, ddof 1),
// then groupby([stream, name]).mean() over those (hta_numeric.h: reduceat or Kahan).
std::map<StreamName, double> mean_spread(const std::map<KernelKey, LastKernel>& kernels,
                                         double mean_iter_time) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, GroupVar> by_iteration;
  for (const auto& [key, k] : kernels) {
    const auto& [rank, stream, it, name] = key;
    GroupVar& w = by_iteration[{stream, it, name}];
    const double v = k.dur / mean_iter_time;
    if (!std::isnan(v)) w.add(v);
  }
  std::map<StreamName, std::vector<double>> spreads;
  std::vector<StreamName> order;
  bool any_nan = false;
  for (const auto& [key, w] : by_iteration) {
    const double std = w.std();
    const StreamName sn{std::get<0>(key), std::get<2>(key)};
    spreads[sn].push_back(std), order.push_back(sn), any_nan |= std::isnan(std);
  }
  const bool in_order = std::is_sorted(order.begin(), order.end());
  std::map<StreamName, double> out;
  for (const auto& [sn, v] : spreads) {
    if (in_order && !any_nan) {
      out[sn] = reduceat_sum(v.data(), v.size()) / static_cast<double>(v.size());
      continue;
    }
    KahanSum sum;
    double n = 0;
    for (double x : v)
      if (!std::isnan(x)) sum.add(x), n += 1;
    out[sn] = n ? sum.sum / n : kHtaNaN;
  }
  return out;
}

// Series.idxmax(): the first largest value not NaN.
bool idxmax(const std::map<StreamName, double>& spread, StreamName* pick, HtaStragglers* out) {
  double best = kHtaNaN;
  for (const auto& [sn, v] : spread)
    if (!std::isnan(v) && (std::isnan(best) || v > best)) best = v, *pick = sn;
  if (!std::isnan(best)) return true;
  out->error_type = "ValueError";
  out->error = spread.empty()
                   ? "no communication kernel to rank by: none named ncclKernel* on a stream > 0 "
                     "in a step > 0 lasts 1% of the mean iteration time (HTA: attempt to get "
                     "argmax of an empty sequence)"
                   : "the communication kernels' spread across ranks is NaN for every (stream, "
                     "name): no iteration has one on two ranks, as with one rank (HTA: "
                     "Encountered all NA values)";
  return false;
}

// _get_top_k_stragglers_with_metric's threshold: the n-th largest (sort_values descending, NaN
// last); false where there are fewer values than n (HTA's IndexError).
bool nth_largest(std::vector<double> v, size_t n, double* out) {
  if (v.size() < n) return false;
  std::stable_sort(v.begin(), v.end(), [](double a, double b) {
    return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a > b);
  });
  *out = v[n - 1];
  return true;
}

// Per iteration, the ranks whose start is >= the threshold; counts per rank.
void top_k(const std::map<KernelKey, LastKernel>& kernels, StreamName pick, Window w, size_t n,
           HtaStragglers* out) {
  std::map<int64_t, std::vector<size_t>> rows_of;  // iteration -> metric rows
  for (const auto& [key, k] : kernels) {
    const auto& [rank, stream, it, name] = key;
    if (stream != pick.first || name != pick.second) continue;
    rows_of[it].push_back(out->metric.size());
    out->metric_rank.push_back(rank), out->metric_iteration.push_back(it);
    out->metric.push_back((k.ts - w.t_min) / w.mean_iter_time);
  }
  out->is_straggler.assign(out->metric.size(), 0);
  for (const auto& [it, rows] : rows_of) {
    std::vector<double> v;
    for (size_t r : rows) v.push_back(out->metric[r]);
    double threshold = 0;
    if (!nth_largest(v, n, &threshold)) {
      out->error_type = "IndexError";
      out->error =
          "iteration " + std::to_string(it) + ": " + std::to_string(v.size()) +
          " rank(s) ran the picked kernel, fewer than num_candidates=" + std::to_string(n) +
          " (HTA: list index out of range)";
      return;
    }
    for (size_t r : rows) out->is_straggler[r] = out->metric[r] >= threshold;
  }
  std::map<int64_t, int64_t> counts;
  for (size_t r = 0; r < out->metric.size(); ++r)
    counts[out->metric_rank[r]] += out->is_straggler[r];
  for (const auto& [rank, c] : counts) out->ranks.push_back(rank), out->counts.push_back(c);
}

}  // namespace

HtaStragglers hta_potential_stragglers(const std::map<int64_t, HtaFrame>& frames,
                                       const std::vector<int64_t>& steps, int64_t num_candidates,
                                       const std::map<std::string, int64_t>& name_ids) {
  HtaStragglers out;
  const std::set<int64_t> selected(steps.begin(), steps.end());
  const Window w = window(frames, selected);
  if (w.n_iters == 0) {  // HTA divides by float(0) in Python
    out.error_type = "ZeroDivisionError";
    out.error = "no row of the traces lies in the selected profiler steps";
    return out;
  }
  out.mean_iter_time = w.mean_iter_time;
  std::map<int64_t, std::string> names;
  const auto kernels =
      last_long_kernels(frames, selected, w.mean_iter_time * 0.01, name_ids, &names);
  StreamName pick;
  if (!idxmax(mean_spread(kernels, w.mean_iter_time), &pick, &out)) return out;
  out.stream = pick.first, out.name = names[pick.second];
  top_k(kernels, pick, w, static_cast<size_t>(std::max<int64_t>(num_candidates, 1)), &out);
  return out;
}

}  // namespace trace
