// ./attribute --what-if --json: the replay and its what-ifs (analyze/replay/what_if.h) as JSON,
// times in microseconds (units in the key names). Read by analysis/replay_report.py.
#pragma once

#include "trace/analyze/replay/what_if.h"
#include "trace/export/json_out.h"

namespace trace {

// One trace's replay: the graph's counts, the unchanged replay per window with its error, each
// what-if per window with its saving, and the log-every curves.
void write_replay_json(JsonOut& out, const replay::ReplayReport& report);

}  // namespace trace
