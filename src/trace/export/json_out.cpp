#include "trace/export/json_out.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trace {

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += c;
  }
  return out;
}

void JsonOut::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}
JsonOut& JsonOut::begin_object() {
  comma();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
JsonOut& JsonOut::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}
JsonOut& JsonOut::begin_array() {
  comma();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
JsonOut& JsonOut::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}
JsonOut& JsonOut::key(std::string_view k) {
  comma();
  out_ += '"' + json_escape(k) + "\":";
  after_key_ = true;
  return *this;
}
JsonOut& JsonOut::value(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  char buf[32];  // the shortest of 15..17 digits that reads back as the same double
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  out_ += buf;
  return *this;
}
JsonOut& JsonOut::value(uint64_t v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}
JsonOut& JsonOut::value(int64_t v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}
JsonOut& JsonOut::value(bool v) {
  comma();
  out_ += v ? "true" : "false";
  return *this;
}
JsonOut& JsonOut::value(std::string_view v) {
  comma();
  out_ += '"' + json_escape(v) + '"';
  return *this;
}
JsonOut& JsonOut::null() {
  comma();
  out_ += "null";
  return *this;
}

JsonOut& JsonOut::raw(std::string_view json) {
  comma();
  out_ += json;
  return *this;
}

}  // namespace trace
