// ./attribute's terminal tables: the same figures as export/report_json.h, for a person.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/step_report.h"

namespace trace {

// Per step and whole trace, then the blocking syncs by the op that issued them.
std::string report_table(const TraceReport& report);

// Holistic Trace Analysis's definitions, per rank (./attribute --hta).
std::string hta_table(const std::map<int64_t, HtaRank>& ranks, bool ns_rounding);

}  // namespace trace
