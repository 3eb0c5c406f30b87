// ./attribute's terminal tables: the same figures as export/report_json.h, for a person.
#pragma once

#include <string>

#include "trace/analyze/step_report.h"

namespace trace {

// Per step and whole trace, then the blocking syncs by the op that issued them.
std::string report_table(const TraceReport& report);

}  // namespace trace
