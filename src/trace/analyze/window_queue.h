// The launch queue (launch_queue.h) summed up over many windows of one kind, e.g. bench's
// epochs: the median of each window's figures, the deepest queue and how many windows fell in
// each regime. Why: bench's traced pass runs thousands of epochs, and a row needs a few numbers
// that say which regime the loop ran in.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "trace/model/records.h"

namespace trace {

struct WindowQueueSummary {
  uint64_t windows = 0;
  double empty_share_median = 0;  // over the windows, the GPU kept busiest in each
  double depth_p50_median = 0, depth_p90_median = 0;
  uint32_t depth_max = 0;
  uint64_t full_queue_calls = 0;
  std::array<uint64_t, 4> by_regime{};  // windows per Regime (launch_queue.h), by its value
};

// Over the host ranges named `range` (their start to their end), the GPUs of each taken
// together as regime_of takes them: the one whose queue was empty the least.
WindowQueueSummary summarize_queue(const RecordSet& records, const std::string& range = "epoch");

}  // namespace trace
