// ./attribute --step-range NAME: the steps of a trace are the host ranges named NAME, for
// traces whose steps are not PyTorch's ProfilerStep#N (an Nsight Systems export's NVTX ranges,
// a Kineto trace's record_function annotations). A range matches by its whole name or by its
// name after an NVTX domain ("epoch" matches "iris:epoch"; "mm" does not match "aten::mm").
#pragma once

#include <cstddef>
#include <string>

#include "trace/model/imported_trace.h"

namespace trace {

// Replaces t->records.steps with the matching ranges (ops, host annotations, our phases), in
// time order, and returns how many there are (0: the steps are left as they were).
size_t use_step_ranges(ImportedTrace* t, const std::string& name);

}  // namespace trace
