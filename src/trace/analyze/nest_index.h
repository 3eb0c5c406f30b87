// Host records that nest by time on their thread (cpu_ops, Python frames): for any span, the
// innermost record that holds it, and each record's parent. Records that overlap without
// nesting (a malformed trace) are taken as siblings: a record's parent is the nearest earlier
// one on its thread that ends at or after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/model/sorted_order.h"

namespace trace {

class NestIndex {
 public:
  template <typename R>
  explicit NestIndex(const std::vector<R>& all) : parent_(all.size(), -1) {
    // By start, the longer first at equal starts (the outer record before the one it holds).
    const auto order = sorted_order(all.size(), [&](size_t i) {
      return std::make_pair(all[i].start_ns, UINT64_MAX - all[i].end_ns);
    });
    for (uint32_t i : order) {
      Thread& t = threads_[all[i].thread_id];
      t.index.push_back(i);
      t.start.push_back(all[i].start_ns);
      t.end.push_back(all[i].end_ns);
    }
    for (auto& [tid, t] : threads_) {
      t.parent.assign(t.index.size(), -1);
      std::vector<int32_t> open;  // positions of the records still open, outermost first
      for (int32_t p = 0; p < static_cast<int32_t>(t.index.size()); ++p) {
        while (!open.empty() && t.end[open.back()] < t.end[p]) open.pop_back();
        t.parent[p] = open.empty() ? -1 : open.back();
        if (t.parent[p] >= 0) parent_[t.index[p]] = t.index[t.parent[p]];
        open.push_back(p);
      }
    }
  }

  // The innermost record on `thread` that holds [a, b], as an index into the records; -1: none.
  int64_t innermost(uint32_t thread, uint64_t a, uint64_t b) const {
    const auto it = threads_.find(thread);
    if (it == threads_.end()) return -1;
    const Thread& t = it->second;
    int32_t p = static_cast<int32_t>(std::upper_bound(t.start.begin(), t.start.end(), a) -
                                     t.start.begin()) -
                1;
    while (p >= 0 && t.end[p] < b) p = t.parent[p];
    return p < 0 ? int64_t{-1} : static_cast<int64_t>(t.index[p]);
  }

  // The record that holds record `i` (an index into the records); -1: none.
  int64_t parent(int64_t i) const { return parent_[static_cast<size_t>(i)]; }

 private:
  struct Thread {
    std::vector<uint32_t> index;  // records by start
    std::vector<uint64_t> start, end;
    std::vector<int32_t> parent;  // position of the parent, -1: none
  };
  std::unordered_map<uint32_t, Thread> threads_;
  std::vector<int64_t> parent_;
};

}  // namespace trace
