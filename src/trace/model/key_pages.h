// The pages of 4096 consecutive keys that hold a key, over a range of keys: where the arrays of
// CorrelationIndex (32-bit correlation ids) and KeyedValues (a file's int64 ids) keep a slot
// per key of each page in use, one page after another.
#pragma once

#include <cstdint>
#include <vector>

namespace trace {

// Why pages: ids are counters, but not one counter (a trace stitched from runs, a paused
// profiler, -1 beside ids in the millions), so an array over the whole range can be mostly
// empty; over the pages in use it is not. Keys are offsets from the range's lowest key.
class KeyPages {
 public:
  static constexpr unsigned kBits = 12;
  static constexpr uint64_t kSize = uint64_t{1} << kBits;
  static constexpr uint64_t kNoSlot = UINT64_MAX;

  KeyPages() = default;
  // offsets(visit) calls visit(at) with each of the n keys' offsets, the largest being `span`.
  // Where the range holds more pages than there are keys (its table would cost more than 4
  // bytes a key), no page is in use.
  template <typename ForEachOffset>
  KeyPages(uint64_t span, size_t n, ForEachOffset offsets) {
    const uint64_t range_pages = (span >> kBits) + 1;
    if (range_pages > n) return;
    page_of_.assign(range_pages, kNone);
    offsets([&](uint64_t at) {
      uint32_t& p = page_of_[at >> kBits];
      if (p == kNone) p = in_use_++;
    });
  }
  uint64_t in_use() const { return in_use_; }
  // The slot of any offset, or kNoSlot where its page holds no key.
  uint64_t slot(uint64_t at) const {
    if ((at >> kBits) >= page_of_.size()) return kNoSlot;
    const uint32_t p = page_of_[at >> kBits];
    return p == kNone ? kNoSlot : (uint64_t{p} << kBits) | (at & (kSize - 1));
  }
  // f(first offset, first slot) for each page in use, in the range's order.
  template <typename F>
  void each_page(F f) const {
    for (uint64_t i = 0; i < page_of_.size(); ++i)
      if (page_of_[i] != kNone) f(i << kBits, uint64_t{page_of_[i]} << kBits);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> page_of_;  // page of the range -> its place among the pages in use
  uint32_t in_use_ = 0;
};

}  // namespace trace
