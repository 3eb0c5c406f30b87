// Correlation id -> the index of the first record that has it: arrays over the stretches of
// ids in use where they are dense, IdMap elsewhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace/model/id_map.h"

namespace trace {

// Why not IdMap alone: IdMap keeps 2 to 4 slots of 12 bytes per id, and on a 274 MB trace
// filling that table was 14 % of all the fresh pages the process faulted in. Correlation ids
// are counters, but not one counter: a trace stitched from several runs, or a long run whose
// profiler was paused, jumps ahead between stretches. So the ids' range is cut into pages
// of 4096 ids, and only pages that hold an id get an array of 4-byte indices (one more load
// per lookup, no probing). Where the pages in use would hold more than 4 slots per id, or the
// range has more pages than there are ids (ids scattered or far apart), IdMap does the job.
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
    const uint64_t range_pages = ((uint64_t{hi} - lo) >> kPageBits) + 1;
    uint32_t pages = 0;
    if (range_pages <= n) {  // the table of pages costs at most 4 bytes per id
      page_of_.assign(range_pages, kNone);
      for (size_t i = 0; i < n; ++i)
        if (const uint32_t k = id_of(i); k && page_of_[(k - lo) >> kPageBits] == kNone)
          page_of_[(k - lo) >> kPageBits] = pages++;
    }
    paged_ = pages > 0 && (uint64_t{pages} << kPageBits) <= 4 * uint64_t{n};
    if (paged_) {
      slots_.assign(uint64_t{pages} << kPageBits, kNone);
    } else {
      page_of_ = {};
      map_ = IdMap(n);
    }
    for (size_t i = 0; i < n; ++i)
      if (const uint32_t k = id_of(i)) insert(k, static_cast<uint32_t>(i));
  }
  // The index of the first record with this id, or nullptr (any id, inside the range or not).
  const uint32_t* find(uint32_t key) {
    if (!paged_) return map_.find(key);
    const uint64_t at = uint64_t{key} - lo_;
    if (key < lo_ || (at >> kPageBits) >= page_of_.size() || page_of_[at >> kPageBits] == kNone)
      return nullptr;
    const uint32_t& s = slot(at);
    return s == kNone ? nullptr : &s;
  }
  bool paged() const { return paged_; }

 private:
  static constexpr unsigned kPageBits = 12;
  static constexpr uint64_t kPageMask = (uint64_t{1} << kPageBits) - 1;
  static constexpr uint32_t kNone = UINT32_MAX;
  void insert(uint32_t key, uint32_t index) {
    if (!paged_) {
      map_.insert(key, index);
      return;
    }
    uint32_t& s = slot(uint64_t{key} - lo_);
    if (s == kNone) s = index;
  }
  // The slot of the id at offset `at` from lo_, whose page is in use.
  uint32_t& slot(uint64_t at) {
    return slots_[(uint64_t{page_of_[at >> kPageBits]} << kPageBits) | (at & kPageMask)];
  }
  uint32_t lo_ = 0;
  bool paged_ = false;
  std::vector<uint32_t> page_of_;  // page of the range -> its place in slots_, or kNone
  std::vector<uint32_t> slots_;    // the pages in use, one after another
  IdMap map_;
};

}  // namespace trace
