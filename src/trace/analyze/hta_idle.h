// Holistic Trace Analysis 0.5.0's idle time breakdown of one rank (breakdown_analysis.py,
// get_idle_time_breakdown and _analyze_idle_time_for_stream): the kernel, memcpy and memset rows
// (stream != -1, a kernel category: not cuda_sync), each left-joined on index_correlation to
// every frame row with that index (its runtime call; none: a NaN runtime ts); per stream, sorted
// by ts, each row's gap to the previous row's end (ts + dur; the first row's is NaN) is host
// wait if the runtime ts is after that end, else kernel wait if under
// consecutive_kernel_delay, else other (the first row too). Per category present: the
// grouped sum (pandas' Kahan sum, NaN skipped), its share of the stream's total and, when
// asked, describe() of the gaps. No head, no tail; negative gaps count.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

// HTA's IdleTimeType (utils/utils.py), its values in the frame's idle_category.
enum class HtaIdleType : int { HostWait = 0, KernelWait = 1, Other = 2 };

struct HtaIdleCategory {
  HtaIdleType type;
  double idle_us = 0;     // unrounded (HTA's frame rounds to 0.01 us)
  double ratio = 0;       // of the stream's idle time, unrounded
  HtaDescribe intervals;  // the gaps, when HtaIdleOptions::interval_stats
};

struct HtaIdleStream {
  int64_t stream = 0;
  std::vector<HtaIdleCategory> categories;  // those with a row, in HtaIdleType order
};

struct HtaIdleOptions {
  double consecutive_kernel_delay_us = 30;
  bool interval_stats = false;
  // The streams asked, in their order (HTA's `streams`); empty: every stream with a kernel row,
  // in the order they first appear (Series.unique).
  std::vector<int64_t> streams;
};

std::vector<HtaIdleStream> hta_idle(const HtaFrame& frame, const HtaIdleOptions& options,
                                    const HtaTsOrder& order, bool* int_wrapped);

}  // namespace trace
