// libFuzzer target: any bytes through the importer (plain or gzip) and both attributions.
// Bad input must end in trace::InputError, never a crash, a hang or a sanitizer report. The
// batch parse (traceEvents split into regions of whole events by their brackets alone, each
// parsed as one simdjson document) is held to the single-event split and parse it falls back
// on: the same figures, or the same error message, or the fuzzer aborts. It runs twice: as
// ./attribute reads a file, and with a region ending at every refill of the splitter, whose
// reads the input's size cuts into small pieces, so that region edges fall anywhere. The
// listing alone (records = false, the Python package's read for HTA's frames) must give the
// full import's HTA figures and frames, or its error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "capture/bench_names.h"
#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/hta_frames.h"
#include "trace/analyze/step_report.h"
#include "trace/export/hta_out.h"
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
    trace::ImportOptions options;  // bench's names, as ./attribute reads every file
    options.step_phase = bench::kStepPhase;
    options.phase_domain = bench::kPhaseDomain;
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

// HTA's figures and frames (every column) of the input, or "error: " + the message.
std::string hta_figures(const uint8_t* data, size_t size, bool records) {
  try {
    auto file = trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input");
    trace::ImportOptions options;
    options.list_events = true, options.records = records;
    trace::ImportedTrace t = trace::import_trace(*file, "fuzz input", options);
    trace::JsonOut out;
    trace::write_hta_json(out, trace::hta_breakdown({&t}));
    std::string s = out.str();
    const auto add = [&](const auto& v) {
      for (const auto& x : v) s += " " + std::to_string(x);
      s += ";";
    };
    for (const auto& [rank, f] : trace::hta_frames({&t})) {
      s += " rank " + std::to_string(rank) + " " + std::to_string(f.ts_bits) + " " +
           std::to_string(f.dur_bits) + " " + std::to_string(f.stream_bits) + " " +
           std::to_string(f.correlation_bits) + " " + std::to_string(f.int_wrapped);
      add(f.gpu_index), add(f.gpu_stream), add(f.gpu_correlation), add(f.gpu_index_correlation);
      add(f.gpu_ts), add(f.gpu_dur), add(f.gpu_kernel_cat), add(f.gpu_compute);
      add(f.runtime_index), add(f.runtime_ts), add(f.launch_correlations);
      add(f.cpu_correlation), add(f.cpu_ts), add(f.cpu_dur);
      add(f.queue_index), add(f.queue_correlation), add(f.queue_ts);
      s += " " + std::to_string(f.ts_min) + " " + std::to_string(f.ts_max);
    }
    return s;
  } catch (const trace::InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// `got` (the way under test) must be `reference`'s figures, or the fuzzer aborts.
void expect_same(const std::string& got, const std::string& reference, const char* how) {
  if (got == reference) return;
  std::fprintf(stderr, "fuzz_kineto_import: %s gave\n%.2000s\nthe reference\n%.2000s\n", how,
               got.c_str(), reference.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_same(figures(data, size, true), figures(data, size, false),
              "the region parse, as a file is read,");
  // (Both read in the same pieces: a gzip error after a JSON error is met first when read whole.)
  const size_t step = 1 + size % 97;
  expect_same(figures(data, size, true, 1, step), figures(data, size, false, 0, step),
              "the region parse, in small regions,");
  expect_same(hta_figures(data, size, false), hta_figures(data, size, true), "the listing alone");
  return 0;
}
