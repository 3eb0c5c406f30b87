// ./attribute --what-if's terminal tables: the same figures as export/replay_json.h, for a person.
#pragma once

#include <string>

#include "trace/analyze/replay/what_if.h"

namespace trace {

std::string replay_table(const replay::ReplayReport& report);

}  // namespace trace
