// ./attribute --hta: Holistic Trace Analysis' own definitions (0.6.1's; 0.5.0's with --hta=0.5),
// reproduced so that its figures can be compared number for number (tests/data/hta_expected/ on the
// real traces, tests/data/hta_cases/ and experiments/hta_differential.py on generated ones). Every
// rule is HTA's, read from its source; each file quotes the file and function of its rules, and
// where they differ from ours (attribution.h), docs/trace-tool.md says why:
//  - HTA's load: the rows of its per-rank DataFrame that its analyzers read (hta_frames.h);
//  - one file per analyzer, each a pure function of those rows: hta_temporal.h (temporal
//    breakdown), hta_idle.h (idle time breakdown), hta_launch.h (kernel launch statistics),
//    hta_queue.h (queue length and time blocked on a full queue), hta_kernels.h (GPU kernel
//    breakdown, the Python package's only);
//  - numpy's and pandas' arithmetic, to the last bit (hta_numeric.h).
// The Python package's TraceAnalysis (python/ext/hta_frames_py.cpp) reads the same functions and
// turns their results into HTA's DataFrames.
//
// Sorts by ts are pandas' quicksort, whose order among equal ts is unspecified (numpy's SIMD
// sort, machine-dependent): here equal ts keep frame order (a stable sort, HtaOptions::ts_order),
// which is one of the orders HTA's code allows; experiments/hta_differential.py counts the traces
// where HTA's native order gives other figures. Idle figures are given before HTA's round(2).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_launch.h"
#include "trace/analyze/hta_numeric.h"
#include "trace/analyze/hta_queue.h"
#include "trace/analyze/hta_rows.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct HtaIdle {
  double host_wait_us = 0, kernel_wait_us = 0, other_us = 0;
};

struct HtaRank {
  bool has_gpu = false;  // temporal figures exist
  // HTA's int8/int16/int32 columns wrapped around in a sum (a trace of small integer
  // timestamps whose ends cross the type's limit): its figures, and ours, are then not the
  // true ones. Said by ./attribute --hta.
  bool int_wrapped = false;
  double idle_us = 0, compute_us = 0, non_compute_us = 0, kernel_time_us = 0;
  std::map<int64_t, HtaIdle> idle_by_stream;
  HtaLaunchStats launch_delay;
  std::map<int64_t, HtaQueueStats> queue_length;  // by stream
  std::string queue_error;  // HTA raises computing the queue series (its message's kind)
  HtaFullQueue full_queue;
  std::string full_queue_error;  // HTA raises in get_time_spent_blocked_on_full_queue
};

// One entry per rank (distributedInfo.rank). HTA's own rows when the traces were imported with
// ImportOptions::list_events, else those of their records (hta_rows.h).
std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces,
                                         const HtaOptions& options = {});

}  // namespace trace
