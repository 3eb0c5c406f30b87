// What a result was measured on, for the JSON context and the report: torch, CUDA runtime
// and driver, GPU, CPU threads, git commit. Every key is always present ("none" or
// "unknown" where it cannot be read) so the analysis can rely on the field set.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace common {

using ContextEntries = std::vector<std::pair<std::string, std::string>>;

ContextEntries collect_run_context();

// True when torch sees a usable CUDA device; `why_not` says why not otherwise.
bool cuda_usable(std::string* why_not);

}  // namespace common
