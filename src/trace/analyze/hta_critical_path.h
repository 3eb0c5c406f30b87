// Holistic Trace Analysis' critical_path_analysis(rank, annotation, instance_id).summary() for
// one rank: the share of an annotation instance's critical path by HTA's bound_by classes. HTA
// takes the longest path through its graph of op, launch, kernel and sync edges; this takes the
// diagnosis' path (step_bounds.h: each instant of the window to what holds the step up) and
// names each class as HTA does (critical_path_analysis.py, CPGraph.bound_by):
//  - a kernel, memset or copy runs: gpu_compute_bound (a collective alone:
//    gpu_communication_bound);
//  - the GPU idles with work queued: gpu_kernel_kernel_overhead while the GPU is behind the host
//    (the work waits behind other work), else gpu_kernel_launch_overhead (it waits on its launch);
//  - the host holds it up: cpu_bound, or data_loading where the innermost host event's name
//    matches one of data_load_events (regexes, searched as re.search does);
//  - a blocking sync with nothing queued: "" (HTA's class of sync and dependency edges).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/model/imported_trace.h"

namespace trace {

struct HtaCriticalPath {
  uint64_t start_ns = 0, end_ns = 0;  // the annotation instances' span
  // HTA's bound_by classes with time on the path, each once, in HTA's order (BoundType).
  std::vector<std::pair<std::string, uint64_t>> by_class;
};

// The annotation's instances are the host events whose name contains `annotation`, in start
// order; `first`..`last` (inclusive) pick them as instance_id does. An empty annotation is the
// whole trace. Throws std::invalid_argument naming what is missing (no such annotation, an
// instance out of range, a pattern that is not a regex).
HtaCriticalPath hta_critical_path(const ImportedTrace& trace, const std::string& annotation,
                                  int64_t first, int64_t last,
                                  const std::vector<std::string>& data_load_events);

}  // namespace trace
