// The names bench's traced pass gives what it records, defined once. The capture code emits
// them (nvtx_phase.cpp: the NVTX domain, and the phase that is one training epoch); the trace
// library knows no name of bench's, so bench and every reader of bench's trace files
// (tools/attribute.cpp, python/ext) pass these to it. No include: the torch-free programs use it.
#pragma once

namespace bench {

// The phase (HostRange) that is one step of bench's loop: one training epoch
// (trace::ImportOptions::step_phase, RecordSet::step_phase).
inline constexpr const char* kStepPhase = "epoch";

// The NVTX domain of bench's phases: an Nsight Systems export's ranges in it are bench's phases
// (trace::ImportOptions::phase_domain).
inline constexpr const char* kPhaseDomain = "iris";

}  // namespace bench
