// HTA's loaded rows of every rank (trace/analyze/hta_frames.h) as dicts of NumPy arrays, for
// iris_trace.hta's TraceAnalysis.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace pyiris {

// {rank: {"ts_bits": ..., "gpu_ts": array, ...}}; reads the files with the GIL released.
nanobind::dict hta_frames_py(const std::vector<std::string>& paths, bool ns_rounding);

// The module's HTA functions (hta_frames).
void register_hta(nanobind::module_& m);

}  // namespace pyiris
