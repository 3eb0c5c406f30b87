// The rows of Holistic Trace Analysis' per-rank DataFrame (0.5.0's, or 0.6.1's where it differs:
// HtaVersion), after its load, that its analyzers read (hta_temporal.h, hta_idle.h, hta_launch.h,
// hta_queue.h, hta_comm.h), with the column types HTA's frame has: a few per GPU event, not the
// whole trace, so that the Python package can keep them between its calls. HTA's load, every rule
// HTA's own (hta_frames.cpp quotes its files):
//  - rows (hta_rows.h): events with "dur" and "cat", except cat "Trace"; times are the doubles
//    Python reads from the text. Integer columns are narrowed to the smallest integer type that
//    holds them, and ts + dur wraps around in it as in numpy. When a file's "ts" column is
//    float64 (any decimal, or a missing ts) and rounding is on: end = ts + dur, ts rounded up,
//    end down, dur = end - ts (may go negative).
//  - every rank's ts minus the smallest ts of all ranks (the alignment), before anything else.
//  - index_correlation: a GPU row's host row is the last one in file order with its
//    correlation, and the reverse; 0 when no row matches, min(correlation, 0) otherwise.
//  - with two or more names containing "ProfilerStep" (0.6.1: named ProfilerStep#N; a rank
//    without host rows kept whole) over all ranks: host rows starting at or after the rank's
//    last step start are dropped; each GPU row is kept once per kept host row with its
//    correlation (zero, one or several copies). The frame is then the GPU rows,
//    then the host rows.
//  - add_iteration (before the alignment and the step filter): a row on stream < 0 (0.6.1: and a
//    cpu_op on stream 0) is in the step of the last row named ProfilerStep#N, in file order,
//    whose [ts, ts + dur) holds its ts (-1: none); a row on stream > 0 in its host row's
//    (index_correlation; -1 when that is not > 0); any other row's is NaN.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_numeric.h"
#include "trace/model/imported_trace.h"

namespace trace {

// The release whose rules apply: holistictraceanalysis 0.5.0, or traceinsight 0.6.1 (the module
// is still hta), which changed the kernel classes, the queue's launches and the step filter.
enum class HtaVersion : uint8_t { V0_5, V0_6 };

struct HtaOptions {
  HtaVersion version = HtaVersion::V0_6;
  bool ns_rounding = true;
  double consecutive_kernel_delay_us = 30;
  int64_t max_queue_length = 1024;  // HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
  // Where HTA sorts by ts, the order among equal ts (hta_numeric.h): ./attribute --hta pins
  // file order; the Python package passes numpy's own sort, as HTA runs it on that machine.
  HtaTsOrder ts_order = stable_ts_order;
};

// add_iteration's NaN: a row no rule places.
constexpr int64_t kHtaNoIteration = INT64_MIN;

// One iteration's rows of a frame: the smallest ts, and the largest ts + dur as it comes out
// in a column of 8, 16, 32 or 64 bits (max_end[0..3]; the last also float64's), since the type of
// the ranks' concatenation, which get_potential_stragglers adds in, is only known over all ranks.
struct HtaIterationSpan {
  int64_t iteration = 0;
  double min_ts = kHtaNaN;
  double max_end[4] = {kHtaNaN, kHtaNaN, kHtaNaN, kHtaNaN};
};

struct HtaFrame {
  // Column types: 0 for float64, else the bits of the integer type HTA's downcast kept.
  int ts_bits = 0, dur_bits = 0, stream_bits = 64, correlation_bits = 64;
  // ts + dur wrapped around in a GPU row (see HtaRank::int_wrapped).
  bool int_wrapped = false;
  // The type of ts + dur (and of ts - ts - dur): the wider integer, float64 if either is.
  int end_bits() const { return ts_bits && dur_bits ? std::max(ts_bits, dur_bits) : 0; }

  // The rows with stream != -1, in frame order (one per copy the step filter made).
  std::vector<int64_t> gpu_index, gpu_stream, gpu_correlation, gpu_index_correlation;
  std::vector<double> gpu_ts, gpu_dur;
  // HtaEvent::kKernelCat; the release's computation and communication kernel classes.
  std::vector<uint8_t> gpu_kernel_cat, gpu_compute, gpu_comm;
  // The frame rows whose index label is a GPU row's index_correlation, in frame order: what the
  // idle breakdown's join on index_correlation can find.
  std::vector<int64_t> runtime_index;
  std::vector<double> runtime_ts;
  // The launch statistics: the correlations of rows named as launches (cudaLaunchKernel,
  // cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync), and the rows with stream -1 that
  // carry one of them, in frame order.
  std::vector<int64_t> launch_correlations;
  std::vector<int64_t> cpu_correlation;
  std::vector<double> cpu_ts, cpu_dur;
  // The queue length: the rows named as HTA's queue launches (HtaEvent::kQueueLaunchName) with
  // index_correlation > 0, in frame order; and the smallest and largest ts of the frame.
  std::vector<int64_t> queue_index, queue_correlation;
  std::vector<double> queue_ts;
  double ts_min = 0, ts_max = 0;
  // get_profiler_steps: each row named ProfilerStep... (HtaEvent::kStepPrefixName), its N.
  std::vector<int32_t> step_iters;
  // The queue length series: the GPU rows' pid and tid as written (kText: an index into
  // id_text), and the types of the index, pid and tid columns (bits; 0 float64; -1 object).
  std::vector<ListedId> gpu_pid, gpu_tid;
  std::vector<std::string> id_text;
  int index_bits = 64, pid_bits = -1, tid_bits = -1;
  // The kernel breakdown: each GPU row's name (an index into gpu_names; kNone: none).
  std::vector<uint32_t> gpu_name;
  std::vector<std::string> gpu_names;
  std::vector<double> gpu_memory_bw;  // the memory bandwidth (GB/s) HTA's args give each
  // get_potential_stragglers: each GPU row's iteration (kHtaNoIteration: NaN); the frame's rows
  // of each iteration >= 0, ascending; whether the rank had rows (HTA drops one without).
  std::vector<int64_t> gpu_iteration;
  std::vector<HtaIterationSpan> iteration_spans;
  bool has_rows = false;
  // The rank's categories and names as HTA's local symbol table takes them (HtaEvents::cat_order).
  std::vector<std::string> symbol_cats, symbol_names;
  int64_t symbol_name_missing_at = -1;
};

// One entry per rank (distributedInfo.rank). HTA's own rows when the traces were imported with
// ImportOptions::list_events, else those of their records (hta_rows.h).
std::map<int64_t, HtaFrame> hta_frames(const std::vector<const ImportedTrace*>& traces,
                                       const HtaOptions& options = {});
// The same for a caller that keeps nothing else of the traces: each one's listed events are
// released once its HTA rows are made, so that the load's peak holds one copy of the events,
// not two (the listing's strings stay: the rows name them).
std::map<int64_t, HtaFrame> hta_frames(std::vector<ImportedTrace>* traces,
                                       const HtaOptions& options = {});

}  // namespace trace
