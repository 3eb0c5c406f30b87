// advice.h's findings at the top of ./attribute's output, and as `advice` in its JSON.
#pragma once

#include <string>

#include "trace/analyze/step_report.h"
#include "trace/export/json_out.h"

namespace trace {

std::string advice_text(const TraceReport& report);
void write_advice_json(JsonOut& o, const TraceReport& report);

}  // namespace trace
