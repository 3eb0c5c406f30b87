// The notes (`assumed`) of the what-ifs that what_if.cpp writes itself: what a graph what-if
// captured and assumed, why a no-syncs what-if found nothing to remove, and what the graph breaks
// among the syncs it removed would also save (graph_breaks.h), each figure with its source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/graph_breaks.h"
#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/what_if.h"

namespace trace::replay {

// "1 graph", "2 graphs".
std::string count(uint64_t n, const char* one, const char* many);
// Microseconds with two decimals.
std::string us_text(int64_t ns);

// A graph what-if: its graphs and nodes, the constants with their sources, or why nothing was
// captured. `captures`: the stretches or ranges found; `split`: regions split at a blocking call;
// `regions`: ranges of the name found (graph=REGION).
std::string graph_note(const WhatIf& w, const GraphFacts& facts, size_t captures, uint64_t split,
                       size_t regions);

// Why a selector picked no site, for its no-syncs what-if.
std::string none_picked(const SiteSelector& selector, const RecordSet& records);

// The graph breaks among the sites removed (indices into breaks.breaks): a site removes a break
// when they overlap on one thread.
std::vector<size_t> breaks_among(const GraphBreakReport& breaks,
                                 const std::vector<PlacedSite>& sites);

// `breaks` graph breaks among the `sites` removed, `entries` the next regions' entries removed
// with them: counts them into x->graph_breaks, sums the entries into x->merge_saving_ns, and
// says so; "" when no break was removed.
std::string merge_note(size_t breaks, std::vector<int64_t> entries, size_t sites,
                       ScenarioResult* x);

}  // namespace trace::replay
