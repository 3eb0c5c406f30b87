// Holistic Trace Analysis 0.5.0's temporal breakdown of one rank (breakdown_analysis.py,
// get_temporal_breakdown and _get_idle_time_for_kernels; utils.py, merge_kernel_intervals):
// the rows with stream != -1 sorted by ts; their [ts, ts + dur) merged (a row opens a new
// interval when its ts is after every earlier end: ts > end.shift().cummax(), NaN never
// opening); kernel time = the last merged interval's end - the first one's start; idle =
// kernel time - (sum of ends - sum of starts); compute = the same sum over the merge of the
// rows whose name HTA types COMPUTATION; non-compute = kernel time - compute - idle. Each in
// the numpy type HTA's arithmetic gives it (hta_numeric.h), and HTA's frame's percentages.
#pragma once

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

struct HtaTemporal {
  // Where HTA raises instead: "IndexError" (no GPU row: merged.iloc[-1] of nothing) or
  // "AssertionError" (its checks idle <= kernel time, compute <= kernel time, non-compute >=
  // 0, which negative durations or wrapped integers can break); nullptr when it does not.
  const char* error = nullptr;
  HtaScalar idle, compute, non_compute, kernel_time;
  // round(100 * x / kernel time, 2), as HTA's frame has them.
  double idle_pctg = 0, compute_pctg = 0, non_compute_pctg = 0;
  bool int_wrapped = false;  // an integer column wrapped around (HtaRank::int_wrapped)
};

HtaTemporal hta_temporal(const HtaFrame& frame, const HtaTsOrder& order);

}  // namespace trace
