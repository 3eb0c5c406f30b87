// libFuzzer target: any bytes through the importer (plain or gzip) and both attributions.
// Bad input must end in trace::InputError, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/step_report.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/kineto/kineto_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto source = trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input");
    trace::ImportOptions options;
    options.hta_events = true;
    trace::ImportedTrace t = trace::import_trace(*source, "fuzz input", options);
    const auto report = trace::build_report(t);
    trace::JsonOut out;
    trace::write_report_json(out, report);
    (void)trace::report_table(report);
    trace::write_hta_json(out, trace::hta_breakdown({&t}));
  } catch (const trace::InputError&) {
  }
  return 0;
}
