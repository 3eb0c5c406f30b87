#include "trace/analyze/hta_launch.h"

#include <algorithm>
#include <unordered_map>

#include "trace/analyze/hta_numeric.h"

namespace trace {

HtaLaunchRows hta_launch_rows(const HtaFrame& f, bool* wrapped) {
  std::unordered_map<int64_t, std::vector<size_t>> gpu_by_corr;
  if (!f.cpu_correlation.empty()) {
    const std::vector<int64_t>& corrs = f.launch_correlations;  // sorted
    for (size_t r = 0; r < f.gpu_correlation.size(); ++r)
      if (std::binary_search(corrs.begin(), corrs.end(), f.gpu_correlation[r]))
        gpu_by_corr[f.gpu_correlation[r]].push_back(r);
  }
  HtaLaunchRows out;
  for (size_t c = 0; c < f.cpu_correlation.size(); ++c) {
    const auto it = gpu_by_corr.find(f.cpu_correlation[c]);
    if (it == gpu_by_corr.end()) continue;
    for (size_t g : it->second) {
      // (ts_y - ts_x) in the ts column's type, then - dur_x in the common type of both.
      const double since = column_op(f.gpu_ts[g], -f.cpu_ts[c], f.ts_bits, wrapped);
      const double d = column_op(since, -f.cpu_dur[c], f.end_bits(), wrapped);
      out.correlation.push_back(f.cpu_correlation[c]);
      out.cpu_duration.push_back(f.cpu_dur[c]), out.gpu_duration.push_back(f.gpu_dur[g]);
      out.launch_delay.push_back(d < 0 ? 0.0 : d);  // clip(lower=0)
    }
  }
  return out;
}

HtaLaunchStats launch_delay_stats(const HtaLaunchRows& rows) {
  HtaLaunchStats s;
  std::vector<double> delays = rows.launch_delay;
  s.count = delays.size();
  if (delays.empty()) return s;
  s.mean = pairwise_sum(delays.data(), delays.size()) / static_cast<double>(delays.size());
  std::sort(delays.begin(), delays.end());
  s.min = delays.front(), s.max = delays.back();
  s.p50 = linear_percentile(delays, 50), s.p90 = linear_percentile(delays, 90);
  return s;
}

}  // namespace trace
