// The call sites of a trace's blocking calls (analyze/call_sites.h), for ./attribute's table
// and its JSON (`call_sites`, and `site` + `stack` on every call of `syncs`).
#pragma once

#include <string>

#include "trace/analyze/step_report.h"
#include "trace/export/json_out.h"

namespace trace {

// The table, or the one line that says how to record stacks ("" when nothing blocked).
std::string call_sites_text(const TraceReport& report);

// "call_sites": the sites, the would-sync sites of a trace without GPU work, and the counts.
void write_call_sites_json(JsonOut& o, const TraceReport& report);

// For the i-th blocking call: its site (index into call_sites.sites), caller and stack.
void write_call_site_of(JsonOut& o, const TraceReport& report, size_t i);

}  // namespace trace
