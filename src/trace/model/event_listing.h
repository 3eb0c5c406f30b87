// The file's own list of timed events, as the file wrote them (ImportOptions::list_events):
// for an analysis that reproduces another tool's figures row by row from the file itself
// (analyze/hta_rows.h), which needs the events no record is made of (python_function, ...),
// their place in the file and their numbers as written, not only the records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trace {

// A "pid" or "tid" as written: pandas types the column by every value the file has (an integer
// column, float64 where one is missing or fractional, object where one is text).
struct ListedId {
  enum Kind : uint8_t { kAbsent, kInt, kFloat, kText, kOther };  // kOther: true, {...}, [...]
  Kind kind = kAbsent;
  int64_t i = 0;  // kInt: the value; kText: an index into EventListing::strings
  double d = 0;   // kFloat
};

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
  ListedId pid, tid;
  double memory_bw_gbps = 0;  // args "memory bandwidth (GB/s)"; HTA's default 0 when absent
};

struct EventListing {
  bool listed = false;  // false: the reader was not asked to list, or cannot
  std::vector<ListedEvent> events;
  std::vector<std::string> strings;  // names and categories, each once
  // Over every event of the file, listed or not: a start (duration) absent, or written with a
  // fraction or an exponent.
  bool ts_missing = false, ts_fractional = false;
  bool dur_missing = false, dur_fractional = false;
  // Over every event: the kinds of "pid" and "tid" values seen (bit 1 << ListedId::Kind).
  uint8_t pid_kinds = 0, tid_kinds = 0;
};

}  // namespace trace
