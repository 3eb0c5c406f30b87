// Nanoseconds (the records' unit) as microseconds (every output's unit: `_us` in its names).
#pragma once

#include <type_traits>

namespace trace {

template <typename T>
constexpr double us(T ns) {
  static_assert(std::is_arithmetic_v<T>, "us(): a number of nanoseconds");
  return static_cast<double>(ns) / 1000.0;
}

}  // namespace trace
