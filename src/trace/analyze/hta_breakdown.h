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
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "trace/analyze/hta_rows.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct HtaOptions {
  bool ns_rounding = true;
  double consecutive_kernel_delay_us = 30;
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
};

// One entry per rank (distributedInfo.rank). HTA's own rows when the traces were imported with
// ImportOptions::list_events, else those of their records (hta_rows.h).
std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces,
                                         const HtaOptions& options = {});

// numpy.percentile's default (linear interpolation, numpy's _lerp) over sorted values.
double linear_percentile(const std::vector<double>& sorted, double p);

}  // namespace trace
