// ./attribute --step-range NAME: the steps of a trace are the host ranges named NAME, for
// traces whose steps are not PyTorch's ProfilerStep#N (an Nsight Systems export's NVTX ranges,
// a Kineto trace's record_function annotations). A range matches by its whole name, by its
// name after an NVTX domain ("epoch" matches "iris:epoch"; "mm" does not match "aten::mm"), or
// by its name before ": " ("Torch-Compiled Region" matches "Torch-Compiled Region: 0/1", the
// frame and compile ids torch.compile appends), or, for a name with '#', with each number of
// the range's name read as '#' ("IO #" matches "IO 190": the diagnosis' name for ranges a
// program numbers).
//
// ./attribute --step-starts NAME [--step-every N]: a step runs from one start of such a range
// (every N-th) to the next, for a program profiled without steps whose calls begin with a
// known range (each `Torch-Compiled Region` of a compiled model, every 8th `aten::layer_norm`
// of an eager one with eight).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/model/imported_trace.h"

namespace trace {

// Whether a host range called `range` is one named `name` (above).
bool range_name_matches(const std::string& range, const std::string& name);

// Replaces t->records.steps with the matching ranges (ops, host annotations, our phases), in
// time order, and returns how many there are (0: the steps are left as they were).
size_t use_step_ranges(ImportedTrace* t, const std::string& name);

// Replaces t->records.steps with the stretches from every `every`-th start of a matching range,
// on the thread of the first one, to the next; the last ends where the ranges and ops of that
// thread that start in it end. Returns how many there are (0: the steps are left as they were).
size_t use_step_starts(ImportedTrace* t, const std::string& name, uint32_t every);

}  // namespace trace
