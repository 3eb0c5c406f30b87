// How well the unchanged replay reproduces its trace (what_if.h, ReplayReport): its error per
// step against the targets, and where the graph's recorded delays exceed their kind's typical
// one (what a replay with typical delays loses).
#pragma once

#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/what_if.h"

namespace trace::replay {

// Median and largest |predicted - measured| / measured over the scenario's steps, and whether
// the targets hold (what_if.h). Leaves them as they are when no step was measured.
void replay_errors(const ScenarioResult& scenario, bool has_steps, double* median, double* max,
                   bool* met);

// Per delay kind whose recorded delays exceed its typical one, in kind order.
std::vector<ExcessDelay> excess_delays(const Graph& graph);

}  // namespace trace::replay
