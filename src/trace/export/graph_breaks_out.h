// torch.compile's graph breaks (analyze/graph_breaks.h), for ./attribute's text and its JSON
// (`graph_breaks`).
#pragma once

#include <string>

#include "trace/analyze/step_report.h"
#include "trace/export/json_out.h"

namespace trace {

// The table of breaks by call site ("" when the trace has none).
std::string graph_breaks_text(const TraceReport& report);

// "graph_breaks": the regions counted and the breaks by call site.
void write_graph_breaks_json(JsonOut& o, const TraceReport& report);

}  // namespace trace
