// One trace's figures as column tables, the Python package's DataFrames: the same report the
// text and JSON writers render (step_report.h, what_if.h), one table per question.
#pragma once

#include <map>
#include <string>

#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/trace_diff.h"
#include "trace/export/column_table.h"

namespace trace {

// steps, idle, copies, launch_delays, blocking_calls, call_sites, would_sync, syncs_by_cause,
// kernels: every one present, with its columns, even without rows.
std::map<std::string, ColumnTable> report_frames(const TraceReport& report);

// windows: scenario x window, measured, replayed and predicted us.
std::map<std::string, ColumnTable> replay_frames(const replay::ReplayReport& report);

// diff_rows: section x item x figure, A and B; diff_predictions: each what-if's window beside B.
std::map<std::string, ColumnTable> diff_frames(const TraceDiff& diff);

}  // namespace trace
