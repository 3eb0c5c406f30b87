// The article's question on one trace (what_if.h, LogEveryCurve): the step time against the
// number of syncs kept, and whether it is linear. Inside replay_trace.
#pragma once

#include <vector>

#include "trace/analyze/replay/evaluate.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/replay/what_if.h"

namespace trace::replay {

// Keeps the sites whose index is a multiple of `every` (0: none) and removes the others.
Scenario keep_every(const Graph& graph, const std::vector<PlacedSite>& sites, uint32_t every);

// One ScenarioResult per N asked (appended to `results`) and the curve over them.
LogEveryCurve log_every_curve(const Graph& graph, const std::vector<PlacedSite>& sites,
                              const WhatIf& what_if, const ScenarioResult& replayed,
                              const Evaluator& evaluate, uint32_t isolated_samples,
                              std::vector<ScenarioResult>* results);

}  // namespace trace::replay
