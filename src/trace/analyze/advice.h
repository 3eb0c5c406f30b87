// The few findings that matter most in a trace, each with its usual fix and what applying it
// would save, replayed (replay/what_if.h): no advice the replay does not support, and none
// without a finding. Docs: docs/trace-tool.md, "Advice".
//
// The rules, each a what-if:
//   a blocking call site (call_sites.h; the op that issued it when the trace has no stacks)
//     no-syncs:site=N (no-syncs:op=NAME): a value read on the host (`.item()`, `.cpu()`, a
//     `print`, a data-dependent shape) or another sync: read it less often, or keep it on the GPU
//   copies to or from pageable host memory
//     pin-copies: pin the host memory, copy with non_blocking=True
//   device-wide syncs on a trace that uses more than one stream
//     stream-syncs: wait for the one stream (or an event) instead of the whole device
//   a launch-bound trace (most of its steps, or the whole trace, launch-bound)
//     graph-steps: capture the step in a CUDA graph (torch.compile mode="reduce-overhead")
// A finding is given when its replayed saving is at least kMinShare of the replayed total and at
// least kMinSavingNs; the largest savings first, at most kMaxFindings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/finding.h"
#include "trace/analyze/step_report.h"

namespace trace {

struct AdviceOptions {
  double min_share = 0.01;
  int64_t min_saving_ns = 10000;
  size_t max_findings = 5;
  size_t sites = 5;  // the most blocked sites (or ops) tried
};

// Replays the trace with each candidate's what-if (one graph for all of them). site_saving_ns,
// when given: the replayed saving of removing each call site tried (by its row in
// report.sites.sites; -1 for one not tried), whether or not it made a finding.
std::vector<Finding> advise(const TraceReport& report, const AdviceOptions& options = {},
                            std::vector<int64_t>* site_saving_ns = nullptr);

// Advice replays the trace: by default (AdviceMode::BySize) only for traces under
// kAdviceBytes of input, which replay in seconds.
enum class AdviceMode : uint8_t { BySize, On, Off };
constexpr uint64_t kAdviceBytes = 100u * 1000 * 1000;

// Fills report->advice (advice_ran) as `mode` says, or advice_skipped with why not.
void add_advice(TraceReport* report, AdviceMode mode);

}  // namespace trace
