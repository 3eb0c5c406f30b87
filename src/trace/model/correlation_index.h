// Correlation id -> the index of the first record that has it: arrays over the stretches of
// ids in use where they are dense, IdMap elsewhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace/model/id_map.h"
#include "trace/model/key_pages.h"

namespace trace {

// Why not IdMap alone: IdMap keeps 2 to 4 slots of 12 bytes per id, and on a 274 MB trace
// filling that table was 14 % of all the fresh pages the process faulted in. Correlation ids
// are counters, but not one counter: a trace stitched from several runs, or a long run whose
// profiler was paused, jumps ahead between stretches. So only the pages of 4096 ids that hold
// an id get an array of 4-byte indices (KeyPages: one more load per lookup, no probing).
// Where the pages in use would hold more than 4 slots per id, or the range has more pages
// than there are ids (ids scattered or far apart), IdMap does the job.
class CorrelationIndex {
 public:
  // id_of(i) for i < n: record i's correlation id (0: it has none, and is not indexed).
  template <typename IdOf>
  CorrelationIndex(size_t n, IdOf id_of) {
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < n; ++i)
      if (const uint32_t k = id_of(i)) lo = std::min(lo, k), hi = std::max(hi, k);
    if (lo > hi) return;  // no ids: every find says no
    lo_ = lo;
    pages_ = KeyPages(uint64_t{hi} - lo, n, [&](auto visit) {
      for (size_t i = 0; i < n; ++i)
        if (const uint32_t k = id_of(i)) visit(uint64_t{k} - lo);
    });
    paged_ = pages_.in_use() > 0 && (pages_.in_use() << KeyPages::kBits) <= 4 * uint64_t{n};
    if (paged_) {
      slots_.assign(pages_.in_use() << KeyPages::kBits, kNone);
    } else {
      pages_ = {};
      map_ = IdMap(n);
    }
    for (size_t i = 0; i < n; ++i)
      if (const uint32_t k = id_of(i)) insert(k, static_cast<uint32_t>(i));
  }
  // The index of the first record with this id, or nullptr (any id, inside the range or not).
  const uint32_t* find(uint32_t key) {
    if (!paged_) return map_.find(key);
    const uint64_t at = key < lo_ ? KeyPages::kNoSlot : pages_.slot(uint64_t{key} - lo_);
    return at == KeyPages::kNoSlot || slots_[at] == kNone ? nullptr : &slots_[at];
  }
  bool paged() const { return paged_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  void insert(uint32_t key, uint32_t index) {
    if (!paged_) {
      map_.insert(key, index);
      return;
    }
    uint32_t& s = slots_[pages_.slot(uint64_t{key} - lo_)];
    if (s == kNone) s = index;
  }
  uint32_t lo_ = 0;
  bool paged_ = false;
  KeyPages pages_;
  std::vector<uint32_t> slots_;  // the pages in use, one after another
  IdMap map_;
};

}  // namespace trace
