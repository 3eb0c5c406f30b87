// ./attribute's --json output: the figures of analyze/ as JSON (schema in docs/trace-tool.md,
// "The figures"; units in the key names).
#pragma once

#include "trace/analyze/step_report.h"
#include "trace/export/json_out.h"

namespace trace {

// One trace's report: its steps, the whole trace, the syncs by cause and one by one.
void write_report_json(JsonOut& out, const TraceReport& report);

}  // namespace trace
