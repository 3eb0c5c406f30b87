// A value per int64 key (a file's correlation or row index), for HTA's joins: arrays over the
// stretches of keys in use where they are dense, std::unordered_map elsewhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace trace {

// Why: HTA's load joins every row of a rank on its correlation or index, and a node-based map
// allocates and chases one node per row. The keys are counters (correlation ids, row places),
// but not one counter: -1 stands beside ids in the millions, and a trace stitched from runs
// jumps between stretches. So, as CorrelationIndex does for 32-bit ids, the keys' range is cut
// into pages of 4096 and only pages that hold a key get an array; keys too sparse for that
// (any int64 a file can hold) take the hash map.
template <typename V>
class KeyedValues {
 public:
  // for_each_key(visit) calls visit(k) for every key that [] will be given (twice over);
  // `absent` is the value of a key never set.
  template <typename ForEachKey>
  KeyedValues(ForEachKey for_each_key, V absent) : absent_(absent) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t n = 0;
    for_each_key([&](int64_t k) { lo = std::min(lo, k), hi = std::max(hi, k), ++n; });
    if (n == 0) return;
    lo_ = lo;
    const uint64_t range_pages = (offset(hi) >> kPageBits) + 1;
    uint64_t pages = 0;
    if (range_pages <= n) {  // the table of pages costs at most 4 bytes per key
      page_of_.assign(range_pages, kNoPage);
      for_each_key([&](int64_t k) {
        uint32_t& p = page_of_[offset(k) >> kPageBits];
        if (p == kNoPage) p = static_cast<uint32_t>(pages++);
      });
    }
    // At most 32 bytes a key (an unordered_map node's size), beside one page.
    paged_ = pages > 0 && ((pages - 1) << kPageBits) * sizeof(V) <= 32 * uint64_t{n};
    if (paged_) {
      slots_.assign(pages << kPageBits, absent);
    } else {
      page_of_ = {};
      map_.reserve(n);
    }
  }
  // The value of a key given to the constructor, `absent` until set.
  V& operator[](int64_t k) {
    if (!paged_) return map_.try_emplace(k, absent_).first->second;
    const uint64_t at = offset(k);
    return slots_[(uint64_t{page_of_[at >> kPageBits]} << kPageBits) | (at & (kPage - 1))];
  }
  // Any key's value, or `absent`.
  V get(int64_t k) const {
    if (!paged_) {
      const auto it = map_.find(k);
      return it == map_.end() ? absent_ : it->second;
    }
    const uint64_t at = offset(k);
    if (k < lo_ || (at >> kPageBits) >= page_of_.size()) return absent_;
    const uint32_t p = page_of_[at >> kPageBits];
    return p == kNoPage ? absent_ : slots_[(uint64_t{p} << kPageBits) | (at & (kPage - 1))];
  }
  // The keys whose value is not `absent`, ascending.
  std::vector<int64_t> keys() const {
    std::vector<int64_t> out;
    if (!paged_) {
      for (const auto& [k, v] : map_)
        if (v != absent_) out.push_back(k);
      std::sort(out.begin(), out.end());
      return out;
    }
    for (uint64_t i = 0; i < page_of_.size(); ++i) {
      if (page_of_[i] == kNoPage) continue;
      const V* page = &slots_[uint64_t{page_of_[i]} << kPageBits];
      for (uint64_t j = 0; j < kPage; ++j)
        if (page[j] != absent_)
          out.push_back(static_cast<int64_t>(static_cast<uint64_t>(lo_) + (i << kPageBits) + j));
    }
    return out;
  }
  bool paged() const { return paged_; }

 private:
  static constexpr unsigned kPageBits = 12;
  static constexpr uint64_t kPage = uint64_t{1} << kPageBits;
  static constexpr uint32_t kNoPage = UINT32_MAX;
  uint64_t offset(int64_t k) const { return static_cast<uint64_t>(k) - static_cast<uint64_t>(lo_); }
  int64_t lo_ = 0;
  V absent_;
  bool paged_ = false;
  std::vector<uint32_t> page_of_;  // page of the range -> its place in slots_, or kNoPage
  std::vector<V> slots_;           // the pages in use, one after another
  std::unordered_map<int64_t, V> map_;
};

}  // namespace trace
