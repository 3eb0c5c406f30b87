// Records -> Chrome Trace Event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open. Tracks: process "CPU" with one thread per host thread (our phase ranges, and the
// CUDA API calls beneath them); process "GPU <device>" with one thread per stream
// (kernels, memcpy, memset). A flow arrow joins each launch or copy call to its GPU work
// (same correlation id). Times are written in microseconds relative to the window start,
// as the format requires ("ts" and "dur" in us, with ns precision as decimals).
#pragma once

#include <cstdint>
#include <string>

#include "trace/model/records.h"

namespace trace {

// Events that start inside [from_ns, to_ns] (all of them when to_ns == 0).
std::string chrome_trace_json(const RecordSet& records, uint64_t from_ns = 0, uint64_t to_ns = 0);

}  // namespace trace
