// Holistic Trace Analysis' get_gpu_kernel_breakdown (analyzers/breakdown_analysis.py; the same
// code in 0.5.0 and 0.6.1 but for get_kernel_type, whose classes HtaFrame's rows carry):
//  - each GPU row (stream != -1) has a kernel type: COMMUNICATION, MEMORY (a name starting
//    Memcpy, Memset or dma), COMPUTATION, OTHER; the call looks at COMPUTATION, COMMUNICATION
//    and, with include_memory_kernels, MEMORY (bits 1, 2, 4 in that order).
//  - time by kernel type (_get_gpu_kernel_type_time), per rank: each type's rows merged into
//    disjoint intervals (merge_kernel_intervals); their starts (+bit) and ends (-bit) added to
//    the rows so far and sorted by time (pandas' quicksort, once per type: the order among equal
//    times is numpy's, HtaTsOrder); the running sum names each row's state ("COMPUTATION
//    overlapping COMMUNICATION", in bit order); each row with a state > 0 lasts to the next row
//    (truncated to an integer), summed per state. Over all ranks summed per state, sorted by sum
//    descending (numpy's quicksort again), percentage = sum / total * 100 rounded to 0.1.
//  - per kernel (_aggr_gpu_kernel_time), per rank and type: groupby(name) of dur: sum, max, min,
//    mean, std (ddof 1; 0 for one row), in pandas' groupby arithmetic. With more than
//    num_kernels names: sorted by sum descending, those past the duration_ratio quantile of the
//    running sum of sums, or at position num_kernels or later, are renamed "others", and the rows
//    grouped again by name over their sums (so a named kernel's max, min and mean are its sum).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

struct HtaKernelStats {
  std::string name;
  double sum = 0, max = 0, min = 0, mean = 0, std = 0;
};

// One rank's rows of one kernel type, in name order. aggregated: regrouped into "others" (the
// columns then have the type of the sums, else of dur).
struct HtaKernelGroup {
  int64_t rank = 0;
  std::string kernel_type;
  bool aggregated = false;
  std::vector<HtaKernelStats> rows;
};

struct HtaKernelBreakdown {
  // kernel_type_df's rows, in its order.
  std::vector<std::string> type_name;
  std::vector<int64_t> type_sum;
  std::vector<double> type_percentage;
  std::vector<HtaKernelGroup> kernels;  // by rank, then kernel type as analysed
  std::string error;                    // where HTA raises, its exception's name
};

// get_kernel_type(name) == MEMORY for the GPU row g (not communication; Memcpy, Memset, dma...).
bool hta_memory_kernel(const HtaFrame& frame, size_t g);

HtaKernelBreakdown hta_gpu_kernel_breakdown(const std::map<int64_t, HtaFrame>& frames,
                                            double duration_ratio, int64_t num_kernels,
                                            bool include_memory_kernels, const HtaTsOrder& order);

}  // namespace trace
