// Splits a Chrome Trace Event document into its events without holding the document: the
// bytes stream through a bounded buffer, and each element of `traceEvents` (and each other
// top-level value) is handed over as one complete JSON text, with SIMDJSON_PADDING readable
// bytes after it, for simdjson to parse. Peak memory is then the records built, not the file.
//
// This scanner checks only the document's outline (brackets, strings, commas); simdjson parses
// and validates every value it is given. Accepted shapes: {"traceEvents": [...], ...} (any key
// order) and a bare array of events, both allowed by the Chrome Trace Event format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/import/byte_source.h"

namespace trace {

struct JsonSlice {
  const char* data;
  size_t size;
  size_t capacity;     // readable bytes from data (>= size + SIMDJSON_PADDING)
  uint64_t offset;     // byte offset of data[0] in the (decompressed) document
};

class JsonEventStream {
 public:
  // on_event(slice, index): one element of traceEvents. on_top(key, slice): any other
  // top-level value. Both throw InputError to stop.
  using EventFn = std::function<void(const JsonSlice&, uint64_t index)>;
  using TopFn = std::function<void(std::string_view key, const JsonSlice&)>;

  JsonEventStream(ByteSource& source, std::string name);
  // Reads the whole document. Throws InputError naming the file and byte offset.
  void run(const EventFn& on_event, const TopFn& on_top);
  uint64_t bytes() const { return base_ + end_; }  // decompressed bytes read so far

 private:
  bool fill();                  // reads more; false at the end of the input
  char peek_nonspace();         // next non-whitespace byte (refilling); 0 at the end
  void expect(char c, const char* what);
  size_t scan_value();          // from pos_: end position (exclusive) of one JSON value
  size_t scan_string(size_t p); // p at the opening quote; returns just past the closing one
  size_t scan_container(size_t p);  // p at '{' or '['; returns just past its closing bracket
  [[noreturn]] void fail(const std::string& what, uint64_t offset) const;
  JsonSlice slice(size_t from, size_t to) const;

  ByteSource& source_;
  std::string name_;
  std::vector<char> buf_;
  size_t mark_ = 0;   // start of the value being scanned (kept across refills)
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0; // document offset of buf_[0]
  bool eof_ = false;
};

}  // namespace trace
