// Per kernel name, the three times Nsight Systems' cuda_kern_exec_sum report splits a kernel
// into, over the whole trace:
// - API time: its launch call, end - start;
// - queue time: from the end of the launch call to the kernel's start, counted only when
//   positive (queue_count says how many were; a kernel that started before its call returned
//   waited in no queue);
// - kernel time: end - start.
// Each kernel with the host call the attribution joins it to (attribution.h: the first call
// with its correlation id); kernels with none have no API or queue time and are counted apart
// (nsys joins them to no call either). Sorted by total kernel time, longest first, then name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/attribution.h"

namespace trace {

struct TimeStats {
  uint64_t count = 0, total_ns = 0, min_ns = 0, max_ns = 0;
  double median_ns = 0;  // the middle value, or the mean of the two middle ones
  double mean_ns() const {
    return count ? static_cast<double>(total_ns) / static_cast<double>(count) : 0.0;
  }
};

struct KernelTimes {
  std::string name;
  TimeStats api, queue, kernel;  // api.count == kernel.count; queue.count: the positive ones
};

struct KernelTimesTable {
  std::vector<KernelTimes> by_name;
  uint64_t kernels_without_call = 0;
};

KernelTimesTable kernel_times(const RecordSet& records, const AttributionIndex& index);

}  // namespace trace
