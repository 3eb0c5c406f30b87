// A map from a 32-bit id (a CUDA correlation id) to a 32-bit value, by open addressing.
// Why not std::unordered_map: a 1 GB trace joins millions of host calls to their GPU work,
// and a node per entry made that join most of the attribution's time. Here the table is one
// array, probed linearly.
//
// Slots: correlation ids are counters, so a slot is first the id's own low bits (its high
// bits folded in): consecutive ids land in consecutive slots, which keeps a join over
// millions of them in cache where a scrambling hash misses it on every insert. But ids that
// are consecutive over a long stretch fill one long run of slots, and a missing id whose
// slot falls inside it would walk the whole run; ids can also be chosen to share slots. So
// the map watches its probe lengths (an insert that walks more than kMaxProbe slots, or, at
// the first lookup after inserts, a run of occupied slots longer than that) and then
// rehashes once with a multiplicative hash, whose runs stay short whatever the ids.
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
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    checked_ = false;
    for (size_t i = slot(key), walked = 0;; i = (i + 1) & mask_, ++walked) {
      ++probes_;
      Slot& s = slots_[i];
      if (!s.used) {
        s = {key, value, true};
        ++size_;
        if (walked > kMaxProbe && !mixed_) scramble();
        return true;
      }
      if (s.key == key) return false;
    }
  }
  // The value for key, or nullptr. Not const: the first lookup after inserts checks the runs.
  const uint32_t* find(uint32_t key) {
    if (size_ == 0) return nullptr;
    if (!checked_) check_runs();
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      ++probes_;
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  bool contains(uint32_t key) { return find(key) != nullptr; }
  size_t size() const { return size_; }
  // Slots visited by every insert and lookup so far (the tests bound it).
  uint64_t probes() const { return probes_; }
  bool scrambled() const { return mixed_; }

 private:
  static constexpr size_t kMaxProbe = 64;
  struct Slot {
    uint32_t key = 0, value = 0;
    bool used = false;
  };
  size_t slot(uint32_t k) const {
    if (mixed_) return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
    return static_cast<size_t>(k ^ (static_cast<uint64_t>(k) >> bits_)) & mask_;
  }
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
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
  void scramble() {
    mixed_ = true;
    rehash(slots_.size());
  }
  // The longest run of occupied slots (wrapping around) bounds what a lookup can walk.
  void check_runs() {
    checked_ = true;
    if (mixed_) return;
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < 2 * slots_.size() && longest <= kMaxProbe; ++i) {
      run = slots_[i & mask_].used ? run + 1 : 0;
      if (run > longest) longest = run;
    }
    if (longest > kMaxProbe) scramble();
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  unsigned bits_ = 0;
  bool mixed_ = false, checked_ = true;
  uint64_t probes_ = 0;
};

}  // namespace trace
