// ./attribute's own figures for one imported trace: bench's traced-pass attribution
// (attribution.h) per step window and over the whole trace, plus the sync causes
// (sync_causes.h), the launch queue of every step (launch_queue.h) and each kernel's API,
// queue and kernel time (kernel_times.h). Printed by
// export/report_text.h, written as JSON by export/report_json.h.
#pragma once

#include <string>
#include <vector>

#include "trace/analyze/attribution.h"
#include "trace/analyze/call_sites.h"
#include "trace/analyze/diagnosis.h"
#include "trace/analyze/finding.h"
#include "trace/analyze/graph_breaks.h"
#include "trace/analyze/kernel_times.h"
#include "trace/analyze/sync_causes.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct StepFigures {
  std::string name;
  uint64_t start_ns = 0, wall_ns = 0;
  Attribution a;
  QueueFigures queue;  // over the window of `a` (launch_queue.h)
};

struct TraceReport {
  const ImportedTrace* trace = nullptr;
  std::vector<StepFigures> steps;  // empty when the trace has no step windows
  StepFigures total;               // the whole trace (with step phases: first to last)
  Diagnosis diagnosis;  // what bounds the steady steps, the warm-up, the fixes (diagnosis.h)
  SyncReport syncs;
  SiteReport sites;               // where in the program each blocking call was made (call_sites.h)
  GraphBreakReport graph_breaks;  // torch.compile's graph breaks among them (graph_breaks.h)
  // advice.h's findings, when asked for (./attribute fills them after build_report); when not,
  // advice_skipped says why ("" when advice ran).
  std::vector<Finding> advice;
  std::vector<int64_t> site_saving_ns;  // per call-site row: its replayed saving, -1: not tried
  bool advice_ran = false;
  std::string advice_skipped;
  uint64_t steps_wall_ns = 0;  // summed step wall time (the whole trace's without steps)
  QueueOptions queue_options;  // the thresholds the regimes were named by
  KernelTimesTable kernels;    // per kernel name: API, queue and kernel time (kernel_times.h)
  // Each GPU's queue depth over one step, for a plot: the step of median wall time (the whole
  // trace without steps), at most kTimelinePoints changes per GPU.
  static constexpr size_t kTimelinePoints = 10000;
  std::string timeline_window;
  uint64_t timeline_start_ns = 0, timeline_end_ns = 0;
  std::vector<LaunchQueue::DepthSeries> timeline;
};

TraceReport build_report(const ImportedTrace& trace, const AttributionOptions& options = {});

}  // namespace trace
