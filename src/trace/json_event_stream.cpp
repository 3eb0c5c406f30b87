#include "trace/json_event_stream.h"

#include <simdjson.h>

#include <cstring>

namespace trace {
namespace {
constexpr size_t kInitialBuffer = 1u << 20;     // 1 MiB; grows only for a longer single value
constexpr size_t kMaxValue = size_t{1} << 30;   // one event (or metadata value) over 1 GiB: refuse
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
constexpr int kMaxDepth = 1024;                 // simdjson's own default limit

struct Table {
  bool v[256] = {};
  constexpr Table() {
    v[static_cast<unsigned char>('"')] = v[static_cast<unsigned char>('{')] = v[static_cast<unsigned char>('}')] = true;
    v[static_cast<unsigned char>('[')] = v[static_cast<unsigned char>(']')] = true;
  }
  constexpr bool operator[](unsigned char c) const { return v[c]; }
};
constexpr Table kStructural;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

JsonEventStream::JsonEventStream(ByteSource& source, std::string name)
    : source_(source), name_(std::move(name)), buf_(kInitialBuffer + kPad) {}

void JsonEventStream::fail(const std::string& what, uint64_t offset) const {
  throw InputError(name_ + ": " + what + " at byte offset " + std::to_string(offset));
}

JsonSlice JsonEventStream::slice(size_t from, size_t to) const {
  return {buf_.data() + from, to - from, buf_.size() - from, base_ + from};
}

bool JsonEventStream::fill() {
  if (eof_) return false;
  const size_t cap = buf_.size() - kPad;
  if (mark_ > 0) {  // drop what is consumed, keep the value being scanned
    std::memmove(buf_.data(), buf_.data() + mark_, end_ - mark_);
    base_ += mark_;
    pos_ -= mark_, end_ -= mark_;
    mark_ = 0;
  }
  if (end_ == cap) {  // one value fills the buffer: grow
    if (cap >= kMaxValue) fail("a single JSON value longer than 1 GiB", base_);
    buf_.resize(cap * 2 + kPad);
  }
  const size_t got = source_.read(buf_.data() + end_, buf_.size() - kPad - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  std::memset(buf_.data() + end_, ' ', std::min(kPad, buf_.size() - end_));
  return true;
}

char JsonEventStream::peek_nonspace() {
  for (;;) {
    while (pos_ < end_ && is_space(buf_[pos_])) ++pos_;
    if (pos_ < end_) return buf_[pos_];
    mark_ = pos_;
    if (!fill()) return 0;
  }
}

void JsonEventStream::expect(char c, const char* what) {
  const char got = peek_nonspace();
  if (got != c) {
    if (got == 0) fail(std::string("unexpected end of input (truncated?) while expecting ") + what, base_ + pos_);
    fail(std::string("expected ") + what + ", found '" + got + "'", base_ + pos_);
  }
  ++pos_;
}

size_t JsonEventStream::scan_string(size_t p) {
  ++p;  // opening quote
  for (;;) {
    // memchr (vectorised in libc) for the closing quote; a quote preceded by an odd number
    // of backslashes is escaped.
    const char* b = buf_.data();
    while (p < end_) {
      const void* hit = std::memchr(b + p, '"', end_ - p);
      if (!hit) {
        p = end_;
        break;
      }
      const size_t q = static_cast<const char*>(hit) - b;
      size_t slashes = 0;
      while (q - slashes > mark_ && b[q - slashes - 1] == '\\') ++slashes;
      if (slashes % 2 == 0) return q + 1;
      p = q + 1;
    }
    // Keep a trailing backslash run with the refill: back up to the last unescaped point.
    const size_t keep = p - mark_;
    if (!fill()) fail("unexpected end of input inside a string (truncated?)", base_ + end_);
    p = mark_ + keep;
  }
}

size_t JsonEventStream::scan_value() {
  mark_ = pos_;
  size_t p = pos_;
  const char first = buf_[p];
  if (first == '"') return scan_string(p);
  if (first != '{' && first != '[') {  // number, true, false, null: up to a delimiter
    for (;;) {
      while (p < end_) {
        const char c = buf_[p];
        if (c == ',' || c == '}' || c == ']' || is_space(c)) return p;
        ++p;
      }
      const size_t keep = p - mark_;
      if (!fill()) return end_;
      p = mark_ + keep;
    }
  }
  // Object or array: count nesting, skipping strings. Brackets must pair by kind.
  char stack[kMaxDepth];
  int depth = 0;
  for (;;) {
    const char* b = buf_.data();
    const size_t end = end_;
    while (p < end) {
      const char c = b[p];
      if (!kStructural[static_cast<unsigned char>(c)]) {
        ++p;
        continue;
      }
      if (c == '"') {
        p = scan_string(p);  // may refill: positions come back rebased
        b = buf_.data();
        if (end_ != end) break;  // the buffer moved: restart with the new bounds
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth == kMaxDepth) fail("JSON nested deeper than 1024 levels", base_ + p);
        stack[depth++] = c;
      } else {
        if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) fail(std::string("unbalanced '") + c + "'", base_ + p);
        if (--depth == 0) return p + 1;
      }
      ++p;
    }
    if (p < end_) continue;
    const size_t keep = p - mark_;
    if (!fill()) fail("unexpected end of input (truncated?) inside a JSON value that started", base_ + mark_);
    p = mark_ + keep;
  }
}

void JsonEventStream::run(const EventFn& on_event, const TopFn& on_top) {
  const char first = peek_nonspace();
  if (first == 0) fail("empty file: expected a Chrome trace JSON object or array", 0);
  const auto events = [&] {  // pos_ just after '['
    uint64_t index = 0;
    if (peek_nonspace() == ']') { ++pos_; return; }
    for (;;) {
      const char c = peek_nonspace();
      if (c != '{') {
        if (c == 0) fail("unexpected end of input (truncated?) in traceEvents after event " + std::to_string(index), base_ + pos_);
        fail("traceEvents element " + std::to_string(index) + " is not an object", base_ + pos_);
      }
      const size_t to = scan_value();  // mark_ is now the event's first byte
      on_event(slice(mark_, to), index++);
      pos_ = to;
      const char sep = peek_nonspace();
      if (sep == ']') { ++pos_; return; }
      if (sep != ',') {
        if (sep == 0) fail("unexpected end of input (truncated?) in traceEvents after event " + std::to_string(index - 1), base_ + pos_);
        fail(std::string("expected ',' or ']' after traceEvents element ") + std::to_string(index - 1) + ", found '" + sep + "'", base_ + pos_);
      }
      ++pos_;
    }
  };
  if (first == '[') {
    ++pos_;
    events();
  } else if (first == '{') {
    ++pos_;
    if (peek_nonspace() == '}') ++pos_;
    else
      for (;;) {
        if (peek_nonspace() != '"') expect('"', "a key string");
        const size_t key_end = scan_value();
        const std::string key(buf_.data() + mark_ + 1, key_end - mark_ - 2);
        pos_ = key_end;
        expect(':', "':' after a key");
        if (peek_nonspace() == 0) fail("unexpected end of input (truncated?) after key \"" + key + "\"", base_ + pos_);
        if (key == "traceEvents") {
          expect('[', "'[' to open traceEvents");
          events();
        } else {
          const size_t to = scan_value();
          on_top(key, slice(mark_, to));
          pos_ = to;
        }
        const char sep = peek_nonspace();
        if (sep == '}') { ++pos_; break; }
        if (sep != ',') {
          if (sep == 0) fail("unexpected end of input (truncated?) in the top-level object", base_ + pos_);
          fail(std::string("expected ',' or '}' in the top-level object, found '") + sep + "'", base_ + pos_);
        }
        ++pos_;
      }
  } else {
    fail(std::string("not JSON: expected '{' or '[' to start a Chrome trace, found '") + first + "'", base_ + pos_);
  }
  if (peek_nonspace() != 0) fail("unexpected data after the end of the JSON document", base_ + pos_);
}

}  // namespace trace
