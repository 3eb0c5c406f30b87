// Holistic Trace Analysis' critical_path_analysis(rank, annotation, instance_id).summary() for
// one rank: the share of an annotation instance's critical path by HTA's bound_by classes. HTA
// takes the longest path through its graph of op, launch, kernel and sync edges; this takes the
// diagnosis' path (step_bounds.h: each instant of the window to what holds the step up) and
// names each class as HTA does (critical_path_analysis.py, CPGraph.bound_by):
//  - a kernel, memset or copy runs: gpu_compute_bound (a collective alone:
//    gpu_communication_bound);
//  - the GPU idles with work queued: gpu_kernel_kernel_overhead while the GPU is behind the host
//    (the work waits behind other work), else gpu_kernel_launch_overhead (it waits on its launch);
//  - the host holds it up: cpu_bound (data_loading where the innermost host event's name
//    matches one of HTA's data_load_events: the caller matches them, as Python's re.search);
//  - a blocking sync with nothing queued: "" (HTA's class of sync and dependency edges).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/attribution.h"
#include "trace/analyze/step_bounds.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct HtaCriticalPath {
  bool found = false;                 // a host event is named with the annotation
  uint64_t start_ns = 0, end_ns = 0;  // the annotation instances' span
  // HTA's bound_by classes with time on the path, each once, in HTA's order (BoundType); no
  // data_loading: cpu_by_name says which host events cpu_bound's time is in.
  std::vector<std::pair<std::string, uint64_t>> by_class;
  std::vector<std::pair<std::string, uint64_t>> cpu_by_name;
};

// Indexed once per trace (it keeps a reference to it); then each window costs its records.
class HtaCriticalPathIndex {
 public:
  explicit HtaCriticalPathIndex(const ImportedTrace& trace);
  // The annotation's instances are the host events whose name contains `annotation`, in start
  // order; `first`..`last` (inclusive) pick them as instance_id does. An empty annotation is
  // the whole trace. Not found when no host event is so named; throws std::invalid_argument
  // for instances out of range.
  HtaCriticalPath operator()(const std::string& annotation, int64_t first, int64_t last) const;

 private:
  const RecordSet& r_;
  AttributionIndex index_;
  BoundsIndex bounds_;
};

}  // namespace trace
