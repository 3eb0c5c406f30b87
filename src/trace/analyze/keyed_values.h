// A value per int64 key (a file's correlation or row index), for HTA's joins: arrays over the
// pages of keys in use where they are dense, std::unordered_map elsewhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/model/key_pages.h"

namespace trace {

// Why: HTA's load joins every row of a rank on its correlation or index, and a node-based map
// allocates and chases one node per row. The keys are counters (correlation ids, row places),
// so, as CorrelationIndex does for 32-bit ids, the pages of keys in use get arrays (KeyPages);
// keys too sparse for that (any int64 a file can hold) take the hash map.
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
    pages_ = KeyPages(offset(hi), n,
                      [&](auto visit) { for_each_key([&](int64_t k) { visit(offset(k)); }); });
    // At most 32 bytes a key (an unordered_map node's size), beside one page.
    const uint64_t pages = pages_.in_use();
    paged_ = pages > 0 && ((pages - 1) << KeyPages::kBits) * sizeof(V) <= 32 * uint64_t{n};
    if (paged_) {
      slots_.assign(pages << KeyPages::kBits, absent);
    } else {
      pages_ = {};
      map_.reserve(n);
    }
  }
  // The keys `same_keys` was built for, each `absent`: for a second value over the same keys,
  // without scanning them again.
  KeyedValues(const KeyedValues& same_keys, V absent)
      : lo_(same_keys.lo_), absent_(absent), paged_(same_keys.paged_), pages_(same_keys.pages_) {
    if (paged_)
      slots_.assign(same_keys.slots_.size(), absent);
    else
      map_.reserve(same_keys.map_.bucket_count());
  }
  // The value of a key given to the constructor, `absent` until set.
  V& operator[](int64_t k) {
    if (!paged_) return map_.try_emplace(k, absent_).first->second;
    return slots_[pages_.slot(offset(k))];
  }
  // Any key's value, or `absent`.
  V get(int64_t k) const {
    if (!paged_) {
      const auto it = map_.find(k);
      return it == map_.end() ? absent_ : it->second;
    }
    const uint64_t at = k < lo_ ? KeyPages::kNoSlot : pages_.slot(offset(k));
    return at == KeyPages::kNoSlot ? absent_ : slots_[at];
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
    pages_.each_page([&](uint64_t first, uint64_t slot) {
      for (uint64_t j = 0; j < KeyPages::kSize; ++j)
        if (slots_[slot + j] != absent_)
          out.push_back(static_cast<int64_t>(static_cast<uint64_t>(lo_) + first + j));
    });
    return out;
  }
  bool paged() const { return paged_; }

 private:
  uint64_t offset(int64_t k) const { return static_cast<uint64_t>(k) - static_cast<uint64_t>(lo_); }
  int64_t lo_ = 0;
  V absent_;
  bool paged_ = false;
  KeyPages pages_;
  std::vector<V> slots_;  // the pages in use, one after another
  std::unordered_map<int64_t, V> map_;
};

}  // namespace trace
