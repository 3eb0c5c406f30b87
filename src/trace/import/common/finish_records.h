// What every importer does once its records are read, whatever the format: the steps settled,
// and the correlations that join nothing counted (never silently dropped).
#pragma once

#include "trace/model/imported_trace.h"

namespace trace {

// Steps in time order, one per (name, start) (an old Kineto trace may carry a step twice); a
// trace without steps takes its phases named r->step_phase (when set) as its steps.
void settle_steps(RecordSet* r);

// ImportedTrace::unmatched_correlations (GPU events whose correlation id matches no host call)
// and ::launches_without_gpu (launch calls whose id matches no GPU event).
void count_unmatched_correlations(ImportedTrace* t);

}  // namespace trace
