// ./attribute --hta's output: Holistic Trace Analysis's figures (0.5.0's or 0.6.1's) per rank
// (analyze/hta_breakdown.h), as JSON and as a terminal table.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "trace/analyze/hta_breakdown.h"
#include "trace/export/json_out.h"

namespace trace {

// The "ranks" object of tests/data/hta_expected/*.json.
void write_hta_json(JsonOut& out, const std::map<int64_t, HtaRank>& ranks);

// Holistic Trace Analysis's definitions, per rank (./attribute --hta).
std::string hta_table(const std::map<int64_t, HtaRank>& ranks, bool ns_rounding,
                      HtaVersion version = HtaVersion::V0_6);

}  // namespace trace
