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
#include <utility>
#include <vector>

#include "trace/import/byte_source.h"

namespace trace {

// Bytes whose resize() leaves the new ones unset: a 1 MiB buffer about to be read into is not
// zeroed first (256 page faults, whether or not the input fills it).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using ByteBuffer = std::vector<char, DefaultInitAllocator<char>>;

struct JsonSlice {
  const char* data;
  size_t size;
  size_t capacity;  // readable bytes from data (>= size + SIMDJSON_PADDING)
  uint64_t offset;  // byte offset of data[0] in the (decompressed) document
};

// A run of whole traceEvents elements as they stand in the document: from just after the
// element before it (or just after traceEvents' '[') to just after its last element's closing
// bracket, separators included. `elements` counts the values that close at the array's own
// depth in it; each is an object in a valid document, which the reader of the region checks.
// The region comes in the buffer it was read into, handed over: text starts at buffer[at];
// buffer[at - 1] and buffer[at + text.size] are free to overwrite, and SIMDJSON_PADDING bytes
// after the latter are readable (room for "[" text "]" as one padded JSON document, no copy).
struct JsonRegion {
  JsonSlice text;
  uint64_t first_index;  // index in traceEvents of its first element
  uint64_t elements;
  ByteBuffer buffer;
  size_t at;
};
class JsonEventStream {
 public:
  // on_event(slice, index): one element of traceEvents. on_top(key, slice): any other
  // top-level value. Both throw InputError to stop.
  using EventFn = std::function<void(const JsonSlice&, uint64_t index)>;
  using TopFn = std::function<void(std::string_view key, const JsonSlice&)>;
  // Where regions go (run()): take() gets each; buffer() gives one to read on into when a region
  // leaves with the buffer it lies in (one handed back after use, else an empty one); a region
  // goes out before a refill of the buffer (1 MiB) once it holds min_bytes, or fills it.
  struct RegionSink {
    std::function<void(JsonRegion&&)> take;
    std::function<ByteBuffer()> buffer;
    size_t min_bytes = 256u << 10;
  };

  // base_offset: the document offset of the source's first byte (a region read on its own).
  JsonEventStream(ByteSource& source, std::string name, uint64_t base_offset = 0);
  // Reads the whole document. Throws InputError naming the file and byte offset.
  // With regions, traceEvents goes out in regions of whole elements (about a buffer each)
  // instead of one element at a time: the bytes are scanned only for strings and brackets
  // (kinds paired, depth bounded as for single elements), not element by element. Whatever
  // that scan cannot pass (the end of traceEvents, an unpaired bracket, the end of the input)
  // is read again from the end of the last region by the element-by-element scan, so every
  // error is the one, at the offset, that the element-by-element scan gives; the separators
  // and element kinds inside a region are left to its reader (run_region below is exact).
  void run(const EventFn& on_event, const TopFn& on_top, const RegionSink* regions = nullptr);
  // The elements of one region (text: JsonRegion::text as in the document, at document offset
  // `offset`; its first element has index first_index), one by one exactly as run() would hand
  // them over, with the same errors at the same offsets. Returns at the region's end.
  static void run_region(std::string_view text, const std::string& name, uint64_t offset,
                         uint64_t first_index, const EventFn& on_event);
  uint64_t bytes() const { return base_ + end_; }  // decompressed bytes read so far

 private:
  bool fill();           // reads more; false at the end of the input
  char peek_nonspace();  // next non-whitespace byte (refilling); 0 at the end
  void expect(char c, const char* what);
  size_t scan_value();              // from pos_: end position (exclusive) of one JSON value
  size_t scan_string(size_t p);     // p at the opening quote; returns just past the closing one
  size_t scan_container(size_t p);  // p at '{' or '['; returns just past its closing bracket
  void elements(const EventFn& on_event, uint64_t index, bool region);  // pos_ inside traceEvents
  void bulk_elements(const RegionSink& regions, uint64_t* index);       // pos_ just after its '['
  [[noreturn]] void fail(const std::string& what, uint64_t offset) const;
  JsonSlice slice(size_t from, size_t to) const;

  ByteSource& source_;
  std::string name_;
  ByteBuffer buf_;
  size_t mark_ = 0;  // start of the value being scanned (kept across refills)
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0;  // document offset of buf_[0]
  bool eof_ = false;
};

namespace detail {
// The splitter's bracket index (json_event_stream.cpp) by kernel, for the tests that hold the
// kernels to each other: the positions of the brackets outside strings among b[0, n), n a
// multiple of 64 unless it is the last call, with 64 readable bytes past the end; the string
// state carries from call to call. kernel 0: SSE2 (any x86-64 or none); 1: AVX2. False when
// this CPU or build lacks the kernel.
bool index_brackets_with(int kernel, const char* b, size_t n, bool* in_string, bool* escaped,
                         std::vector<uint32_t>* out);
}  // namespace detail

}  // namespace trace
