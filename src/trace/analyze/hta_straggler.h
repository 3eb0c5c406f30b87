// Holistic Trace Analysis' get_potential_stragglers (straggler_analysis.py and straggler.py, the
// same in 0.5.0 and 0.6.1) over every rank's frame (hta_frames.h), for steps the caller has
// checked against get_profiler_steps:
//  - the frames' rows in those steps: t_min is their smallest ts, mean_iter_time their largest
//    ts + dur (in the ranks' concatenated column type) minus t_min, over the number of steps
//    they hold;
//  - long communication kernels: stream > 0, iteration > 0, dur >= mean_iter_time * 0.01, a name
//    starting "ncclKernel"; the last of each (rank, stream, iteration, name) in frame order;
//  - normalized_start_time = (ts - t_min) / mean_iter_time, duration = dur / mean_iter_time; the
//    (stream, name) whose duration's std across ranks (ddof 1), averaged over the iterations, is
//    largest picks the kernels (idxmax: the first among equals in (stream, name symbol id)
//    order, so the caller gives HTA's symbol ids);
//  - per iteration, a rank is a straggler where its start is >= the num_candidates-th largest
//    (ties all count); each rank's count over the iterations.
// Where HTA raises, error_type and error say so (ValueError: no such kernel, or every spread NaN
// as with one rank; IndexError: fewer ranks than num_candidates; ZeroDivisionError: no rows).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"

namespace trace {

struct HtaStragglers {
  std::string error_type, error;  // empty when HTA computes the counts
  // straggler_counts: how often each rank is a straggler, ranks ascending (HTA's Series, which
  // the caller sorts as HTA does: the order of equal counts is numpy's sort's).
  std::vector<int64_t> ranks, counts;
  // The metric HTA plots: the picked kernels' rank, iteration, start and straggler flag.
  std::vector<int64_t> metric_rank, metric_iteration;
  std::vector<double> metric;
  std::vector<uint8_t> is_straggler;
  int64_t stream = 0;
  std::string name;
  double mean_iter_time = kHtaNaN;
};

// name_ids: HTA's symbol id of each name starting "ncclKernel" (a name without one sorts last).
HtaStragglers hta_potential_stragglers(const std::map<int64_t, HtaFrame>& frames,
                                       const std::vector<int64_t>& steps, int64_t num_candidates,
                                       const std::map<std::string, int64_t>& name_ids);

}  // namespace trace
