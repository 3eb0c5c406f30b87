// The diagnosis: what bounds the trace's steady steps (step_bounds.h), the warm-up set apart,
// and the few findings whose mechanism the trace shows, each with the fix that matches it and
// what it could save. The rules and their evidence: docs/diagnosis.md (R1-R20) and
// docs/trace-tool.md, "Diagnosis".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/analyze/attribution.h"
#include "trace/analyze/step_bounds.h"
#include "trace/model/records.h"

namespace trace {

// One finding: where the time goes, the fix for its mechanism, and what the fix could save a
// step. Savings are upper bounds ("up to") resting on the assumption given.
struct Diagnosed {
  std::string what;        // the mechanism, with its share ("per-op host overhead 70 %")
  std::string where;       // the largest item inside it ("aten::empty_strided", a kernel class)
  std::string fix;         // the fix that matches the mechanism
  uint64_t saving_ns = 0;  // per steady step, up to
  std::string assumption;  // what the saving rests on that the trace cannot confirm
  // Host work: the item as its events name it, and, once the advice has replayed making it
  // free (advice.h), that what-if and its saving over the whole trace (-1: not replayed).
  std::string item, what_if;
  int64_t replayed_ns = -1;
};

// What a CUDA graph of the steady steps could hold (R9, item "honest savings"): whether they
// launch the same kernels in the same order (static shapes, no data-dependent control flow),
// and the blocking calls a capture cannot hold. Checked only where per-op host time matters.
struct CaptureCheck {
  bool checked = false;
  size_t steps = 0, same = 0;  // steady steps, and those that launch the most common sequence
  uint64_t kernels = 0;        // the kernels of that sequence
  uint64_t blocking = 0;       // blocking calls (syncs, blocking copies) in the steady steps
};

struct Diagnosis {
  bool gpu = false;             // false: no GPU activity, no GPU verdict (R19)
  size_t windows = 0;           // steps, or 1 for the whole trace
  bool whole_trace = false;     // no steps: one window from the first event to the last
  size_t cold_windows = 0;      // windows left out of the steady verdict (R11)
  StepBounds steady;            // the steady windows' classes, summed
  uint64_t steady_step_ns = 0;  // their median wall time
  Bound verdict = Bound::Untraced, runner_up = Bound::Untraced;
  const char* regime = "host-side";  // "host-side", "host ahead", "GPU-bound" (R7)
  bool host_side() const { return std::string_view(regime) == "host-side"; }
  bool launch_bound = false;    // R8
  uint64_t launch_call_ns = 0;  // launch calls' own time in the steady windows
  // Cold start over every window (R11): its cost, its largest items, and whether it is most of
  // the profile (a cold profile: the advice is to profile the steady state).
  uint64_t cold_ns = 0, all_wall_ns = 0;
  std::vector<HostWait> cold_items;
  bool cold_profile = false;
  bool no_warm_step = false;        // every window is cold
  std::string steps_from;           // how the windows were found (R1), "" for ProfilerStep
  std::vector<Diagnosed> findings;  // the largest savings first, at most kMaxFindings
  std::vector<std::string> caveats;
  CaptureCheck capture;
  static constexpr size_t kMaxFindings = 3;
};

struct DiagnosisOptions {
  BoundsOptions bounds;
  double cold_step_share = 0.10;      // a window this much cold is a cold window (R11)
  double cold_profile_share = 0.50;   // cold this much of all windows: a cold profile (R11)
  double sync_advice_share = 0.05;    // R12
  uint64_t graph_replay_ns = 20'000;  // a graph launch's host cost, traced (R9)
};

// windows: the trace's steps; empty for the whole trace.
Diagnosis diagnose(const RecordSet& records, const AttributionIndex& index,
                   const std::vector<std::pair<uint64_t, uint64_t>>& windows,
                   const DiagnosisOptions& options = {});

// One line: the verdict with its share, the runner-up, the regime ("bound by ...").
std::string verdict_line(const Diagnosis& d);

}  // namespace trace
