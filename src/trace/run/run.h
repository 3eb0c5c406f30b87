// One run of ./attribute: options in, every output out. The command line (tools/attribute.cpp)
// and the Python package (python/ext) both call run(), so that a flag and its keyword cannot
// mean different things: import, steps, the attribution with its advice, HTA's figures, the
// replay and its what-ifs, the page, the diff of two traces.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/analyze/advice.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/export/column_table.h"

namespace trace {

// Which report a run makes: they read a trace with different options, so one at a time.
enum class ReportKind : uint8_t { Attribution, Hta, Replay, Diff };

// ./attribute's flags, one field each (the Python keywords have the same names).
struct RunOptions {
  std::vector<std::string> inputs;  // files, or folders of per-rank files (expand_trace_paths)
  // What a step is: the trace's own (ProfilerStep#N), the host ranges named step_range, or the
  // stretches from every step_every-th start of a range named step_starts to the next.
  std::string step_range, step_starts;
  std::optional<int64_t> step_every;
  // The host range whose every run is a step in files with no ProfilerStep, and the NVTX domain
  // of such ranges (ImportOptions): bench's own names, which its readers pass in.
  std::string step_phase, phase_domain;
  bool hta = false;                      // HTA's figures instead of the attribution
  std::string hta_version;               // "0.5" or "0.6" (also "": 0.6, the current release)
  bool hta_no_rounding = false;          // as HTA with HTA_DISABLE_NS_ROUNDING=1; implies hta
  std::optional<int64_t> hta_max_queue;  // HTA's time blocked on a full queue; implies hta
  bool replay = false;                   // the replay instead of the attribution
  std::vector<replay::WhatIf> what_ifs;  // replayed changes; imply replay
  AdviceMode advice = AdviceMode::BySize;
  bool html = false;    // the attribution's page (html_page.h)
  bool frames = false;  // the column tables (frames.h) of each trace
  // The two inputs side by side (trace_diff.h), steps as above in both; the what-ifs are
  // replayed from the first and set beside the second's measurement.
  bool diff = false;

  ReportKind report() const;
  // Without hta_no_rounding, HTA's environment variable decides, as it does for HTA itself.
  bool hta_ns_rounding() const;
};

// The numbers the numeric options accept, as the messages word them.
inline constexpr const char* kStepEveryRange = "a whole number from 1 to 1e6";
inline constexpr const char* kMaxQueueRange = "a whole number >= 1";

// "" when the options go together, else what is wrong, worded as ./attribute's flags.
std::string check_options(const RunOptions& options);

struct RankOutput {
  std::string file;
  int64_t rank = 0;
  std::string format;  // "JSON" or "SQLite"
  uint64_t bytes = 0;  // decompressed bytes read
  std::string text;    // the report as ./attribute prints it, per trace
  std::string json;    // this trace's entry in the document's array (attribution, replay)
  std::map<std::string, ColumnTable> frames;
};

struct RunOutput {
  std::vector<RankOutput> ranks;
  std::string text;  // what ./attribute prints on stdout
  std::string json;  // the whole --json document, with its final newline
  std::string html;  // the --html page, when asked
  double import_s = 0, total_s = 0;
  uint64_t bytes = 0;
  std::string inflaters;  // the gzip decoders that read the inputs ("" when none were gzip)
  std::map<std::string, ColumnTable> frames;  // the diff's tables (the traces': per rank)
};

// Throws InputError (bad input, named with its file), std::invalid_argument (options that do
// not go together, or a what-if that cannot apply) and std::runtime_error.
RunOutput run(const RunOptions& options);

// --time's line: MB of JSON read, the gzip decoder, import and whole-run time and MB/s.
std::string timing_line(const RunOptions& options, const RunOutput& out);

// The --json document around per-trace entries made by separate runs (the Python package reads
// ranks in parallel): the same bytes as one run over all of them.
std::string document_json(const RunOptions& options, const std::vector<std::string>& entries);

// The version stamped on the document (export/attribute_json_version.txt).
int attribute_json_version();

}  // namespace trace
