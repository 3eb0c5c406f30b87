// ./attribute --hta: Holistic Trace Analysis 0.5.0's own definitions, reproduced so that its
// figures can be compared number for number (tests/data/hta_expected/). Read from HTA's
// source (hta/common/trace.py, trace_parser.py, analyzers/breakdown_analysis.py,
// cuda_kernel_analysis.py); where they differ from ours (attribution.h), README says why.
//  - times: microseconds as doubles; when pandas holds "ts" as float64 (any decimal or
//    missing ts), start rounded up and end down to whole us, unless ns_rounding is off
//    (HTA_DISABLE_NS_ROUNDING=1).
//  - with two or more distinct names containing "ProfilerStep" (over all ranks): host events
//    starting at or after the last step's start are dropped, and GPU events whose
//    correlation is on no kept host event with them (one copy per matching host event).
//  - temporal: over events with stream != -1: span = last end - first start, idle = span -
//    union, compute = union of computation kernels (not NCCL, Memcpy/Memset/dma, *Sync*).
//  - idle by stream: kernel/memcpy/memset events per stream sorted by start; each gap to the
//    previous event's end: host wait if the event's runtime call started after that end,
//    else kernel wait if under 30 us, else other. No head, no tail; negative gaps count.
//  - launch delay: cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync
//    joined to their GPU events: GPU start - (call start + call duration), clipped at 0.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

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
  double idle_us = 0, compute_us = 0, non_compute_us = 0, kernel_time_us = 0;
  std::map<int64_t, HtaIdle> idle_by_stream;
  HtaLaunchStats launch_delay;
};

// One entry per rank (distributedInfo.rank); the traces must be imported with hta_events.
std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces, const HtaOptions& options = {});

// numpy.percentile's default (linear interpolation) over sorted values.
double linear_percentile(const std::vector<double>& sorted, double p);

}  // namespace trace
