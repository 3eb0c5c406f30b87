// The launch queue (launch_queue.h) summed up over the many host ranges of one name, e.g. bench's
// epochs: the median of each range's figures, the deepest queue and how many ranges fell in
// each regime. Why: bench's traced pass runs thousands of epochs, and a row needs a few numbers
// that say which regime the loop ran in.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "trace/model/records.h"

namespace trace {

struct RangeQueueSummary {
  uint64_t ranges = 0;
  double empty_share_median = 0;  // over the ranges, the GPU kept busiest in each
  double depth_p50_median = 0, depth_p90_median = 0;
  uint32_t depth_max = 0;
  uint64_t full_queue_calls = 0;
  std::array<uint64_t, 4> by_regime{};  // ranges per Regime (launch_queue.h), by its value
};

// Over the host ranges named `range` (their start to their end), the GPUs of each taken
// together as regime_of takes them: the one whose queue was empty the least.
RangeQueueSummary summarize_queue(const RecordSet& records, const std::string& range);

}  // namespace trace
