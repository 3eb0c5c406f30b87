// The diagnosis (analyze/diagnosis.h) at the top of ./attribute's output: the verdict, the
// warm-up, then the findings; as `diagnosis` in its JSON and first on its page.
#pragma once

#include <string>

#include "trace/analyze/step_report.h"
#include "trace/export/json_out.h"

namespace trace {

std::string diagnosis_text(const Diagnosis& d);
void write_diagnosis_json(JsonOut& o, const Diagnosis& d);
// The same as an HTML fragment; esc escapes text for it.
std::string diagnosis_html(const Diagnosis& d, std::string (*esc)(const std::string&));

}  // namespace trace
