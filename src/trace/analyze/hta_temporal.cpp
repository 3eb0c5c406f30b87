#include "trace/analyze/hta_temporal.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace trace {
namespace {

// HTA's merged intervals: ts and end columns, in the order of their own sort by ts.
struct Merged {
  std::vector<double> ts, end;
};

// utils.py, merge_kernel_intervals, on rows already in sort_values(by="ts") order. The groupby
// takes each group's min ts and max end, NaN skipped (NaN when the group has no other); then
// the merged frame is sorted by ts once more.
Merged merge_intervals(const std::vector<double>& ts, const std::vector<double>& end, int ts_bits,
                       const HtaTsOrder& order) {
  Merged groups;
  double running_max = kHtaNaN;  // of every earlier end, NaN skipped
  for (size_t i = 0; i < ts.size(); ++i) {
    // end.shift().cummax() here: NaN where the previous end is NaN (or there is none).
    const double prev = i == 0 || std::isnan(end[i - 1]) ? kHtaNaN : running_max;
    if (i == 0 || ts[i] > prev) {
      groups.ts.push_back(ts[i]), groups.end.push_back(end[i]);
    } else {
      double& t = groups.ts.back();
      double& e = groups.end.back();
      if (std::isnan(t) || ts[i] < t) t = ts[i];
      if (std::isnan(e) || end[i] > e) e = end[i];
    }
    if (!std::isnan(end[i]))
      running_max = std::isnan(running_max) ? end[i] : std::max(running_max, end[i]);
  }
  std::vector<size_t> by_ts;
  order(groups.ts, ts_bits, &by_ts);
  Merged out;
  for (size_t k : by_ts) out.ts.push_back(groups.ts[k]), out.end.push_back(groups.end[k]);
  return out;
}

// merge_kernel_intervals of the rows at `rows` (positions into the frame's GPU rows): sorted
// by ts first.
Merged merge_rows(const HtaFrame& f, const std::vector<size_t>& rows, const HtaTsOrder& order,
                  std::vector<size_t>* sorted, bool* wrapped) {
  std::vector<double> ts;
  for (size_t r : rows) ts.push_back(f.gpu_ts[r]);
  std::vector<size_t> by_ts;
  order(ts, f.ts_bits, &by_ts);
  sorted->clear();
  std::vector<double> sorted_ts, sorted_end;
  for (size_t k : by_ts) {
    const size_t r = rows[k];
    sorted->push_back(r);
    sorted_ts.push_back(f.gpu_ts[r]);
    sorted_end.push_back(column_op(f.gpu_ts[r], f.gpu_dur[r], f.end_bits(), wrapped));
  }
  return merge_intervals(sorted_ts, sorted_end, f.ts_bits, order);
}

// breakdown_analysis.py: merged.end.sum() - merged.ts.sum().
HtaScalar run_time(const Merged& m, const HtaFrame& f) {
  return column_sum(m.end, f.end_bits()) - column_sum(m.ts, f.ts_bits);
}

}  // namespace

HtaTemporal hta_temporal(const HtaFrame& f, const HtaTsOrder& order) {
  HtaTemporal out;
  if (f.gpu_ts.empty()) {
    out.error = "IndexError";
    return out;
  }
  std::vector<size_t> all(f.gpu_ts.size()), sorted;
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const Merged merged = merge_rows(f, all, order, &sorted, &out.int_wrapped);
  // merged.iloc[-1]["end"] - merged.iloc[0]["ts"]: a row of both columns holds them in their
  // common type, and they subtract in it (a narrow integer wraps around).
  const int row_bits = f.ts_bits && f.end_bits() ? std::max(f.ts_bits, f.end_bits()) : 0;
  const double span = column_op(merged.end.back(), -merged.ts.front(), row_bits, &out.int_wrapped);
  out.kernel_time = HtaScalar::of(span, row_bits);
  out.idle = out.kernel_time - run_time(merged, f);

  // The computation rows of the sorted frame, merged (and so sorted) again.
  std::vector<size_t> comp, comp_sorted;
  for (size_t r : sorted)
    if (f.gpu_compute[r]) comp.push_back(r);
  out.compute = run_time(merge_rows(f, comp, order, &comp_sorted, &out.int_wrapped), f);
  out.non_compute = out.kernel_time - out.compute - out.idle;
  HtaScalar zero;
  zero.bits = 64;
  if (!(out.idle <= out.kernel_time) || !(out.compute <= out.kernel_time) ||
      !(zero <= out.non_compute))
    out.error = "AssertionError";

  // result_df[part] = result_df[part(us)] / result_df["kernel_time(us)"] (float64), then
  // round(100 * part, 2).
  const auto pctg = [&](HtaScalar part) {
    return numpy_round(100 * (part.f() / out.kernel_time.f()), 2);
  };
  out.idle_pctg = pctg(out.idle), out.compute_pctg = pctg(out.compute);
  out.non_compute_pctg = pctg(out.non_compute);
  return out;
}

}  // namespace trace
