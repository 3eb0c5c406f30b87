#include "trace/analyze/hta_kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "trace/analyze/hta_intervals.h"

// File references below are to HolisticTraceAnalysis 0.5.0 and pandas 3.1.
namespace trace {
namespace {

enum KernelType : uint8_t { kComputation, kCommunication, kMemory, kOther };
constexpr const char* kTypeNames[] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};

// utils.py, get_kernel_type: communication first, then memory, then computation.
KernelType kernel_type(const HtaFrame& f, size_t g) {
  if (f.gpu_comm[g]) return kCommunication;
  if (f.gpu_name[g] != ListedEvent::kNone) {
    const std::string_view n = f.gpu_names[f.gpu_name[g]];
    for (std::string_view p : {"Memcpy", "Memset", "dma"})
      if (n.substr(0, p.size()) == p) return kMemory;
  }
  return f.gpu_compute[g] ? kComputation : kOther;
}

// sort_values(ascending=False) as pandas' nargsort makes it: numpy's argsort of the reversed
// values, mapped back and reversed (so that equal values fall as numpy leaves them).
std::vector<size_t> descending(const std::vector<double>& v, int bits, const HtaTsOrder& order) {
  const std::vector<double> reversed(v.rbegin(), v.rend());
  std::vector<size_t> o;
  order(reversed, bits, &o);
  std::vector<size_t> out;
  for (auto it = o.rbegin(); it != o.rend(); ++it) out.push_back(v.size() - 1 - *it);
  return out;
}

// numpy.quantile (method "linear") of unsorted values.
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return linear_quantile(v, q);
}

// groupby(by=["name"])[col].agg(["sum", "max", "min", "mean", "std"]) of (name, value) rows in
// frame order, groups in name order. pandas (groupby/ops.py): where the rows are already in
// group order, sum and mean go through np.add.reduceat (a pairwise sum per group), else the
// Cython kernels (group_sum, group_mean: Kahan); std is group_var's Welford update, ddof 1, 0
// where NaN (fillna). Integer columns sum exactly in int64.
std::vector<HtaKernelStats> group_stats(const std::vector<std::string>& names,
                                        const std::vector<double>& values, bool is_int) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < names.size(); ++i) groups[names[i]].push_back(i);
  std::map<std::string, size_t> id;
  for (const auto& [n, rows] : groups) id.emplace(n, id.size());
  bool monotonic = true;
  for (size_t i = 1; i < names.size(); ++i) monotonic &= id[names[i - 1]] <= id[names[i]];
  std::vector<HtaKernelStats> out;
  for (const auto& [n, rows] : groups) {
    HtaKernelStats s;
    s.name = n;
    std::vector<double> x;
    for (size_t i : rows) x.push_back(values[i]);
    // sum and mean over float64 (mean always; sum where the column is float64).
    double float_sum = 0;
    if (monotonic) {
      float_sum = pairwise_sum(x.data(), x.size());
    } else {
      KahanSum k;
      for (double v : x) k.add(v);
      float_sum = k.sum;
    }
    int64_t exact = 0;
    for (double v : x) exact += static_cast<int64_t>(v);
    s.sum = is_int ? static_cast<double>(exact) : float_sum;
    s.mean = float_sum / static_cast<double>(x.size());
    s.max = *std::max_element(x.begin(), x.end());
    s.min = *std::min_element(x.begin(), x.end());
    GroupVar var;
    for (double v : x) var.add(v);
    s.std = x.size() > 1 ? var.std() : 0;
    out.push_back(s);
  }
  return out;
}

// _aggr_gpu_kernel_time of one rank's rows of one type.
HtaKernelGroup aggregate(const std::vector<std::string>& names, const std::vector<double>& dur,
                         int dur_bits, double duration_ratio, int64_t num_kernels,
                         const HtaTsOrder& order) {
  HtaKernelGroup g;
  g.rows = group_stats(names, dur, dur_bits != 0);
  if (static_cast<int64_t>(g.rows.size()) <= num_kernels) return g;
  // sort_values(by=["sum"], ascending=False) in the sums' type: an integer sum keeps dur's
  // type where every sum fits it (pandas casts the result back), else int64.
  std::vector<double> sums;
  for (const auto& r : g.rows) sums.push_back(r.sum);
  int bits = 0;
  if (dur_bits) {
    const auto [lo, hi] = std::minmax_element(sums.begin(), sums.end());
    bits = std::max(dur_bits, downcast_bits(static_cast<int64_t>(*lo), static_cast<int64_t>(*hi)));
  }
  const std::vector<size_t> by_sum = descending(sums, bits, order);
  std::vector<double> cumsum, sorted_sums;
  double running = 0;
  for (size_t k : by_sum) cumsum.push_back(running += sums[k]), sorted_sums.push_back(sums[k]);
  const double q = quantile(cumsum, duration_ratio);
  std::vector<std::string> names2;
  // keep_idx = sum < 0 ("always false", HTA's comment says): a negative sum, from durations
  // that rounding made negative, keeps its name.
  for (size_t i = 0; i < by_sum.size(); ++i) {
    const bool keep = sorted_sums[i] < 0;
    const bool other = cumsum[i] > q || static_cast<int64_t>(i) >= num_kernels;
    names2.push_back(other && !keep ? std::string("others") : g.rows[by_sum[i]].name);
  }
  g.rows = group_stats(names2, sorted_sums, dur_bits != 0);
  g.aggregated = true;
  return g;
}

// _get_gpu_kernel_type_time of one rank: each state's time.
bool type_time(const HtaFrame& f, const std::vector<std::vector<size_t>>& rows_of_type,
               const HtaTsOrder& order, std::map<std::string, int64_t>* out) {
  struct Edge {
    double time;
    int64_t status;
  };
  std::vector<Edge> edges;
  const int time_bits = f.ts_bits && f.end_bits() ? 64 : 0;  // concat: int64, or float64
  bool wrapped = false;
  std::vector<int64_t> values;
  for (size_t t = 0; t < rows_of_type.size(); ++t) {
    const int64_t value = int64_t{1} << t;
    values.push_back(value);
    // merge_kernel_intervals (among equal ts, a row whose rounding made its duration negative
    // opens an interval or not by where numpy's sort puts it).
    const HtaIntervals merged = hta_merge_kernel_intervals(f, rows_of_type[t], order, &wrapped);
    // melt: the starts, then the ends; appended to the rows so far and sorted by time.
    for (double s : merged.ts) edges.push_back({s, value});
    for (double e : merged.end) edges.push_back({e, -value});
    std::vector<double> times;
    for (const Edge& e : edges) times.push_back(e.time);
    std::vector<size_t> by_time;
    order(times, time_bits, &by_time);
    std::vector<Edge> sorted;
    for (size_t k : by_time) sorted.push_back(edges[k]);
    edges = std::move(sorted);
  }
  int64_t running = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    running += edges[i].status;
    if (running <= 0) continue;
    std::string state;
    for (size_t t = 0; t < values.size(); ++t)
      if (running & values[t])
        state += (state.empty() ? "" : " overlapping ") + std::string(kTypeNames[t]);
    // (next_time - time).astype(int): the last row's NaN cannot be cast.
    if (i + 1 == edges.size()) return false;
    (*out)[state] += static_cast<int64_t>(edges[i + 1].time - edges[i].time);
  }
  return true;
}

}  // namespace

bool hta_memory_kernel(const HtaFrame& f, size_t g) { return kernel_type(f, g) == kMemory; }

HtaKernelBreakdown hta_gpu_kernel_breakdown(const std::map<int64_t, HtaFrame>& frames,
                                            double duration_ratio, int64_t num_kernels,
                                            bool include_memory_kernels, const HtaTsOrder& order) {
  HtaKernelBreakdown out;
  const size_t types = include_memory_kernels ? 3 : 2;
  std::map<std::string, int64_t> by_state;
  for (const auto& [rank, f] : frames) {
    std::vector<std::vector<size_t>> rows_of_type(types);
    for (size_t g = 0; g < f.gpu_ts.size(); ++g) {
      if (f.gpu_name[g] == ListedEvent::kNone) continue;  // no name: in no group
      const KernelType t = kernel_type(f, g);
      if (t < types) rows_of_type[t].push_back(g);
    }
    if (!type_time(f, rows_of_type, order, &by_state)) {
      out.error = "IntCastingNaNError";
      return out;
    }
    for (size_t t = 0; t < types; ++t) {
      std::vector<std::string> names;
      std::vector<double> dur;
      for (size_t g : rows_of_type[t])
        names.push_back(f.gpu_names[f.gpu_name[g]]), dur.push_back(f.gpu_dur[g]);
      HtaKernelGroup k = aggregate(names, dur, f.dur_bits, duration_ratio, num_kernels, order);
      k.rank = rank, k.kernel_type = kTypeNames[t];
      out.kernels.push_back(std::move(k));
    }
  }
  // groupby("kernel_type").sum(), then sort_values(by="sum", ascending=False).
  std::vector<std::string> states;
  std::vector<double> sums;
  int64_t total = 0;
  for (const auto& [s, v] : by_state)
    states.push_back(s), sums.push_back(static_cast<double>(v)), total += v;
  for (size_t k : descending(sums, 64, order)) {
    out.type_name.push_back(states[k]);
    out.type_sum.push_back(static_cast<int64_t>(sums[k]));
    out.type_percentage.push_back(numpy_round(
        static_cast<double>(out.type_sum.back()) / static_cast<double>(total) * 100, 1));
  }
  return out;
}

}  // namespace trace
