#include "trace/analyze/hta_idle.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace trace {
namespace {

// gpu_kernels_pre.join(trace_df[["ts", "index"]], on="index_correlation"): the kernel rows in
// frame order, each once per frame row whose index is its index_correlation (in frame order),
// or once with a NaN runtime ts.
struct Kernels {
  std::vector<int64_t> stream;
  std::vector<double> ts, dur, runtime_ts;
};

Kernels kernels_with_runtime(const HtaFrame& f) {
  std::unordered_map<int64_t, std::vector<double>> runtime_at;
  for (size_t i = 0; i < f.runtime_index.size(); ++i)
    runtime_at[f.runtime_index[i]].push_back(f.runtime_ts[i]);
  Kernels k;
  const auto add = [&](size_t r, double runtime_ts) {
    k.stream.push_back(f.gpu_stream[r]), k.ts.push_back(f.gpu_ts[r]);
    k.dur.push_back(f.gpu_dur[r]), k.runtime_ts.push_back(runtime_ts);
  };
  for (size_t r = 0; r < f.gpu_ts.size(); ++r) {
    if (!f.gpu_kernel_cat[r]) continue;
    const auto it = runtime_at.find(f.gpu_index_correlation[r]);
    if (it == runtime_at.end())
      add(r, kHtaNaN);
    else
      for (double ts : it->second) add(r, ts);
  }
  return k;
}

HtaIdleStream one_stream(int64_t stream, const Kernels& k, const HtaFrame& f,
                         const HtaIdleOptions& opt, const HtaTsOrder& order, bool* wrapped) {
  std::vector<size_t> rows;
  std::vector<double> ts;
  for (size_t i = 0; i < k.stream.size(); ++i)
    if (k.stream[i] == stream) rows.push_back(i), ts.push_back(k.ts[i]);
  std::vector<size_t> by_ts;
  order(ts, f.ts_bits, &by_ts);

  // Each gap into its category's group, in sorted order (groupby keeps it within a group).
  constexpr int kTypes = 3;
  std::vector<double> gaps[kTypes];
  bool present[kTypes] = {};
  double prev_end = kHtaNaN;  // end_ts.shift(1): float64, NaN first
  for (size_t pos : by_ts) {
    const size_t i = rows[pos];
    const double gap = k.ts[i] - prev_end;
    HtaIdleType type = HtaIdleType::Other;
    if (k.runtime_ts[i] > prev_end)
      type = HtaIdleType::HostWait;
    else if (gap < opt.consecutive_kernel_delay_us)
      type = HtaIdleType::KernelWait;
    gaps[static_cast<int>(type)].push_back(gap);
    present[static_cast<int>(type)] = true;
    prev_end = column_op(k.ts[i], k.dur[i], f.end_bits(), wrapped);
  }

  HtaIdleStream out;
  out.stream = stream;
  std::vector<double> sums;
  for (int t = 0; t < kTypes; ++t) {
    if (!present[t]) continue;
    KahanSum sum;
    for (double g : gaps[t])
      if (!std::isnan(g)) sum.add(g);
    HtaIdleCategory c;
    c.type = static_cast<HtaIdleType>(t);
    c.idle_us = sum.sum;
    if (opt.interval_stats) c.intervals = describe(gaps[t]);
    out.categories.push_back(c);
    sums.push_back(sum.sum);
  }
  // result["idle_interval"] / result.idle_interval.sum()
  const double total = nan_sum(sums);
  for (auto& c : out.categories) c.ratio = c.idle_us / total;
  return out;
}

}  // namespace

std::vector<HtaIdleStream> hta_idle(const HtaFrame& f, const HtaIdleOptions& opt,
                                    const HtaTsOrder& order, bool* wrapped) {
  const Kernels k = kernels_with_runtime(f);
  std::vector<int64_t> streams = opt.streams;
  if (streams.empty()) {
    std::unordered_set<int64_t> seen;
    for (int64_t s : k.stream)
      if (seen.insert(s).second) streams.push_back(s);
  }
  std::vector<HtaIdleStream> out;
  for (int64_t s : streams) out.push_back(one_stream(s, k, f, opt, order, wrapped));
  return out;
}

}  // namespace trace
