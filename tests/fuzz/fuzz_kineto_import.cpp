// libFuzzer target: any bytes through the importer (plain or gzip) and both attributions.
// Bad input must end in trace::InputError, never a crash, a hang or a sanitizer report. The
// batch parse (each ~1 MiB of events as one simdjson document) is held to the per-event parse
// it falls back on: the same figures, or the same error message, or the fuzzer aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/step_report.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/kineto/kineto_import.h"

namespace {

// Every figure of the input as JSON, or "error: " + the InputError's message.
std::string figures(const uint8_t* data, size_t size, bool batch_parse) {
  try {
    auto source = trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input");
    trace::ImportOptions options;
    options.hta_events = true;
    options.batch_parse = batch_parse;
    trace::ImportedTrace t = trace::import_trace(*source, "fuzz input", options);
    const auto report = trace::build_report(t);
    trace::JsonOut out;
    out.begin_array();
    trace::write_report_json(out, report);
    (void)trace::report_table(report);
    trace::write_hta_json(out, trace::hta_breakdown({&t}));
    out.end_array();
    return out.str();
  } catch (const trace::InputError& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string batch = figures(data, size, true), per_event = figures(data, size, false);
  if (batch != per_event) {
    std::fprintf(stderr, "fuzz_kineto_import: the batch parse gave\n%.2000s\nthe per-event parse\n%.2000s\n", batch.c_str(),
                 per_event.c_str());
    std::abort();
  }
  return 0;
}
