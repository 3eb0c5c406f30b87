// Helpers for the iris_trace tests: import from a string, and the real traces' folder.
#pragma once

#include <cstdio>
#include <string>

#include "capture/bench_names.h"
#include "trace/import/kineto/kineto_import.h"

namespace tracetest {

inline std::string data(const std::string& rel) { return std::string(IRIS_TRACE_DATA) + "/" + rel; }

// What every reader of bench's own files passes (tools/attribute.cpp, python/ext): bench's step
// phase and NVTX domain, which the library does not know.
inline trace::ImportOptions bench_files() {
  trace::ImportOptions o;
  o.step_phase = bench::kStepPhase;
  o.phase_domain = bench::kPhaseDomain;
  return o;
}

inline trace::ImportedTrace import_text(const std::string& json, bool list_events = false,
                                        const std::string& name = "inline.json",
                                        trace::ImportOptions o = {}) {
  auto src = trace::memory_byte_source(json.data(), json.size(), name);
  o.list_events = list_events;
  return trace::import_trace(*src, name, o);
}

// Every listed event, every field (the doubles to their last bit), strings by their text.
inline std::string listing_text(const trace::EventListing& l) {
  const auto text = [&](uint32_t id) {
    return id == trace::ListedEvent::kNone ? std::string("(none)") : l.strings.at(id);
  };
  std::string out = std::to_string(l.ts_missing) + std::to_string(l.ts_fractional) +
                    std::to_string(l.dur_missing) + std::to_string(l.dur_fractional);
  char times[64];
  for (const auto& e : l.events) {
    std::snprintf(times, sizeof times, "%.17g:%.17g", e.ts_us, e.dur_us);
    out += " " + std::to_string(e.index) + ":" + times + ":" + std::to_string(e.stream) + ":" +
           std::to_string(e.correlation) + ":" + text(e.name) + ":" + text(e.category);
  }
  return out;
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
