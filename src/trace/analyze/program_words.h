// Whether two traces are of one program (./attribute --diff refuses two different ones), from
// what their kernels compute as their names say it.
#pragma once

#include "trace/analyze/step_report.h"

namespace trace {

// How alike the two traces' kernels are: each kernel name read as its words (letter runs, split
// at capitals, lower case, 3 letters or more, C++ and library words left out), each kernel's time
// spread over its words; the share of a trace's kernel time in words the other trace's kernels
// also have, the smaller of the two (op names, when either has no kernels). Words, not names: a
// compiler renames the kernels of one program (eager's `GeluCUDAKernelImpl` is Inductor's
// `triton_poi_fused_addmm_gelu_1`), but what they compute keeps its words.
double words_in_common(const TraceReport& a, const TraceReport& b);

// Below this, A and B are taken for two different programs (words_in_common): one program's runs
// share most of their kernel time's name words, different programs far less (the scores on the
// shared traces: docs/trace-tool.md, --diff). Kernels of another vendor's libraries share few
// words with the same program's, so two vendors' runs are refused too.
inline constexpr double kMinWordsInCommon = 0.6;

}  // namespace trace
