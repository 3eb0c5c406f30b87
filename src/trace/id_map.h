// A map from a 32-bit id (a CUDA correlation id) to a 32-bit value, by open addressing.
// Why not std::unordered_map: a 1 GB trace joins millions of host calls to their GPU work,
// and a node per entry made that join most of the attribution's time. Here the table is one
// array, sized once, probed linearly. Correlation ids are counters, so the slot is the id's
// own low bits (with its high bits folded in): consecutive ids land in consecutive slots,
// which keeps a join over millions of them in cache, where a scrambling hash missed it on
// every insert.
#pragma once

#include <cstdint>
#include <vector>

namespace trace {

class IdMap {
 public:
  explicit IdMap(size_t expected = 0) { reserve(expected); }

  // Sets key -> value unless the key is there already (the first value wins). Returns
  // whether it was inserted.
  bool insert(uint32_t key, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {key, value, true};
        ++size_;
        return true;
      }
      if (s.key == key) return false;
    }
  }
  // The value for key, or nullptr.
  const uint32_t* find(uint32_t key) const {
    if (size_ == 0) return nullptr;
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  bool contains(uint32_t key) const { return find(key) != nullptr; }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t key = 0, value = 0;
    bool used = false;
  };
  size_t hash(uint32_t k) const { return static_cast<size_t>(k ^ (static_cast<uint64_t>(k) >> bits_)); }
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
  void grow() { rehash(slots_.empty() ? 16 : slots_.size() * 2); }
  void rehash(size_t cap) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    bits_ = 0;
    while ((size_t{1} << bits_) < cap) ++bits_;
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) insert(s.key, s.value);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  unsigned bits_ = 0;
};

}  // namespace trace
