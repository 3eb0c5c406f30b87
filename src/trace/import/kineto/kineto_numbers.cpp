#include "trace/import/kineto/kineto_numbers.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

namespace trace {

namespace {
// Eight ASCII digits at p -> their value, in a few multiplies (simdjson's and fast_float's SWAR
// trick); false when any of the eight is not a digit.
bool eight_digits(const char* p, uint64_t* out) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) v = __builtin_bswap64(v);
  if (((v & 0xF0F0F0F0F0F0F0F0ull) |
       (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
    return false;
  v = ((v & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  v = ((v & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  *out = ((v & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
  return true;
}
}  // namespace

bool us_text_to_ns(std::string_view t, int64_t* out) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  size_t i = 0;
  const bool neg = i < t.size() && t[i] == '-';
  if (neg) ++i;
  // Kineto's usual text, an integer of at most 16 digits, in one pass (eight digits at a time
  // where eight are left); what it cannot take (a fraction, an exponent, more digits, 9.3e15 us
  // and above) goes the long way below.
  if (t.size() > i && t.size() - i <= 16) {
    uint64_t v = 0, eight;
    size_t j = i;
    for (; t.size() - j >= 8 && eight_digits(t.data() + j, &eight); j += 8)
      v = v * 100000000 + eight;
    for (; j < t.size() && static_cast<unsigned char>(t[j] - '0') <= 9; ++j)
      v = v * 10 + static_cast<uint64_t>(t[j] - '0');
    if (j == t.size() && v <= static_cast<uint64_t>(INT64_MAX) / 1000) {
      *out = neg ? -static_cast<int64_t>(v * 1000) : static_cast<int64_t>(v * 1000);
      return true;
    }
  }
  // Up to 18 significant digits exactly; more digits only shift the exponent.
  uint64_t mant = 0;
  int digits = 0, exp10 = 3;  // the text is in us; we want ns
  bool any = false, round_up = false;
  const auto take = [&](char c, bool frac) {
    any = true;
    if (digits < 18) {
      mant = mant * 10 + static_cast<uint64_t>(c - '0');
      if (mant) ++digits;
      if (frac) --exp10;
    } else {
      if (!frac) ++exp10;
      if (digits == 18) round_up = c >= '5', ++digits;  // first dropped digit decides rounding
    }
  };
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], false);
  if (i < t.size() && t[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], true);
    if (i == start) return false;
  }
  if (!any) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    int e = 0;
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      e = std::min(e * 10 + (t[i++] - '0'), 10000);
    }
    if (i == start) return false;
    exp10 += eneg ? -e : e;
  }
  if (i != t.size()) return false;
  if (round_up) ++mant;
  if (mant == 0) return *out = 0, true;
  while (exp10 > 0) {
    if (mant > static_cast<uint64_t>(INT64_MAX) / 10) return false;
    mant *= 10, --exp10;
  }
  while (exp10 < 0) {
    if (exp10 < -20) return *out = 0, true;
    const uint64_t q = mant / 10, r = mant % 10;
    mant = q + (exp10 == -1 && r >= 5 ? 1 : 0);  // round half up at the last step
    ++exp10;
  }
  if (mant > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = neg ? -static_cast<int64_t>(mant) : static_cast<int64_t>(mant);
  return true;
}

// glibc's strtod rounds correctly and gives +-inf or 0 out of range; the "C" locale is in
// force (nothing here calls setlocale).
double text_to_double(std::string_view t) {
  // from_chars rounds correctly, as strtod does, without copying the text to end it with a NUL.
  double v = 0;
  if (std::from_chars(t.data(), t.data() + t.size(), v).ec == std::errc()) return v;
  const std::string text(t);  // out of range, or a form from_chars refuses: strtod's answer
  return std::strtod(text.c_str(), nullptr);
}

int64_t string_to_int(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) neg = s[0] == '-', s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

}  // namespace trace
