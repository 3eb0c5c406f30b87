#include "trace/import/kineto/json_event_stream.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trace {
namespace {
constexpr size_t kInitialBuffer = 1u << 20;     // 1 MiB; grows only for a longer single value
constexpr size_t kMaxValue = size_t{1} << 30;   // one event (or metadata value) over 1 GiB: refuse
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
constexpr int kMaxDepth = 1024;                 // simdjson's own default limit

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
  return scan_container(p);
}

namespace {

// Bit i of each mask: byte i of a 64-byte block is that character. '{' and '[' differ only
// in bit 0x20, as do '}' and ']', so one compare finds each pair.
struct BlockMasks {
  uint64_t quote, backslash, open, close;
};

BlockMasks block_masks(const char* b) {
  BlockMasks m{0, 0, 0, 0};
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), bit = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
    const __m128i folded = _mm_or_si128(v, bit);
    const auto bits = [&](__m128i eq) { return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(eq))) << (16 * k); };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.backslash |= bits(_mm_cmpeq_epi8(v, slash));
    m.open |= bits(_mm_cmpeq_epi8(folded, open));
    m.close |= bits(_mm_cmpeq_epi8(folded, close));
  }
#else
  for (int i = 0; i < 64; ++i) {
    const char c = b[i];
    const uint64_t one = uint64_t{1} << i;
    if (c == '"') m.quote |= one;
    else if (c == '\\') m.backslash |= one;
    else if (c == '{' || c == '[') m.open |= one;
    else if (c == '}' || c == ']') m.close |= one;
  }
#endif
  return m;
}

// Bit i = XOR of bits 0..i: with the quotes as input, the bytes inside strings (the opening
// quote counts as inside, the closing one as outside).
uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

// Object or array: count nesting, skipping strings; brackets must pair by kind. 64 bytes at
// a time: the quotes give the bytes inside strings (prefix XOR), and only the brackets outside
// them are visited. A block holding a backslash (rare in traces) is walked byte by byte, so
// an escaped quote never ends a string. The state (inside a string, after a backslash, the
// open brackets) carries across blocks and refills. The buffer's SIMDJSON_PADDING after
// end_ makes reading a whole block past the data safe; bits past end_ are masked off.
size_t JsonEventStream::scan_container(size_t p) {
  char stack[kMaxDepth];
  int depth = 0;
  bool in_string = false, escaped = false;
  for (;;) {
    while (p < end_) {
      const char* b = buf_.data() + p;
      const size_t n = std::min<size_t>(64, end_ - p);
      const uint64_t valid = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
      const BlockMasks m = block_masks(b);
      uint64_t inside;
      if (((m.backslash & valid) | static_cast<uint64_t>(escaped)) == 0) {
        inside = prefix_xor(m.quote & valid) ^ (in_string ? ~uint64_t{0} : 0);
      } else {
        inside = 0;
        for (size_t i = 0; i < n; ++i) {
          const char c = b[i];
          if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
          } else if (c == '"') {
            in_string = true;
          }
          if (in_string) inside |= uint64_t{1} << i;
        }
      }
      in_string = (inside >> (n - 1)) & 1;
      uint64_t brackets = (m.open | m.close) & ~inside & valid;
      while (brackets) {
        const size_t at = p + static_cast<size_t>(__builtin_ctzll(brackets));
        brackets &= brackets - 1;
        const char c = buf_[at];
        if (c == '{' || c == '[') {
          if (depth == kMaxDepth) fail("JSON nested deeper than 1024 levels", base_ + at);
          stack[depth++] = c;
        } else {
          if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) fail(std::string("unbalanced '") + c + "'", base_ + at);
          if (--depth == 0) return at + 1;
        }
      }
      p += n;
    }
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
