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

// Below this, A and B are taken for two different programs (words_in_common). Evidence, every
// pair of the shared traces: the H100 toy block's four runs (eager, three torch.compile modes)
// 0.80-0.98 against each other; traces of different programs 0.48 at most. Its limit: a program
// of GEMMs alone (the A100 side-stream pair) is like any GEMM-heavy one by name (0.84-0.87).
inline constexpr double kMinWordsInCommon = 0.6;

}  // namespace trace
