// "What if": replay a trace (graph.h, simulate.h) and predict its step time without its syncs,
// with fewer of them, with faster kernels or launches, or with one graph launch per step.
// One question of the trace library (src/README.md): this is the façade ./attribute --what-if
// calls; export/replay_json.h and export/replay_text.h write what it returns.
//
// Windows: the trace's steps (ProfilerStep#N, or our `epoch` ranges), measured on the thread
// that recorded them; a trace without steps is one window, from its first event to its last.
// Every prediction is compared with the unchanged replay of the same graph, so that a saving
// is the what-if's alone, not the replay's own error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/sites.h"
#include "trace/model/imported_trace.h"

namespace trace::replay {

struct WhatIf {
  enum class Kind : uint8_t { NoSyncs, LogEvery, ScaleKernels, ScaleLaunches, GraphSteps };
  Kind kind = Kind::NoSyncs;
  SiteSelector sites;           // NoSyncs, LogEvery
  std::vector<uint32_t> every;  // LogEvery: keep every N-th site; 0 = never
  double factor = 1.0;          // ScaleKernels, ScaleLaunches
  std::string pattern;          // ScaleKernels: part of the kernel name, "" = every kernel
  int64_t launch_ns = -1;       // GraphSteps: the graph launch's cost; -1 = typical_graph_launch_ns
  std::string text;             // as written
};

// Parses one --what-if argument:
//   no-syncs[:op=NAME|:api=NAME]           remove the blocking syncs (sites.h)
//   log-every=N[,N...][:op=NAME|:api=NAME] keep every N-th of them (N: 1, 2, ..., or never)
//   scale-kernels=F[:name=PART]            kernels (whose name contains PART) take F times as long
//   scale-launches=F                       launch calls take F times as long
//   graph-steps[:launch-us=US]             one graph launch per step (transforms.h)
// NAME and PART run to the end of the argument, so they may hold ':' (aten::item).
// Throws std::invalid_argument saying what was expected.
WhatIf parse_what_if(const std::string& spec);

struct Window {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread = 0;  // thread id the window is measured on
};

struct Bound {
  std::string resource;  // "CPU thread 4515", "GPU 0 stream 7"
  int64_t ns = 0;        // time of the window's critical path on it
};

struct WindowResult {
  std::string name;
  int64_t measured_ns = 0;   // as recorded
  int64_t replayed_ns = 0;   // the unchanged replay
  int64_t predicted_ns = 0;  // this scenario (== replayed_ns for the replay itself)
  std::vector<Bound> bound;  // critical path by resource, largest first
};

struct ScenarioResult {
  std::string name;  // "replay", or the what-if as written ("log-every=2")
  std::vector<WindowResult> windows;
  // Over the steps: from the first one's start to the later of the last one's end and the end
  // of the GPU work queued inside them (a step is the CPU's window; the GPU may still be busy).
  // Without steps: the whole trace's span.
  WindowResult total;
  uint64_t sites = 0, sites_kept = 0;  // for the sync what-ifs
};

struct LogEveryPoint {
  uint32_t every = 0;          // 0 = never
  uint64_t kept = 0;           // sites kept in the trace
  double kept_per_window = 0;  // the curve's x: syncs per step
  double predicted_ns = 0;     // mean predicted window
  bool extrapolated = false;   // fewer than two sites kept: from the isolated cost (below)
};

struct LogEveryCurve {
  std::string selector;
  std::string text;  // the what-if as written
  uint64_t sites = 0;
  std::vector<LogEveryPoint> points;  // in the order asked
  double replayed_ns = 0;             // mean window, unchanged replay (every site kept)
  double never_ns = 0;                // mean window with no site kept
  double saving_per_sync_ns = 0;      // (every kept - none kept) / sites, in window totals
  double isolated_cost_ns = 0;        // what one site kept alone adds (mean over sampled sites)
  uint32_t isolated_samples = 0;
  double blocked_per_sync_ns = 0;  // host time a site blocked in the trace
  double queued_per_sync_ns = 0;   // GPU work that ran while it blocked
  double max_deviation = 0;        // largest distance of a replayed point from the straight
                                   // line through "never" and "every", / that line's rise
  bool linear = false;
  std::string why;  // in words: linear or not, and why
};

struct ReplayReport {
  const ImportedTrace* trace = nullptr;
  GraphStats graph;
  bool steps = false;      // windows are the trace's steps
  ScenarioResult replay;   // unchanged
  ScenarioResult typical;  // unchanged, but every delay its kind's typical (simulate.h)
  std::vector<ScenarioResult> what_ifs;
  std::vector<LogEveryCurve> curves;
  // The replay's error per window: |replayed - measured| / measured; the same for the replay
  // with typical delays. Targets: over steps, median <= 2 % and every step within 5 %; over the
  // whole trace, the span within 5 %.
  double median_error = 0, max_error = 0;
  bool target_met = false;
  double typical_median_error = 0, typical_max_error = 0;
  bool typical_target_met = false;
  std::vector<std::string> notes;  // rules missing or guessed, when the targets are not met
};

struct ReplayOptions {
  BuildOptions build;
  uint32_t isolated_samples = 8;  // replays of a single kept site, for the log-every extrapolation
};

// The windows a report is taken over (see above).
std::vector<Window> replay_windows(const RecordSet& records);

// Replays the trace unchanged and under each what-if. Throws std::invalid_argument when a
// what-if cannot apply (a kernel name pattern on a trace read without names).
ReplayReport replay_trace(const ImportedTrace& trace, const std::vector<WhatIf>& what_ifs,
                          const ReplayOptions& options = {});

}  // namespace trace::replay
