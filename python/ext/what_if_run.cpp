#include "what_if_run.h"

#include <stdexcept>

#include "capture/bench_names.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/export/json_out.h"
#include "trace/export/replay_json.h"
#include "trace/export/replay_text.h"
#include "trace/import/byte_source.h"
#include "trace/import/trace_file.h"

namespace pyiris {
namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

void window_rows(const trace::replay::ScenarioResult& s, Table* t) {
  const auto row = [&](const trace::replay::StepResult& w, bool total) {
    t->text("scenario", s.name);
    t->text("window", w.name);
    t->flag("is_total", total);
    t->f64("measured_us", us(w.measured_ns));
    t->f64("replayed_us", us(w.replayed_ns));
    t->f64("predicted_us", us(w.predicted_ns));
    t->text("bound_by", w.bound.empty() ? std::string() : w.bound.front().resource);
  };
  for (const auto& w : s.steps) row(w, false);
  row(s.total, true);
}

}  // namespace

std::vector<std::string> what_if_texts(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(trace::replay::parse_what_if(s).text);
  return out;
}

WhatIfRun run_what_if(const std::string& path, const std::vector<std::string>& specs,
                      const RankOptions& options) {
  std::vector<trace::replay::WhatIf> what_ifs;
  trace::ImportOptions io;            // as ./attribute --what-if
  io.step_phase = bench::kStepPhase;  // bench's own files: each epoch is a step
  io.phase_domain = bench::kPhaseDomain;
  for (const auto& s : specs) {
    what_ifs.push_back(trace::replay::parse_what_if(s));
    if (what_ifs.back().kind == trace::replay::WhatIf::Kind::ScaleKernels &&
        !what_ifs.back().pattern.empty())
      io.kernel_names = true;
  }
  trace::ImportedTrace t = trace::import_file(path, io);
  if (!options.step_range.empty() && trace::use_step_ranges(&t, options.step_range) == 0)
    throw trace::InputError(path + ": no host range named " + options.step_range +
                            " (--step-range)");
  const auto report = trace::replay::replay_trace(t, what_ifs);
  WhatIfRun out;
  out.text = trace::replay_table(report) + "\n";
  trace::JsonOut j;
  trace::write_replay_json(j, report);
  out.json = j.str();
  window_rows(report.replay, &out.windows);
  for (const auto& s : report.what_ifs) window_rows(s, &out.windows);
  return out;
}

}  // namespace pyiris
