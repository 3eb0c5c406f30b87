// One rank's replay for the Python package: ./attribute --what-if on one trace, kept as text,
// JSON and a table of predicted windows (the records are read again: run_rank dropped them).
#pragma once

#include <string>
#include <vector>

#include "rank_run.h"
#include "table.h"

namespace pyiris {

struct WhatIfRun {
  std::string text;  // ./attribute's replay table for this trace, as it prints it
  std::string json;  // this trace's object in the "replays" array
  Table windows;     // scenario x window: measured, replayed and predicted us
};

// Throws std::invalid_argument for a bad spec (ValueError) and trace::InputError for bad input.
WhatIfRun run_what_if(const std::string& path, const std::vector<std::string>& specs,
                      const RankOptions& options);

// The specs as ./attribute echoes them in its JSON ("what_if": [...]); throws as above.
std::vector<std::string> what_if_texts(const std::vector<std::string>& specs);

}  // namespace pyiris
