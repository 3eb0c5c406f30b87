#include "trace/analyze/hta_intervals.h"

#include <algorithm>
#include <cmath>

namespace trace {

HtaIntervals hta_merge_kernel_intervals(const HtaFrame& f, const std::vector<size_t>& rows,
                                        const HtaTsOrder& order, bool* int_wrapped,
                                        std::vector<size_t>* sorted) {
  std::vector<double> row_ts;
  for (size_t r : rows) row_ts.push_back(f.gpu_ts[r]);
  std::vector<size_t> by_ts;
  order(row_ts, f.ts_bits, &by_ts);
  if (sorted) sorted->clear();
  HtaIntervals groups;
  double running_max = kHtaNaN;  // of every earlier end, NaN skipped
  double prev_end = kHtaNaN;
  for (size_t i = 0; i < by_ts.size(); ++i) {
    const size_t r = rows[by_ts[i]];
    if (sorted) sorted->push_back(r);
    const double ts = f.gpu_ts[r];
    const double end = column_op(ts, f.gpu_dur[r], f.end_bits(), int_wrapped);
    // end.shift().cummax() here: NaN where the previous end is NaN (or there is none).
    const double prev = i == 0 || std::isnan(prev_end) ? kHtaNaN : running_max;
    if (i == 0 || ts > prev) {
      groups.ts.push_back(ts), groups.end.push_back(end);
    } else {
      double& t = groups.ts.back();
      double& e = groups.end.back();
      if (std::isnan(t) || ts < t) t = ts;
      if (std::isnan(e) || end > e) e = end;
    }
    if (!std::isnan(end)) running_max = std::isnan(running_max) ? end : std::max(running_max, end);
    prev_end = end;
  }
  std::vector<size_t> by_group_ts;
  order(groups.ts, f.ts_bits, &by_group_ts);
  HtaIntervals out;
  for (size_t k : by_group_ts) out.ts.push_back(groups.ts[k]), out.end.push_back(groups.end[k]);
  return out;
}

}  // namespace trace
