#include "trace/analyze/hta_temporal.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "trace/analyze/hta_intervals.h"

namespace trace {
namespace {

// breakdown_analysis.py: merged.end.sum() - merged.ts.sum().
HtaScalar run_time(const HtaIntervals& m, const HtaFrame& f) {
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
  const HtaIntervals merged = hta_merge_kernel_intervals(f, all, order, &out.int_wrapped, &sorted);
  // merged.iloc[-1]["end"] - merged.iloc[0]["ts"]: a row of both columns holds them in their
  // common type, and they subtract in it (a narrow integer wraps around).
  const int row_bits = f.ts_bits && f.end_bits() ? std::max(f.ts_bits, f.end_bits()) : 0;
  const double span = column_op(merged.end.back(), -merged.ts.front(), row_bits, &out.int_wrapped);
  out.kernel_time = HtaScalar::of(span, row_bits);
  out.idle = out.kernel_time - run_time(merged, f);

  // The computation rows of the sorted frame, merged (and so sorted) again.
  std::vector<size_t> comp;
  for (size_t r : sorted)
    if (f.gpu_compute[r]) comp.push_back(r);
  out.compute = run_time(hta_merge_kernel_intervals(f, comp, order, &out.int_wrapped), f);
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
