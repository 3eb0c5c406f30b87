// ./attribute --what-if's terminal tables: the same figures as export/replay_json.h, for a person.
#pragma once

#include <string>
#include <vector>

#include "trace/analyze/replay/what_if.h"

namespace trace {

std::string replay_table(const replay::ReplayReport& report);

// The report's words, shared with export/replay_json.h:
// the sites a selector picks: "blocking syncs", "op aten::item", "api cudaStreamSynchronize";
std::string site_selector_text(const replay::SiteSelector& selector);
// a log-every curve's verdict and its reason, in a sentence or two;
std::string log_every_why(const replay::LogEveryCurve& curve);
// when a target is missed, what the rules guessed and where delays exceed the typical ones.
std::vector<std::string> replay_notes(const replay::ReplayReport& report);

}  // namespace trace
