// Holistic Trace Analysis 0.5.0's kernel launch statistics of one rank
// (cuda_kernel_analysis.py, cuda_kernel_launch_stats, include_memory_events=True): the
// correlations of rows named cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync or
// cudaMemsetAsync; every stream -1 row with one of them inner-merged on correlation with every
// stream != -1 row with the same (pandas: the CPU rows in order, each with its GPU rows in
// order); launch delay = GPU ts - call ts - call dur in the columns' types, clipped at 0.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/analyze/hta_frames.h"

namespace trace {

// HTA's frame: one row per (call, GPU row) pair.
struct HtaLaunchRows {
  std::vector<int64_t> correlation;
  std::vector<double> cpu_duration, gpu_duration, launch_delay;
};

HtaLaunchRows hta_launch_rows(const HtaFrame& frame, bool* int_wrapped);

// ./attribute --hta's summary of the launch delays: mean by numpy's pairwise sum, percentiles
// by numpy's linear interpolation.
struct HtaLaunchStats {
  uint64_t count = 0;
  double mean = 0, min = 0, p50 = 0, p90 = 0, max = 0;
};

HtaLaunchStats launch_delay_stats(const HtaLaunchRows& rows);

}  // namespace trace
