// ./attribute --hta: Holistic Trace Analysis 0.5.0's own definitions, reproduced so that its
// figures can be compared number for number (tests/data/hta_expected/ on the real traces,
// tests/data/hta_cases/ and experiments/hta_differential.py on generated ones). Every rule
// below is HTA's, read from its source; hta_breakdown.cpp quotes the file and function of
// each. Where they differ from ours (attribution.h), docs/trace-tool.md says why.
//
// HTA works on a pandas DataFrame per rank, and its figures depend on that frame's rows and
// their order, so the rows are rebuilt as HTA builds them:
//  - rows (hta_rows.h): events with "dur" and "cat", except cat "Trace"; times are the doubles
//    Python reads from the text. Integer columns are narrowed to the smallest integer type that
//    holds them, and ts + dur wraps around in it as in numpy (flagged: HtaRank::int_wrapped). When
//    a file's "ts" column is float64 (any decimal, or a missing ts) and rounding is on: end = ts +
//    dur, ts rounded up, end down, dur = end - ts (may go negative).
//  - every rank's ts minus the smallest ts of all ranks (the alignment), before anything else.
//  - index_correlation: a GPU row's host row is the last one in file order with its
//    correlation, and the reverse; 0 when no row matches, min(correlation, 0) otherwise.
//  - with two or more names containing "ProfilerStep" (over all ranks): host rows starting at
//    or after the rank's last step start are dropped; each GPU row is kept once per kept host
//    row with its correlation (zero, one or several copies). The frame is then the GPU rows,
//    then the host rows.
//  - sorts by ts are pandas' quicksort, whose order among equal ts is unspecified (numpy's
//    SIMD sort, machine-dependent): here equal ts keep frame order (a stable sort), which is
//    one of the orders HTA's code allows; experiments/hta_differential.py counts the traces
//    where HTA's native order gives other figures.
// Figures:
//  - temporal: rows with stream != -1; union of [ts, ts + dur) merged as HTA merges (a row
//    starts a new interval when its ts is after every earlier end); kernel time = last merged
//    end - first start; idle = kernel time - (sum of ends - sum of starts); compute = the same
//    over computation-named rows; non-compute = kernel time - compute - idle.
//  - idle by stream: kernel/memcpy/memset rows (stream != -1), each joined to every row whose
//    file index is its index_correlation (zero matches: one row without a runtime ts); per
//    stream by ts; each gap to the previous row's end: host wait if the runtime ts is after
//    that end, else kernel wait if under 30 us, else other. No head, no tail; negative gaps
//    count. HTA rounds these to 0.01 us for display; they are given here unrounded.
//  - launch delay: rows named cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
//    cudaMemsetAsync give the correlations; every stream -1 row with one of them paired with
//    every stream != -1 row with the same: GPU ts - call ts - call dur, clipped at 0; mean by
//    numpy's pairwise sum, percentiles by numpy's linear interpolation.
//  - queue length (trace_counters.py, _get_queue_length_time_series_for_rank): launches are
//    rows named as HTA's get_runtime_launch_events_query lists (cudaLaunchKernel,
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

#include "trace/analyze/hta_rows.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct HtaOptions {
  bool ns_rounding = true;
  double consecutive_kernel_delay_us = 30;
  int64_t max_queue_length = 1024;  // HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
};

// pandas describe() of one stream's queue lengths.
struct HtaQueueStats {
  uint64_t count = 0;
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;  // std NaN when count 1
};

struct HtaFullQueue {
  int64_t max_queue_length = 0;
  bool present = false;  // HTA returned a row for the rank
  int64_t stream = 0;
  double duration_us = 0, relative = 0;
};

struct HtaIdle {
  double host_wait_us = 0, kernel_wait_us = 0, other_us = 0;
};

struct HtaLaunchStats {
  uint64_t count = 0;
  double mean = 0, min = 0, p50 = 0, p90 = 0, max = 0;
};

struct HtaRank {
  bool has_gpu = false;  // temporal figures exist
  // HTA's int8/int16/int32 columns wrapped around in a sum (a trace of small integer
  // timestamps whose ends cross the type's limit): its figures, and ours, are then not the
  // true ones. Said by ./attribute --hta.
  bool int_wrapped = false;
  double idle_us = 0, compute_us = 0, non_compute_us = 0, kernel_time_us = 0;
  std::map<int64_t, HtaIdle> idle_by_stream;
  HtaLaunchStats launch_delay;
  std::map<int64_t, HtaQueueStats> queue_length;  // by stream
  std::string queue_error;  // HTA raises computing the queue series (its message's kind)
  HtaFullQueue full_queue;
  std::string full_queue_error;  // HTA raises in get_time_spent_blocked_on_full_queue
};

// One entry per rank (distributedInfo.rank). HTA's own rows when the traces were imported with
// ImportOptions::list_events, else those of their records (hta_rows.h).
std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces,
                                         const HtaOptions& options = {});

// numpy.percentile's default (linear interpolation, numpy's _lerp) over sorted values.
double linear_percentile(const std::vector<double>& sorted, double p);

}  // namespace trace
