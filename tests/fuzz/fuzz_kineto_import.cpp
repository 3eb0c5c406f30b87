// libFuzzer target: any bytes through the importer (plain or gzip) and both attributions.
// Bad input must end in trace::InputError, never a crash, a hang or a sanitizer report. The
// batch parse (traceEvents split into regions of whole events by their brackets alone, each
// parsed as one simdjson document) is held to the single-event split and parse it falls back
// on: the same figures, or the same error message, or the fuzzer aborts. It runs twice: as
// ./attribute reads a file, and with a region ending at every refill of the splitter, whose
// reads the input's size cuts into small pieces, so that region edges fall anywhere.
#include <algorithm>
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

// At most `step` bytes a read (0: as asked).
class Pieces : public trace::ByteSource {
 public:
  Pieces(trace::ByteSource& in, size_t step) : in_(in), step_(step) {}
  size_t read(char* out, size_t n) override {
    return in_.read(out, step_ ? std::min(n, step_) : n);
  }
  bool gzip() const override { return in_.gzip(); }
  uint64_t bytes_read_raw() const override { return in_.bytes_read_raw(); }

 private:
  trace::ByteSource& in_;
  size_t step_;
};

// Every figure of the input as JSON, or "error: " + the InputError's message.
std::string figures(const uint8_t* data, size_t size, bool region_parse,
                    size_t region_bytes = 256u << 10, size_t step = 0) {
  try {
    auto file = trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input");
    Pieces source(*file, step);
    trace::ImportOptions options;
    options.list_events = true;
    options.region_parse = region_parse;
    options.region_bytes = region_bytes;
    trace::ImportedTrace t = trace::import_trace(source, "fuzz input", options);
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

void expect_same(const std::string& regions, const std::string& per_event, const char* how) {
  if (regions == per_event) return;
  std::fprintf(
      stderr,
      "fuzz_kineto_import: the region parse (%s) gave\n%.2000s\nthe per-event parse\n%.2000s\n",
      how, regions.c_str(), per_event.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_same(figures(data, size, true), figures(data, size, false), "as a file is read");
  // (Both read in the same pieces: a gzip error after a JSON error is met first when read whole.)
  const size_t step = 1 + size % 97;
  expect_same(figures(data, size, true, 1, step), figures(data, size, false, 0, step),
              "small regions");
  return 0;
}
