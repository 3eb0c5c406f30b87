// Holistic Trace Analysis 0.5.0's launch queue of one rank (trace_counters.py, TraceCounters):
//  - queue length (_get_queue_length_time_series_for_rank, get_queue_length_summary): launches
//    are rows named as HTA's get_runtime_launch_events_query lists (cudaLaunchKernel,
//    cudaLaunchKernelExC, cuLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync, their HIP and MTIA
//    names) with index_correlation > 0, each left-joined to every stream != -1 row with its
//    correlation (+1 at the call's ts, on that row's stream; none: no stream); the stream != -1
//    rows whose correlation some launch has (-1 at their ts). HTA asserts the two counts are
//    equal (else it raises). Both sets, launches first, sorted by ts; per stream the running
//    sum is the queue length at each row. Summary: pandas describe() of those values per
//    stream (count, mean, std with ddof 1, min, 25/50/75 % linear, max): per row, not per time.
//  - time blocked on a full queue (get_time_spent_blocked_on_full_queue): per stream, each
//    row's time to the stream's next row, summed over the rows with queue length >=
//    max_queue_length; relative: over the rank's ts max - ts min. HTA keeps one row per rank,
//    of the last stream (in stream order) that has such rows. Its boolean row selection
//    aligns on the row labels (file indices): where labels repeat (one launch joined to several
//    GPU rows) and the series has other streams, each of the stream's rows takes the mask of
//    every row with its label, the rows at the true positions are taken (not always the right
//    ones), and a true position past the stream's rows raises (IndexError), as in HTA.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"

namespace trace {

// pandas describe() of one stream's queue lengths.
struct HtaQueueStats {
  uint64_t count = 0;
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;  // std NaN when count 1
};

// One row of get_queue_length_time_series' frame: its index label (the file's event index), ts,
// stream, queue length, and the GPU row (HtaFrame::gpu_*) whose pid and tid it has.
struct HtaQueuePoint {
  int64_t index = 0;
  double ts = 0;
  int64_t stream = 0, length = 0;
  size_t gpu = 0;
};

struct HtaFullQueue {
  int64_t max_queue_length = 0;
  bool present = false;  // HTA returned a row for the rank
  int64_t stream = 0;
  double duration_us = 0, relative = 0;
};

struct HtaQueue {
  std::map<int64_t, HtaQueueStats> length;  // by stream
  // A launch joined no GPU row: its NaN stream makes HTA's stream column float64.
  bool float_stream = false;
  // The series' labels, in ts order, step evenly: pandas' set_index makes them an int64 range.
  bool range_index = false;
  std::string length_error;  // HTA raises computing the queue series (its message's kind)
  // get_queue_length_time_series' rows: each stream's (in stream order), sorted by ts.
  std::vector<HtaQueuePoint> series;
  HtaFullQueue full;
  std::string full_error;  // HTA raises in get_time_spent_blocked_on_full_queue
  bool int_wrapped = false;
};

HtaQueue hta_queue(const HtaFrame& frame, int64_t max_queue_length, const HtaTsOrder& order);

// get_time_spent_blocked_on_full_queue of one rank from a queue length series as HTA's frame
// has it (rows in its order, any caller's), over trace_duration (HtaFrame: ts max - ts min).
// *error: where HTA raises, its exception's name (the row is then not present).
HtaFullQueue hta_full_queue(const std::vector<HtaQueuePoint>& ql, double trace_duration,
                            int64_t max_queue_length, std::string* error);

// Trace.get_trace_duration: the rank's ts max - ts min, in the ts column's type.
double hta_trace_duration(const HtaFrame& frame, bool* int_wrapped);

}  // namespace trace
