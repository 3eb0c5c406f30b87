// iris_trace.hta's TraceAnalysis in C++: HTA 0.5.0's load of every rank (trace/analyze/
// hta_frames.h), kept between calls, and the figures of its calls (hta_temporal.h, hta_idle.h,
// hta_launch.h) as plain values and NumPy arrays, from which iris_trace/hta.py makes HTA's
// DataFrames. A later HTA call is a C++ analysis in trace/analyze/ plus one method here.
#pragma once

#include <nanobind/nanobind.h>

namespace pyiris {

// The class _core.HtaTraces (its methods say what each returns).
void register_hta(nanobind::module_& m);

}  // namespace pyiris
