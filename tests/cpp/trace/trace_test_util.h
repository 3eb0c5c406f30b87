// Helpers for the iris_trace tests: import from a string, and the real traces' folder.
#pragma once

#include <string>

#include "trace/import/kineto/kineto_import.h"

namespace tracetest {

inline std::string data(const std::string& rel) { return std::string(IRIS_TRACE_DATA) + "/" + rel; }

inline trace::ImportedTrace import_text(const std::string& json, bool hta = false,
                                        const std::string& name = "inline.json") {
  auto src = trace::memory_byte_source(json.data(), json.size(), name);
  trace::ImportOptions o;
  o.hta_events = hta;
  return trace::import_trace(*src, name, o);
}

// The InputError message for importing `json`, or "" when it imports.
inline std::string import_error(const std::string& json, const std::string& name = "bad.json") {
  try {
    import_text(json, false, name);
  } catch (const trace::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tracetest
