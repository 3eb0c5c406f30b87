// Holistic Trace Analysis' memory bandwidth (analyzers/trace_counters.py,
// _get_memory_bw_time_series_for_rank, get_memory_bw_summary; the same in 0.5.0 and 0.6.1 but
// for get_kernel_type's classes, which HtaFrame's rows carry):
//  - the GPU rows of kernel type MEMORY, named by get_memory_kernel_type ("Memset", the first 11
//    characters of a Memcpy name, else "Memcpy Unknown"), a duration of 0 taken as 1;
//  - each adds its bandwidth (args "memory bandwidth (GB/s)", 0 when absent) at its ts and takes
//    it back at ts + dur: the 2n rows (labels 0..2n-1: the starts, then the ends) sorted by ts
//    (numpy's quicksort: ties as numpy leaves them, HtaTsOrder), and per name, in name order, the
//    running sum (numpy's cumsum, left to right: a copy's bandwidth added and taken back need not
//    return to exactly 0);
//  - the summary: pandas describe() of each name's running sums above 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

struct HtaMemoryBw {
  // The time series' rows, in HTA's order: label, ts (in ts_bits' type), the name, the GPU row
  // (for its pid) and the running bandwidth.
  std::vector<int64_t> label;
  std::vector<double> ts, bw;
  std::vector<std::string> name;
  std::vector<size_t> gpu;
  int ts_bits = 0;
  // describe() of each name's values above 0, for the names that have any, in name order.
  std::vector<std::string> summary_name;
  std::vector<HtaDescribe> summary;
};

HtaMemoryBw hta_memory_bw(const HtaFrame& frame, const HtaTsOrder& order);

}  // namespace trace
