#include "trace/run/run.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>
#include <utility>

#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/program_words.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/analyze/trace_diff.h"
#include "trace/export/diff_out.h"
#include "trace/export/frames.h"
#include "trace/export/hta_out.h"
#include "trace/export/html_page.h"
#include "trace/export/json_out.h"
#include "trace/export/replay_json.h"
#include "trace/export/replay_text.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/byte_source.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace/import/trace_file.h"

namespace trace {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What each report reads of a file: HTA's rules read the file's own listing of events and
// tell kernels by name; a what-if may pick kernels by name; the attribution's per-kernel table
// needs each distinct name only once.
ImportOptions import_options(const RunOptions& o) {
  ImportOptions io;
  io.step_phase = o.step_phase, io.phase_domain = o.phase_domain;
  const bool hta = o.report() == ReportKind::Hta;
  io.list_events = hta;
  io.kernel_names = hta;
  io.kernel_name_ids = o.report() == ReportKind::Attribution || o.report() == ReportKind::Diff;
  for (const auto& w : o.what_ifs)
    if (w.kind == replay::WhatIf::Kind::ScaleKernels && !w.pattern.empty()) io.kernel_names = true;
  return io;
}

void choose_steps(const RunOptions& o, ImportedTrace* t) {
  if (!o.step_range.empty() && use_step_ranges(t, o.step_range) == 0)
    throw InputError(t->file + ": no host range named " + o.step_range + " (--step-range)");
  if (!o.step_starts.empty() &&
      use_step_starts(t, o.step_starts, static_cast<uint32_t>(o.step_every.value_or(1))) == 0)
    throw InputError(t->file + ": no host range named " + o.step_starts + " (--step-starts)");
}

RankOutput rank_of(const ImportedTrace& t) {
  RankOutput r;
  r.file = t.file, r.rank = t.rank, r.format = t.format, r.bytes = t.bytes;
  return r;
}

// The attribution of every trace, and the page over all of them when asked.
void attribution(const RunOptions& o, const std::vector<ImportedTrace>& traces, RunOutput* out) {
  std::vector<TraceReport> reports;  // kept for the page
  reports.reserve(traces.size());
  for (const auto& t : traces) {
    reports.push_back(build_report(t));
    add_advice(&reports.back(), o.advice);
    RankOutput r = rank_of(t);
    r.text = report_table(reports.back()) + "\n";
    JsonOut j;
    write_report_json(j, reports.back());
    r.json = j.str();
    if (o.frames) r.frames = report_frames(reports.back());
    out->ranks.push_back(std::move(r));
  }
  if (!o.html) return;
  std::vector<replay::ReplayReport> curves;
  curves.reserve(reports.size());
  std::vector<HtmlTrace> page;
  for (const auto& report : reports) {
    HtmlTrace h;
    h.report = &report;
    const std::string spec = html_curve_what_if(report);
    if (!spec.empty()) {
      curves.push_back(replay::replay_trace(*report.trace, {replay::parse_what_if(spec)}));
      if (!curves.back().curves.empty()) h.curve = &curves.back().curves.front();
    }
    page.push_back(h);
  }
  out->html = html_page(page);
}

void replays(const RunOptions& o, const std::vector<ImportedTrace>& traces, RunOutput* out) {
  for (const auto& t : traces) {
    const auto report = replay::replay_trace(t, o.what_ifs);
    RankOutput r = rank_of(t);
    r.text = replay_table(report) + "\n";
    JsonOut j;
    write_replay_json(j, report);
    r.json = j.str();
    if (o.frames) r.frames = replay_frames(report);
    out->ranks.push_back(std::move(r));
  }
}

// HTA's figures are made over every rank at once (hta_breakdown.h), so the document is too.
void hta(const RunOptions& o, const std::vector<ImportedTrace>& traces, RunOutput* out) {
  std::vector<const ImportedTrace*> ptrs;
  for (const auto& t : traces) {
    ptrs.push_back(&t);
    out->ranks.push_back(rank_of(t));
  }
  HtaOptions hopt;
  hopt.version = o.hta_version == "0.5" ? HtaVersion::V0_5 : HtaVersion::V0_6;
  hopt.ns_rounding = o.hta_ns_rounding();
  hopt.max_queue_length = o.hta_max_queue.value_or(hopt.max_queue_length);
  const auto ranks = hta_breakdown(ptrs, hopt);
  out->text = hta_table(ranks, hopt.ns_rounding, hopt.version);
  JsonOut j;
  j.begin_object().key("tool").value("attribute").key("version").value(attribute_json_version());
  j.key("hta").begin_object().key("ns_rounding").value(hopt.ns_rounding).key("ranks");
  write_hta_json(j, ranks);
  j.end_object().end_object();
  out->json = j.str() + "\n";
}

// A beside B. Two traces of different programs, or no steps in common when steps were asked
// for, are bad input: the figures side by side would mean nothing.
// a_report: A's report, begun while B was read.
void diff(const RunOptions& o, const std::vector<ImportedTrace>& traces,
          std::future<TraceReport> a_report, RunOutput* out) {
  const ImportedTrace &ta = traces[0], &tb = traces[1];
  const std::string both = "--diff " + ta.file + " " + tb.file + ": ";
  const TraceReport b = build_report(tb), a = a_report.get();
  const double common = words_in_common(a, b);
  if (common < kMinWordsInCommon)
    throw InputError(
        both + "not two traces of one program: " + std::to_string(static_cast<int>(100 * common)) +
        " % of the " + (a.kernels.by_name.empty() || b.kernels.by_name.empty() ? "op" : "kernel") +
        " time is in name words both have (expected at least " +
        std::to_string(static_cast<int>(100 * kMinWordsInCommon)) + " %)");
  TraceDiff d = diff_reports(a, b);
  if ((!o.step_range.empty() || !o.step_starts.empty()) && d.pairs.empty())
    throw InputError(both + "no common steps (A has " + std::to_string(a.steps.size()) + ", B " +
                     std::to_string(b.steps.size()) + ")");
  if (!o.what_ifs.empty() || o.replay) add_predictions(replay::replay_trace(ta, o.what_ifs), b, &d);
  for (const auto& t : traces) out->ranks.push_back(rank_of(t));
  std::vector<std::string> specs;
  for (const auto& w : o.what_ifs) specs.push_back(w.text);
  const DiffInputs in{ta.file, tb.file, specs};
  out->text = diff_text(in, d);
  out->json = diff_json(in, d, attribute_json_version());
  if (o.frames) out->frames = diff_frames(d);
}

}  // namespace

int attribute_json_version() { return IRIS_ATTRIBUTE_JSON_VERSION; }

ReportKind RunOptions::report() const {
  if (diff) return ReportKind::Diff;
  if (hta || !hta_version.empty() || hta_no_rounding || hta_max_queue) return ReportKind::Hta;
  return replay || !what_ifs.empty() ? ReportKind::Replay : ReportKind::Attribution;
}

bool RunOptions::hta_ns_rounding() const {
  const char* env = std::getenv("HTA_DISABLE_NS_ROUNDING");
  return !(hta_no_rounding || (env && std::strcmp(env, "1") == 0));
}

std::string check_options(const RunOptions& o) {
  const auto got = [](int64_t v) { return ", got '" + std::to_string(v) + "'"; };
  if (o.step_every && (*o.step_every < 1 || *o.step_every > 1000000))
    return std::string("--step-every: expected ") + kStepEveryRange + got(*o.step_every);
  if (o.hta_max_queue && *o.hta_max_queue < 1)
    return std::string("--hta-max-queue: expected ") + kMaxQueueRange + got(*o.hta_max_queue);
  if (!o.hta_version.empty() && o.hta_version != "0.5" && o.hta_version != "0.6")
    return "--hta: expected 0.5 or 0.6 (HTA's release), got '" + o.hta_version + "'";
  if (o.inputs.empty()) return "no trace given";
  if (!o.step_range.empty() && !o.step_starts.empty())
    return "--step-range and --step-starts both say what a step is: pick one";
  if (o.step_every && o.step_starts.empty()) return "--step-every goes with --step-starts";
  const bool hta = o.hta || !o.hta_version.empty() || o.hta_no_rounding || o.hta_max_queue;
  if (o.diff && hta) return "--diff and --hta are separate reports: pick one";
  if (o.diff && o.inputs.size() != 2)
    return "--diff takes two traces, A and B: got " + std::to_string(o.inputs.size());
  if (o.report() == ReportKind::Hta && (o.replay || !o.what_ifs.empty()))
    return "--hta and --replay/--what-if are separate reports: pick one";
  if (o.html && o.report() != ReportKind::Attribution)
    return "--html is the attribution's page: not with --hta, --replay, --what-if or --diff";
  return "";
}

std::string timing_line(const RunOptions& o, const RunOutput& out) {
  const char* kind[] = {"attribution", "HTA figures", "replay", "diff"};
  const double mb = static_cast<double>(out.bytes) / 1e6;
  char line[256];
  std::snprintf(line, sizeof line,
                "%.1f MB of JSON (%s); import %.3f s (%.0f MB/s), import + %s %.3f s (%.0f MB/s)",
                mb,
                out.inflaters.empty() ? "plain" : ("gzip, inflated by " + out.inflaters).c_str(),
                out.import_s, mb / out.import_s, kind[static_cast<int>(o.report())], out.total_s,
                mb / out.total_s);
  return line;
}

std::string document_json(const RunOptions& o, const std::vector<std::string>& entries) {
  if (o.report() == ReportKind::Hta || o.report() == ReportKind::Diff)
    throw std::invalid_argument("HTA's figures and the diff are made over every input in one run");
  JsonOut j;
  j.begin_object().key("tool").value("attribute").key("version").value(attribute_json_version());
  if (o.report() == ReportKind::Replay) {
    j.key("what_if").begin_array();
    for (const auto& w : o.what_ifs) j.value(w.text);
    j.end_array().key("replays");
  } else {
    j.key("traces");
  }
  j.begin_array();
  for (const auto& e : entries) j.raw(e);
  j.end_array().end_object();
  return j.str() + "\n";
}

RunOutput run(const RunOptions& o) {
  const std::string wrong = check_options(o);
  if (!wrong.empty()) throw std::invalid_argument(wrong);
  const auto t0 = Clock::now();
  RunOutput out;
  const ImportOptions io = import_options(o);
  std::vector<ImportedTrace> traces;
  traces.reserve(o.diff ? 2 : 0);  // the diff's A is read by its report while B is imported
  std::future<TraceReport> a_report;
  const auto files = expand_trace_paths(o.inputs);
  if (o.diff && files.size() != 2)
    throw InputError("--diff " + o.inputs[0] + " " + o.inputs[1] +
                     ": expected two trace files, got " + std::to_string(files.size()) +
                     " (a folder of ranks is no one trace)");
  for (const auto& f : files) {
    traces.push_back(import_file(f, io));
    try {
      choose_steps(o, &traces.back());
    } catch (const InputError& e) {  // the diff names both traces: steps apply to both
      if (!o.diff) throw;
      throw InputError("--diff " + files[0] + " " + files[1] + ": no common steps: " + e.what());
    }
    // Both reports' serial stretches (the joins, the sorts) and the import's fill each other.
    if (o.diff && traces.size() == 1)
      a_report = std::async(std::launch::async, [&t = traces[0]] { return build_report(t); });
    out.bytes += traces.back().bytes;
    // Which gzip decoder read it (the source only opens and reads the header).
    const auto probe = open_byte_source(f);
    if (probe->gzip() && out.inflaters.find(probe->inflater()) == std::string::npos)
      out.inflaters += std::string(out.inflaters.empty() ? "" : ", ") + probe->inflater();
  }
  out.import_s = seconds_since(t0);
  switch (o.report()) {
    case ReportKind::Attribution:
      attribution(o, traces, &out);
      break;
    case ReportKind::Replay:
      replays(o, traces, &out);
      break;
    case ReportKind::Hta:
      hta(o, traces, &out);
      break;
    case ReportKind::Diff:
      diff(o, traces, std::move(a_report), &out);
      break;
  }
  if (o.report() != ReportKind::Hta && o.report() != ReportKind::Diff) {
    std::vector<std::string> entries;
    for (const auto& r : out.ranks) {
      out.text += r.text;
      entries.push_back(r.json);
    }
    out.json = document_json(o, entries);
  }
  out.total_s = seconds_since(t0);
  return out;
}

}  // namespace trace
