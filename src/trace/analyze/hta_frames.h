// The rows of Holistic Trace Analysis 0.5.0's per-rank frame, after its load (rounding,
// alignment, index_correlation, step filter: hta_breakdown.h), that its temporal breakdown,
// idle time breakdown and kernel launch statistics read, with the column types HTA's frame
// has. Why: the Python package answers HTA's three calls with HTA's own DataFrames, so it runs
// HTA's pandas steps itself on these rows (a few per GPU event) instead of HTA's slow load.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "trace/analyze/hta_breakdown.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct HtaFrame {
  // Column types: 0 for float64, else the bits of the integer type HTA's downcast kept.
  int ts_bits = 0, dur_bits = 0, stream_bits = 64, correlation_bits = 64;
  bool int_wrapped = false;  // as HtaRank::int_wrapped
  // The rows with stream != -1, in frame order (one per copy the step filter made).
  std::vector<int64_t> gpu_index, gpu_stream, gpu_correlation, gpu_index_correlation;
  std::vector<double> gpu_ts, gpu_dur;
  std::vector<uint8_t> gpu_kernel_cat, gpu_compute;  // HtaEvent::kKernelCat, kComputeName
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
};

// One entry per rank (distributedInfo.rank), as hta_breakdown.
std::map<int64_t, HtaFrame> hta_frames(const std::vector<const ImportedTrace*>& traces,
                                       const HtaOptions& options = {});

}  // namespace trace
