// One rank's work for the Python package: read a trace, make ./attribute's figures, keep its
// text, its JSON and its tables, and drop the records. Why: the records of a 1 GB trace take
// hundreds of MB and the figures a few; many ranks fit in memory only if each rank's records go
// once its figures are made (the package reads ranks in parallel, or on a Dask cluster).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "table.h"

namespace pyiris {

struct RankOptions {
  std::string step_range;  // ./attribute --step-range; "" keeps the trace's own steps
  int advice = -1;         // ./attribute's default (-1: by the trace's size), --no-advice (0),
                           // --advice (1)
};

struct RankRun {
  std::string file;
  int64_t rank = 0;
  std::string format;  // "JSON" or "SQLite"
  uint64_t bytes = 0;  // decompressed bytes read
  std::string text;    // ./attribute's table for this trace, as it prints it
  std::string json;    // this trace's object in ./attribute --json's "traces" array
  std::map<std::string, Table> tables;
};

// Throws trace::InputError for bad input, as ./attribute reports it.
RankRun run_rank(const std::string& path, const RankOptions& options);

// The files a list of paths names (a folder: its per-rank traces), as ./attribute expands them.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths);

}  // namespace pyiris
