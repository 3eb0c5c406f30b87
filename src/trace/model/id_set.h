// A set of correlation ids: a bitmap over their range where it is dense, IdMap elsewhere.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/id_map.h"

namespace trace {

// "Is this correlation id there", for every importer's correlation checks (finish_records.cpp).
// Correlation ids are counters, so where their range holds at most 64 values per id, a bitmap
// over it (at most 8 bytes per id where IdMap fills 24, and one load per question) answers;
// elsewhere IdMap does. On a 274 MB trace IdMap's inserts and lookups were most of the Kineto
// importer's finish(), which runs alone after the parse.
class IdSet {
 public:
  IdSet(uint32_t lo, uint32_t hi, size_t n)
      : lo_(lo), dense_(n > 0 && (uint64_t{hi} - lo) / 64 <= n) {
    if (dense_)
      bits_.assign((uint64_t{hi} - lo) / 64 + 1, 0);
    else
      map_ = IdMap(n);
  }
  void insert(uint32_t k) {
    if (!dense_)
      map_.insert(k, 0);
    else
      bits_[(k - lo_) >> 6] |= uint64_t{1} << ((k - lo_) & 63);
  }
  bool contains(uint32_t k) {  // k within [lo, hi]
    if (!dense_) return map_.contains(k);
    return (bits_[(k - lo_) >> 6] >> ((k - lo_) & 63)) & 1;
  }

 private:
  uint32_t lo_;
  bool dense_;
  std::vector<uint64_t> bits_;
  IdMap map_;
};

}  // namespace trace
