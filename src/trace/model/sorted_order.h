// The order of n records by a key, as a permutation of their indices; equal keys keep the
// records' own order. Why not sort pointers with a comparator that reads the records: that
// reads a scattered record per comparison, millions of times on a 1 GB trace. Here the keys
// are copied once into a compact array, and sorted by merging the runs already in order. A
// trace's records come as long ordered runs (a thread's buffer, then another's): the 1.6
// million host calls of a 1 GB trace are 3243 runs, which std::sort took a quarter of a
// second to order (it does not notice runs) and this does in a few hundredths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace trace {

// key(i) -> std::pair<uint64_t, uint64_t>: the primary and secondary key of record i.
namespace detail {
struct OrderEntry {
  uint64_t a, b;
  uint32_t i;
  bool operator<(const OrderEntry& o) const {
    return a != o.a ? a < o.a : b != o.b ? b < o.b : i < o.i;
  }
};

// Sorts e when it is made of ascending runs: adjacent runs merged pairwise, bottom up; each
// merge moves only the parts of its two runs that overlap (the rest is in place already).
// Falls back to std::sort when the runs are short (no order to use).
inline void sort_runs(std::vector<OrderEntry>* v) {
  std::vector<OrderEntry>& e = *v;
  const size_t n = e.size();
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < n; ++i)
    if (e[i] < e[i - 1]) bounds.push_back(i);
  bounds.push_back(n);
  if (bounds.size() > n / 16 + 2) {
    std::sort(e.begin(), e.end());
    return;
  }
  std::vector<OrderEntry> buf;
  const auto merge = [&](size_t lo, size_t mid, size_t hi) {
    if (!(e[mid] < e[mid - 1])) return;  // in order already
    const auto a =
        std::upper_bound(e.begin() + lo, e.begin() + mid, e[mid]);  // A's part after B's first
    const auto b =
        std::upper_bound(e.begin() + mid, e.begin() + hi, e[mid - 1]);  // B's part before A's last
    buf.assign(a, e.begin() + mid);
    // Merged back in place (std::merge may not write over its input): the write position stays
    // behind B's next element by what is left of buf, so nothing unread is overwritten.
    auto out = a, from_b = e.begin() + mid;
    auto from_buf = buf.begin();
    while (from_buf != buf.end() && from_b != b)
      *out++ = *from_b < *from_buf ? *from_b++ : *from_buf++;
    while (from_buf != buf.end()) *out++ = *from_buf++;  // B's rest is in place already
  };
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    const size_t runs = bounds.size() - 1;
    for (size_t k = 0; k < runs; k += 2) {
      if (k + 1 < runs) merge(bounds[k], bounds[k + 1], bounds[k + 2]);
      next.push_back(bounds[std::min(k + 2, runs)]);
    }
    bounds.swap(next);
  }
}
}  // namespace detail

// key(i) -> std::pair<uint64_t, uint64_t>: the primary and secondary key of record i.
template <typename KeyFn>
std::vector<uint32_t> sorted_order(size_t n, KeyFn key) {
  std::vector<detail::OrderEntry> e(n);
  for (size_t i = 0; i < n; ++i) {
    const auto [a, b] = key(i);
    e[i] = {a, b, static_cast<uint32_t>(i)};
  }
  if (!std::is_sorted(e.begin(), e.end())) {
    detail::sort_runs(&e);
  }
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = e[i].i;
  return order;
}

}  // namespace trace
