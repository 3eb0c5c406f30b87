// What-if transformations: each turns the replay graph into a scenario (simulate.h) without
// touching the graph, so one graph serves every what-if of a run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/simulate.h"

namespace trace::replay {

// Removes one site: its blocking calls and their GPU work; for a region, all of its host time
// too (between its nodes), and every call in it with its GPU work.
void remove_site(const Graph& graph, const PlacedSite& site, Scenario* scenario);

// Kernels whose name contains `pattern` ("" = all) take `factor` times as long. Throws
// std::invalid_argument when a pattern is given but the records hold no kernel names.
Scenario scale_kernels(const Graph& graph, const RecordSet& records, double factor,
                       const std::string& pattern);

// Every launch call takes `factor` times as long.
Scenario scale_launches(double factor);

// Each window's launch calls become one graph launch per stretch between blocking calls on a
// thread (a CUDA graph cannot hold a host sync): the first launch call of the stretch costs
// `launch_ns`, the others nothing, and their kernels wait for the first one's end. The CPU's
// other work (Python, dispatch, autograd) stays: what launching alone costs, not what a
// captured graph saves by skipping the framework too.
Scenario graph_steps(const Graph& graph, const RecordSet& records,
                     const std::vector<std::pair<uint64_t, uint64_t>>& windows, int64_t launch_ns);

// The launch cost graph_steps uses by default: the median cudaGraphLaunch in the trace, else
// the median launch call.
int64_t typical_graph_launch_ns(const RecordSet& records);

}  // namespace trace::replay
