// Strings numbered in the order first seen, looked up by view: the listing numbers a name and a
// category for every event of a trace, and a lookup that built a std::string would allocate for
// every name longer than the short-string buffer.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace trace {

class StringIds {
 public:
  // {s's number, true when s is new}; a new s is given `next`.
  std::pair<uint32_t, bool> find_or_add(std::string_view s, uint32_t next) {
    if (const auto it = ids_.find(s); it != ids_.end()) return {it->second, false};
    store_.emplace_back(s);
    ids_.emplace(store_.back(), next);
    return {next, true};
  }
  void clear() { ids_.clear(), store_.clear(); }

 private:
  std::deque<std::string> store_;  // a deque keeps its strings in place: the keys view them
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace trace
