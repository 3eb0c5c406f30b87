// "What if": replay a trace (graph.h, simulate.h) and predict its step time without its syncs,
// with fewer of them, with faster kernels or launches, or with one graph launch per step.
// One question of the trace library (src/README.md): this is the façade ./attribute --what-if
// calls; export/replay_json.h and export/replay_text.h write what it returns.
//
// The steps it measures: measured_steps.h. Every prediction is compared with the unchanged replay
// of the same graph, so that a saving is the what-if's alone, not the replay's own error. What it
// returns is figures, kinds and names; the writers put them in words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/measured_steps.h"
#include "trace/analyze/replay/sites.h"
#include "trace/model/imported_trace.h"

namespace trace::replay {

struct WhatIf {
  enum class Kind : uint8_t {
    NoSyncs,
    LogEvery,
    ScaleKernels,
    ScaleLaunches,
    GraphSteps,
    PinCopies,
    StreamSyncs,
    ScaleHost,
    Workers
  };
  Kind kind = Kind::NoSyncs;
  SiteSelector sites;           // NoSyncs, LogEvery
  std::vector<uint32_t> every;  // LogEvery: keep every N-th site; 0 = never
  double factor = 1.0;          // ScaleKernels, ScaleLaunches, ScaleHost
  std::string pattern;          // ScaleKernels: part of the kernel name, "" = every kernel
  std::string region;           // GraphSteps: the range captured (graph=REGION); "" = each step;
                                // ScaleHost, Workers: the range whose host time is scaled / moved
  uint32_t workers = 0;         // Workers: the worker processes that run the range ahead
  int64_t launch_ns = -1;       // GraphSteps: a graph launch's cost; -1 = graph_capture.h's
  int64_t node_ns = -1;         // GraphSteps: the gap between graph nodes; -1 = graph_capture.h's
  double gbps = -1;             // PinCopies: the pinned bandwidth; -1 = the trace's, or a default
  std::string text;             // as written
};

// The --what-if specs parse_what_if takes, one a line, as ./attribute --help lists them.
// NAME and PART run to the end of the argument, so they may hold ':' (aten::item).
extern const char* const kWhatIfSpecs;

// Parses one --what-if argument (kWhatIfSpecs). Throws std::invalid_argument saying what was
// expected.
WhatIf parse_what_if(const std::string& spec);

struct Bound {
  std::string resource;  // "CPU thread 4515", "GPU 0 stream 7"
  int64_t ns = 0;        // time of the step's critical path on it
};

struct StepResult {
  std::string name;
  int64_t measured_ns = 0;   // as recorded
  int64_t replayed_ns = 0;   // the unchanged replay
  int64_t predicted_ns = 0;  // this scenario (== replayed_ns for the replay itself)
  std::vector<Bound> bound;  // critical path by resource, largest first
  // A step's pace, as a loop of them sees it: from when the step before it was done (its
  // host work and the GPU work queued in it both over) to when this one is; the first step
  // from its own start. A step's own length is the host's; when the GPU lags behind, the steps
  // follow one another at the GPU's pace instead, and this says so. Same three as above.
  int64_t measured_pace_ns = 0, replayed_pace_ns = 0, predicted_pace_ns = 0;
};

struct ScenarioResult {
  std::string name;  // "replay", or the what-if as written ("log-every=2")
  std::vector<StepResult> steps;
  // Over the steps: from the first one's start to the later of the last one's end and the end
  // of the GPU work queued inside them (a step is the CPU's stretch; the GPU may still be busy).
  // Without steps: the whole trace's span.
  StepResult total;
  uint64_t sites = 0, sites_kept = 0;  // for the sync what-ifs
  // no-syncs: the graph breaks among the sites removed (graph_breaks.h), and the entries of the
  // compiled regions after them, removed with them (the regions merge).
  uint64_t graph_breaks = 0;
  int64_t merge_saving_ns = 0;
  std::string note;  // what the what-if assumed, with where each figure came from ("" = none)
};

struct LogEveryPoint {
  uint32_t every = 0;         // 0 = never
  uint64_t kept = 0;          // sites kept in the trace
  double kept_per_step = 0;   // the curve's x: syncs per step
  double predicted_ns = 0;    // mean predicted step
  bool extrapolated = false;  // fewer than two sites kept: from the isolated cost (below)
};

struct LogEveryCurve {
  SiteSelector selector;
  std::string text;  // the what-if as written
  uint64_t sites = 0;
  std::vector<LogEveryPoint> points;  // in the order asked
  double replayed_ns = 0;             // mean step, unchanged replay (every site kept)
  double never_ns = 0;                // mean step with no site kept
  double saving_per_sync_ns = 0;      // (every kept - none kept) / sites, in step totals
  double isolated_cost_ns = 0;        // what one site kept alone adds (mean over sampled sites)
  uint32_t isolated_samples = 0;
  double blocked_per_sync_ns = 0;  // host time a site blocked in the trace
  double queued_per_sync_ns = 0;   // GPU work that ran while it blocked
  double max_deviation = 0;        // largest distance of a replayed point from the straight
                                   // line through "never" and "every", / that line's rise
  bool linear = false;
  // Linear or not, and why, as log_every.cpp judges from the figures above (export/replay_text.h
  // words them).
  enum class Shape : uint8_t {
    NoSites,       // nothing to keep or remove
    Flat,          // a site moves the step by less than the replay can tell
    Linear,        // every kept site adds about the same
    AloneDiffers,  // not linear: a site kept alone costs other than one among all of them
    Strays,        // not linear: the points stray from the line (max_deviation)
  };
  enum class Cause : uint8_t {
    BlocksOnNothing,     // no GPU work to wait for: a site saves its own host time
    OffCriticalPath,     // it blocked, but another thread or the GPU bounds the run
    SavesWhatItBlocked,  // the GPU work it waited for then overlaps the CPU
    SavesItsHostWork,    // saves more than it blocked: the site's own host work goes with it
    EmptyQueue,          // the GPU queue is (almost) empty: each costs its fixed price
    WaitMoves,           // it waits behind queued work: the wait moves to the next sync
  };
  Shape shape = Shape::NoSites;
  Cause cause = Cause::BlocksOnNothing;  // not worded for NoSites
};

// Where the recorded delays of one kind exceed its typical one (graph.h): what a replay with
// typical delays loses.
struct ExcessDelay {
  EdgeKind kind = EdgeKind::Gap;
  uint64_t count = 0;      // edges of the kind whose delay exceeds the typical one
  int64_t typical_ns = 0;  // the kind's typical delay
  int64_t excess_ns = 0;   // by how much they exceed it, in all
};

struct ReplayReport {
  const ImportedTrace* trace = nullptr;
  GraphStats graph;
  bool has_steps = false;  // the steps measured are the trace's own (else: the whole trace)
  ScenarioResult replay;   // unchanged
  ScenarioResult typical;  // unchanged, but every delay its kind's typical (simulate.h)
  std::vector<ScenarioResult> what_ifs;
  std::vector<LogEveryCurve> curves;
  // The replay's error per step: |replayed - measured| / measured; the same for the replay
  // with typical delays. Targets: over steps, median <= 2 % and every step within 5 %; over the
  // whole trace, the span within 5 %.
  double median_error = 0, max_error = 0;
  bool target_met = false;
  double typical_median_error = 0, typical_max_error = 0;
  bool typical_target_met = false;
  bool target_missed() const { return !(target_met && typical_target_met); }
  // When a target is missed: where the delays exceed their kind's typical one (with `graph`'s
  // counts of what the rules guessed, export/replay_text.h's notes); empty otherwise.
  std::vector<ExcessDelay> excess_delays;
};

struct ReplayOptions {
  BuildOptions build;
  uint32_t isolated_samples = 8;  // replays of a single kept site, for the log-every extrapolation
};

// Replays the trace unchanged and under each what-if. Throws std::invalid_argument when a
// what-if cannot apply (a kernel name pattern on a trace read without names).
ReplayReport replay_trace(const ImportedTrace& trace, const std::vector<WhatIf>& what_ifs,
                          const ReplayOptions& options = {});

}  // namespace trace::replay
