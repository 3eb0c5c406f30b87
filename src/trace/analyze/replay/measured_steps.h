// The steps a replay is measured over: the trace's steps (RecordSet::steps), each on the thread
// that recorded it; a trace without steps is one step, from its first event to its last.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/records.h"

namespace trace::replay {

struct MeasuredStep {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread = 0;  // thread id the step is measured on; kNone (graph.h) for none
};

std::vector<MeasuredStep> measured_steps(const RecordSet& records);

}  // namespace trace::replay
