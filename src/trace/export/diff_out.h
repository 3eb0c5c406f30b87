// ./attribute --diff's outputs (analyze/trace_diff.h): a table per section for a person, and
// the --json document, whose fields are declared in output_schema.cpp (diff_document).
#pragma once

#include <string>
#include <vector>

#include "trace/analyze/trace_diff.h"

namespace trace {

// The two files as given, and the what-ifs as written (each replayed from A).
struct DiffInputs {
  std::string a, b;
  std::vector<std::string> what_ifs;
};

// Each section as a table: item | figure | A | B | B-A | B/A; the longest ones cut at their
// largest differences (all of them are in the JSON).
std::string diff_text(const DiffInputs& in, const TraceDiff& d);

// The whole --json document, with its final newline.
std::string diff_json(const DiffInputs& in, const TraceDiff& d, int version);

}  // namespace trace
