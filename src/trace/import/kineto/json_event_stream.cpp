#include "trace/import/kineto/json_event_stream.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace trace {
namespace {
constexpr size_t kInitialBuffer = 1u << 20;    // 1 MiB; grows only for a longer single value
constexpr size_t kMaxValue = size_t{1} << 30;  // one event (or metadata value) over 1 GiB: refuse
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
constexpr int kMaxDepth = 1024;  // simdjson's own default limit

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

JsonEventStream::JsonEventStream(ByteSource& source, std::string name, uint64_t base_offset)
    : source_(source), name_(std::move(name)), buf_(kInitialBuffer + kPad), base_(base_offset) {}

void JsonEventStream::fail(const std::string& what, uint64_t offset) const {
  throw InputError(name_ + ": " + what + " at byte offset " + std::to_string(offset));
}

JsonSlice JsonEventStream::slice(size_t from, size_t to) const {
  return {buf_.data() + from, to - from, buf_.size() - from, base_ + from};
}

bool JsonEventStream::fill() {
  if (eof_) return false;
  const size_t cap = buf_.size() - kPad;
  if (mark_ > 1) {  // drop what is consumed, keep the value being scanned (from buf_[1]: a region's
                    // '[' goes before it)
    std::memmove(buf_.data() + 1, buf_.data() + mark_, end_ - mark_);
    base_ += mark_ - 1;
    pos_ -= mark_ - 1, end_ -= mark_ - 1;
    mark_ = 1;
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
    if (got == 0)
      fail(std::string("unexpected end of input (truncated?) while expecting ") + what,
           base_ + pos_);
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
    const auto bits = [&](__m128i eq) {
      return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(eq))) << (16 * k);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.backslash |= bits(_mm_cmpeq_epi8(v, slash));
    m.open |= bits(_mm_cmpeq_epi8(folded, open));
    m.close |= bits(_mm_cmpeq_epi8(folded, close));
  }
#else
  for (int i = 0; i < 64; ++i) {
    const char c = b[i];
    const uint64_t one = uint64_t{1} << i;
    if (c == '"')
      m.quote |= one;
    else if (c == '\\')
      m.backslash |= one;
    else if (c == '{' || c == '[')
      m.open |= one;
    else if (c == '}' || c == ']')
      m.close |= one;
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

// The strings of a run of blocks: whether the scan is inside one, and after a backslash in it.
struct StringState {
  bool in_string = false, escaped = false;
};

// The brackets outside strings among the n (<= 64) bytes at b, 64 bytes read. The quotes give
// the bytes inside strings (prefix XOR); a block holding a backslash (rare in traces) is walked
// byte by byte, so an escaped quote never ends a string. The state carries to the next block.
uint64_t brackets_outside_strings(const char* b, size_t n, StringState* st) {
  const uint64_t valid = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  const BlockMasks m = block_masks(b);
  uint64_t inside;
  if (((m.backslash & valid) | static_cast<uint64_t>(st->escaped)) == 0) {
    inside = prefix_xor(m.quote & valid) ^ (st->in_string ? ~uint64_t{0} : 0);
  } else {
    inside = 0;
    bool in_string = st->in_string, escaped = st->escaped;
    for (size_t i = 0; i < n; ++i) {
      const char c = b[i];
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      }
      if (in_string) inside |= uint64_t{1} << i;
    }
    st->escaped = escaped;
  }
  st->in_string = (inside >> (n - 1)) & 1;
  return (m.open | m.close) & ~inside & valid;
}

// The positions (from b) of the brackets outside strings among b[0, n), n a multiple of 64
// except at the end of the data, 64 bytes read per block (the buffer's padding covers the last):
// simdjson's stage 1 cut down to strings and brackets. Returns how many it wrote to out.
using IndexFn = size_t (*)(const char* b, size_t n, StringState* st, uint32_t* out);

size_t index_brackets_sse2(const char* b, size_t n, StringState* st, uint32_t* out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i += 64) {
    uint64_t brackets = brackets_outside_strings(b + i, std::min<size_t>(64, n - i), st);
    while (brackets) {
      out[k++] = static_cast<uint32_t>(i + static_cast<size_t>(__builtin_ctzll(brackets)));
      brackets &= brackets - 1;
    }
  }
  return k;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define IRIS_HAVE_AVX2_INDEX 1
#define IRIS_AVX2 __attribute__((target("avx2,bmi,pclmul,popcnt")))
IRIS_AVX2 inline uint64_t mask64(__m256i lo, __m256i hi) {  // bit i: byte i's compare held
  return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(lo))) |
         (static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hi))) << 32);
}

// As index_brackets_sse2, 32 bytes per compare, the prefix XOR as one carry-less multiply, and
// the positions written eight at a time (simdjson's way: fewer mispredicted branches).
IRIS_AVX2 size_t index_brackets_avx2(const char* b, size_t n, StringState* st, uint32_t* out) {
  const __m256i quote = _mm256_set1_epi8('"'), slash = _mm256_set1_epi8('\\'),
                bit = _mm256_set1_epi8(0x20);
  const __m256i open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}');
  size_t k = 0;
  uint64_t in_string = st->in_string ? ~uint64_t{0} : 0;
  bool escaped = st->escaped;
  for (size_t i = 0; i < n; i += 64) {
    const size_t m = std::min<size_t>(64, n - i);
    const uint64_t valid = m == 64 ? ~uint64_t{0} : (uint64_t{1} << m) - 1;
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i + 32));
    const __m256i flo = _mm256_or_si256(lo, bit), fhi = _mm256_or_si256(hi, bit);
    const uint64_t q = mask64(_mm256_cmpeq_epi8(lo, quote), _mm256_cmpeq_epi8(hi, quote)) & valid;
    const uint64_t bs = mask64(_mm256_cmpeq_epi8(lo, slash), _mm256_cmpeq_epi8(hi, slash)) & valid;
    const uint64_t br =
        mask64(_mm256_or_si256(_mm256_cmpeq_epi8(flo, open), _mm256_cmpeq_epi8(flo, close)),
               _mm256_or_si256(_mm256_cmpeq_epi8(fhi, open), _mm256_cmpeq_epi8(fhi, close))) &
        valid;
    uint64_t found;
    if ((bs | static_cast<uint64_t>(escaped)) == 0) {
      const __m128i x =
          _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(q)), _mm_set1_epi8(-1), 0);
      const uint64_t inside = static_cast<uint64_t>(_mm_cvtsi128_si64(x)) ^ in_string;
      found = br & ~inside;
      in_string =
          static_cast<uint64_t>(static_cast<int64_t>(inside << (64 - m)) >> 63);  // its last byte's
    } else {  // a backslash: byte by byte
      StringState s{in_string != 0, escaped};
      found = brackets_outside_strings(b + i, m, &s);
      in_string = s.in_string ? ~uint64_t{0} : 0, escaped = s.escaped;
    }
    const size_t count = static_cast<size_t>(_mm_popcnt_u64(found));
    uint32_t* o = out + k;
    for (size_t j = 0; j < count; j += 8)
      for (int u = 0; u < 8; ++u) {
        o[j + u] = static_cast<uint32_t>(i + _tzcnt_u64(found));
        found = _blsr_u64(found);
      }
    k += count;
  }
  st->in_string = in_string != 0;
  st->escaped = escaped;
  return k;
}
#endif

IndexFn best_index() {
#ifdef IRIS_HAVE_AVX2_INDEX
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("popcnt"))
    return index_brackets_avx2;
#endif
  return index_brackets_sse2;
}

}  // namespace

bool detail::index_brackets_with(int kernel, const char* b, size_t n, bool* in_string,
                                 bool* escaped, std::vector<uint32_t>* out) {
  IndexFn f = kernel == 0 ? index_brackets_sse2 : nullptr;
#ifdef IRIS_HAVE_AVX2_INDEX
  if (kernel == 1 && best_index() == index_brackets_avx2) f = index_brackets_avx2;
#endif
  if (!f) return false;
  StringState st{*in_string, *escaped};
  out->resize(n + 8);
  out->resize(f(b, n, &st, out->data()));
  *in_string = st.in_string, *escaped = st.escaped;
  return true;
}

// Object or array: count nesting, skipping strings; brackets must pair by kind. 64 bytes at
// a time, visiting only the brackets outside strings; the state (inside a string, after a
// backslash, the open brackets) carries across blocks and refills. The buffer's
// SIMDJSON_PADDING after end_ makes reading a whole block past the data safe.
size_t JsonEventStream::scan_container(size_t p) {
  char stack[kMaxDepth];
  int depth = 0;
  StringState st;
  for (;;) {
    while (p < end_) {
      const size_t n = std::min<size_t>(64, end_ - p);
      uint64_t brackets = brackets_outside_strings(buf_.data() + p, n, &st);
      while (brackets) {
        const size_t at = p + static_cast<size_t>(__builtin_ctzll(brackets));
        brackets &= brackets - 1;
        const char c = buf_[at];
        if (c == '{' || c == '[') {
          if (depth == kMaxDepth) fail("JSON nested deeper than 1024 levels", base_ + at);
          stack[depth++] = c;
        } else {
          if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '['))
            fail(std::string("unbalanced '") + c + "'", base_ + at);
          if (--depth == 0) return at + 1;
        }
      }
      p += n;
    }
    const size_t keep = p - mark_;
    if (!fill())
      fail("unexpected end of input (truncated?) inside a JSON value that started", base_ + mark_);
    p = mark_ + keep;
  }
}

// pos_ just after traceEvents' '[' (index 0) or just after element index - 1. In a region, the
// end of the input just after an element is the region's end.
void JsonEventStream::elements(const EventFn& on_event, uint64_t index, bool region) {
  if (index == 0 && peek_nonspace() == ']') {
    ++pos_;
    return;
  }
  for (bool first = index == 0;; first = false) {
    if (!first) {
      const char sep = peek_nonspace();
      if (sep == 0 && region && pos_ >= end_) return;  // not a NUL byte: the end
      if (sep == ']') {
        ++pos_;
        return;
      }
      if (sep != ',') {
        if (sep == 0)
          fail("unexpected end of input (truncated?) in traceEvents after event " +
                   std::to_string(index - 1),
               base_ + pos_);
        fail(std::string("expected ',' or ']' after traceEvents element ") +
                 std::to_string(index - 1) + ", found '" + sep + "'",
             base_ + pos_);
      }
      ++pos_;
    }
    const char c = peek_nonspace();
    if (c != '{') {
      if (c == 0)
        fail("unexpected end of input (truncated?) in traceEvents after event " +
                 std::to_string(index),
             base_ + pos_);
      fail("traceEvents element " + std::to_string(index) + " is not an object", base_ + pos_);
    }
    const size_t to = scan_value();  // mark_ is now the event's first byte
    on_event(slice(mark_, to), index++);
    pos_ = to;
  }
}

// The strings and brackets of traceEvents, 64 bytes at a time, with no work per element: an
// element ends where a closing bracket brings the depth back to the array's own. The bracket
// checks are scan_container's (kinds paired, at most kMaxDepth levels inside an element);
// where one fails, or at the array's closing ']', or at the end of the input, the whole
// elements before go out as a region and pos_ is left at their end, for elements() to go on
// from there exactly as if it had read every element itself.
void JsonEventStream::bulk_elements(const RegionSink& regions, uint64_t* index) {
  char open[kMaxDepth + 1];  // open[0]: traceEvents' own '['
  open[0] = '[';
  int depth = 1;
  StringState st;
  mark_ = pos_;       // the region's first byte (>= 1), kept across refills
  size_t cut = pos_;  // just after its last whole element
  uint64_t count = 0;
  size_t p = pos_;
  // The region leaves in this buffer; the bytes after it (an element begun) go on in another,
  // from index 1 as fill() keeps them, so that a region's bytes are read in once and never copied.
  const auto emit = [&] {
    if (count == 0) return;
    ByteBuffer next = regions.buffer();
    if (next.size() < buf_.size()) next.resize(buf_.size());
    const size_t tail = end_ - cut, shift = cut - 1;
    std::memcpy(next.data() + 1, buf_.data() + cut, tail);
    std::memset(next.data() + 1 + tail, ' ', std::min(kPad, next.size() - 1 - tail));
    JsonRegion r{slice(mark_, cut), *index, count, std::move(buf_), mark_};
    buf_ = std::move(next);
    base_ += shift, end_ -= shift, p -= shift;
    mark_ = cut = 1;
    *index += count, count = 0;
    regions.take(std::move(r));
  };
  static const IndexFn index_brackets = best_index();
  constexpr size_t kChunk = 4096;  // bytes indexed at a time
  uint32_t at_[kChunk + 8];        // + 8: the AVX2 index writes eight at a time
  for (;;) {
    while (p < end_) {
      const size_t n = std::min(kChunk, end_ - p);
      const size_t found = index_brackets(buf_.data() + p, n, &st, at_);
      const char* b = buf_.data() + p;
      for (size_t j = 0; j < found; ++j) {
        const char c = b[at_[j]];
        if (c & 2) {  // '{' 0x7B or '[' 0x5B; '}' 0x7D and ']' 0x5D have bit 1 clear
          if (depth == kMaxDepth + 1) goto done;
          open[depth++] = c;
        } else {
          if (open[depth - 1] != (c ^ 6)) goto done;  // '}' ^ 6 == '{', ']' ^ 6 == '['
          if (--depth == 1)
            ++count, cut = p + at_[j] + 1;
          else if (depth == 0)
            goto done;
        }
      }
      p += n;
    }
    // Before a refill moves the bytes: out with the region when it is big enough or fills the
    // buffer.
    if (cut - mark_ >= regions.min_bytes || end_ - mark_ >= buf_.size() - kPad - 1) emit();
    const size_t keep = p - mark_, keep_cut = cut - mark_;  // fill() moves the bytes from mark_ on
    const bool more = fill();
    p = mark_ + keep, cut = mark_ + keep_cut;
    if (!more) break;
  }
done:
  emit();
  pos_ = cut;
}

void JsonEventStream::run_region(std::string_view text, const std::string& name, uint64_t offset,
                                 uint64_t first_index, const EventFn& on_event) {
  class Text : public ByteSource {  // the bytes as they are (a region is never gzip)
   public:
    explicit Text(std::string_view t) : t_(t) {}
    size_t read(char* out, size_t n) override {
      const size_t k = std::min(n, t_.size());
      std::memcpy(out, t_.data(), k);
      t_.remove_prefix(k);
      return k;
    }
    bool gzip() const override { return false; }
    uint64_t bytes_read_raw() const override { return 0; }

   private:
    std::string_view t_;
  } source(text);
  JsonEventStream stream(source, name, offset);
  stream.elements(on_event, first_index, true);
}

void JsonEventStream::run(const EventFn& on_event, const TopFn& on_top, const RegionSink* regions) {
  const char first = peek_nonspace();
  if (first == 0) fail("empty file: expected a Chrome trace JSON object or array", 0);
  const auto events = [&] {  // pos_ just after '['
    uint64_t index = 0;
    if (regions) bulk_elements(*regions, &index);
    elements(on_event, index, false);
  };
  if (first == '[') {
    ++pos_;
    events();
  } else if (first == '{') {
    ++pos_;
    if (peek_nonspace() == '}')
      ++pos_;
    else
      for (;;) {
        if (peek_nonspace() != '"') expect('"', "a key string");
        const size_t key_end = scan_value();
        const std::string key(buf_.data() + mark_ + 1, key_end - mark_ - 2);
        pos_ = key_end;
        expect(':', "':' after a key");
        if (peek_nonspace() == 0)
          fail("unexpected end of input (truncated?) after key \"" + key + "\"", base_ + pos_);
        if (key == "traceEvents") {
          expect('[', "'[' to open traceEvents");
          events();
        } else {
          const size_t to = scan_value();
          on_top(key, slice(mark_, to));
          pos_ = to;
        }
        const char sep = peek_nonspace();
        if (sep == '}') {
          ++pos_;
          break;
        }
        if (sep != ',') {
          if (sep == 0)
            fail("unexpected end of input (truncated?) in the top-level object", base_ + pos_);
          fail(std::string("expected ',' or '}' in the top-level object, found '") + sep + "'",
               base_ + pos_);
        }
        ++pos_;
      }
  } else {
    fail(
        std::string("not JSON: expected '{' or '[' to start a Chrome trace, found '") + first + "'",
        base_ + pos_);
  }
  if (peek_nonspace() != 0)
    fail("unexpected data after the end of the JSON document", base_ + pos_);
}

}  // namespace trace
