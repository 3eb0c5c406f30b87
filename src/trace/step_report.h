// ./attribute's own figures for one imported trace: bench's traced-pass attribution
// (attribution.h) per step window and over the whole trace, plus the sync causes
// (sync_causes.h). Printed as a terminal table or written as JSON (schema in README,
// "Attribute anyone's trace").
#pragma once

#include <string>
#include <vector>

#include "trace/attribution.h"
#include "trace/json_out.h"
#include "trace/kineto_import.h"
#include "trace/sync_causes.h"

namespace trace {

struct StepFigures {
  std::string name;
  uint64_t start_ns = 0, wall_ns = 0;
  Attribution a;
};

struct TraceReport {
  const ImportedTrace* trace = nullptr;
  std::vector<StepFigures> steps;  // empty when the trace has no step windows
  StepFigures total;               // the whole trace (our own files: first to last epoch)
  SyncReport syncs;
  uint64_t steps_wall_ns = 0;      // summed step wall time (the whole trace's without steps)
};

TraceReport build_report(const ImportedTrace& trace, const AttributionOptions& options = {});

void write_report_json(JsonOut& out, const TraceReport& report);
std::string report_table(const TraceReport& report);

}  // namespace trace
