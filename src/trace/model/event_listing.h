// The file's own list of timed events, as the file wrote them (ImportOptions::list_events):
// for an analysis that reproduces another tool's figures row by row from the file itself
// (analyze/hta_rows.h), which needs the events no record is made of (python_function, ...),
// their place in the file and their numbers as written, not only the records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trace {

// One event that has a category, a start and a duration.
struct ListedEvent {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // no such field in the event
  uint64_t index = 0;                             // its position in the file's list of events
  // The numbers as their text reads, in the file's unit (microseconds): the nearest double to a
  // text with a fraction or an exponent, else the integer (exact below 2^53).
  double ts_us = 0, dur_us = 0;
  // The integers written (a string holding one counts as it); -1 when absent or not one.
  int64_t stream = -1, correlation = -1;
  uint32_t name = kNone, category = kNone;  // indexes into EventListing::strings
};

struct EventListing {
  bool listed = false;  // false: the reader was not asked to list, or cannot
  std::vector<ListedEvent> events;
  std::vector<std::string> strings;  // names and categories, each once
  // Over every event of the file, listed or not: a start (duration) absent, or written with a
  // fraction or an exponent.
  bool ts_missing = false, ts_fractional = false;
  bool dur_missing = false, dur_fractional = false;
};

}  // namespace trace
