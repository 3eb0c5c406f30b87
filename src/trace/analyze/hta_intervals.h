// Holistic Trace Analysis' merge_kernel_intervals (utils.py), as get_temporal_breakdown,
// get_comm_comp_overlap and get_gpu_kernel_breakdown call it on a frame's GPU rows: the rows
// sorted by ts (sort_values, numpy's order: HtaTsOrder); a row opens a new interval when its ts
// is after every earlier end (ts > end.shift().cummax(), NaN never opening); each interval its
// rows' smallest ts and largest end, NaN skipped (NaN when it has no other); then the intervals
// sorted by ts once more.
#pragma once

#include <cstddef>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

struct HtaIntervals {
  std::vector<double> ts, end;  // in the order of their own sort by ts
};

// The rows at `rows` (positions into the frame's GPU rows, in the order HTA's frame holds
// them). `sorted`, when given, gets those rows in their sort order (HTA sorts its frame in
// place); int_wrapped is set when ts + dur wraps around in the frame's integer type.
HtaIntervals hta_merge_kernel_intervals(const HtaFrame& f, const std::vector<size_t>& rows,
                                        const HtaTsOrder& order, bool* int_wrapped,
                                        std::vector<size_t>* sorted = nullptr);

}  // namespace trace
