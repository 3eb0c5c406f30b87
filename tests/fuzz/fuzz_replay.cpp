// libFuzzer target: the replay (analyze/replay/) on any input. A JSON or gzip input goes
// through the importer first (as ./attribute --what-if reads a file); anything else is read as
// records directly (garbage_records.h), which reaches the graph builder's corners far sooner
// than mutated JSON does. Every what-if runs on it. Bad input must end in trace::InputError
// or a what-if's std::invalid_argument, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "capture/bench_names.h"
#include "garbage_records.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/export/replay_json.h"
#include "trace/export/replay_text.h"
#include "trace/import/kineto/kineto_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using trace::replay::parse_what_if;
  static const std::vector<trace::replay::WhatIf> what_ifs = {
      parse_what_if("no-syncs"),
      parse_what_if("log-every=1,2,7,never"),
      parse_what_if("no-syncs:op=aten::item"),
      parse_what_if("log-every=3:api=cudaStreamSynchronize"),
      parse_what_if("scale-kernels=0.5:name=k"),
      parse_what_if("scale-launches=0"),
      parse_what_if("graph-steps")};
  try {
    trace::ImportedTrace t;
    if (size && (data[0] == '{' || data[0] == '[' || data[0] == 0x1f)) {
      auto source =
          trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input");
      trace::ImportOptions bench_files;  // as ./attribute reads every file
      bench_files.step_phase = bench::kStepPhase;
      t = trace::import_trace(*source, "fuzz input", bench_files);
    } else {
      t.file = "fuzz records";
      t.records = testdata::garbage_records(data, size);
    }
    trace::replay::ReplayOptions options;
    options.isolated_samples = 2;  // each is a whole simulation: keep an input under a few ms
    const auto report = trace::replay::replay_trace(t, what_ifs, options);
    trace::JsonOut out;
    trace::write_replay_json(out, report);
    (void)trace::replay_table(report);
  } catch (const trace::InputError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
