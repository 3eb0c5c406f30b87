// Which files a command line names: a folder stands for the per-rank traces in it, as a
// distributed PyTorch profiler run writes them (one *.json or *.json.gz per rank).
#pragma once

#include <string>
#include <vector>

namespace trace {

// Files named on the command line; a folder stands for its *.json and *.json.gz files
// (per-rank traces), sorted by name. Throws InputError for a missing path or empty folder.
std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args);

}  // namespace trace
