// A small JSON writer for ./attribute's --json output: keys in the order written, numbers
// with enough digits to round-trip, strings escaped. No DOM: it appends to one string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trace {

class JsonOut {
 public:
  JsonOut& begin_object();
  JsonOut& end_object();
  JsonOut& begin_array();
  JsonOut& end_array();
  JsonOut& key(std::string_view k);
  JsonOut& value(double v);
  JsonOut& value(uint64_t v);
  JsonOut& value(int64_t v);
  JsonOut& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonOut& value(bool v);
  JsonOut& value(std::string_view v);
  JsonOut& value(const char* v) { return value(std::string_view(v)); }
  JsonOut& null();
  // A value written elsewhere, inserted as it is (a trace's entry from another JsonOut).
  JsonOut& raw(std::string_view json);
  const std::string& str() const { return out_; }

 private:
  void comma();
  std::string out_;
  std::vector<bool> first_{true};
  bool after_key_ = false;
};

std::string json_escape(std::string_view s);

}  // namespace trace
