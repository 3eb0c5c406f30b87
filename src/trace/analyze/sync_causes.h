// Every blocking synchronisation in a trace, and what caused it: the calls that hold the
// host until the GPU catches up (stream, event, context/device synchronize; memcpy calls
// that are not Async; an Async copy into pageable host memory, which the driver completes
// before returning), each with the innermost cpu_op around it on the same thread
// (aten::_local_scalar_dense under aten::item, aten::nonzero, aten::copy_ ...), the host
// time it blocked, and the GPU busy time during the call (the work that was still queued).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/records.h"

namespace trace {

struct SyncCall {
  std::string api;        // "cudaStreamSynchronize", "cudaMemcpyAsync", ...
  std::string op;         // innermost enclosing cpu_op, "(no op)" when none
  std::string op_path;    // outermost > ... > innermost
  int step = -1;          // index into RecordSet::steps holding the call's start, -1 if none
  uint32_t thread_id = 0;
  uint64_t start_ns = 0, blocked_ns = 0, gpu_queued_ns = 0;
  int64_t op_instance = -1;  // which cpu_op occurrence (one .item() may block in two calls)
  uint32_t api_index = 0;    // the call's index in RecordSet::api
};

struct SyncCause {
  std::string op;
  uint64_t calls = 0;       // op occurrences that blocked (one per .item(), however many API calls)
  uint64_t api_calls = 0;   // blocking API calls under them
  uint64_t blocked_ns = 0, gpu_queued_ns = 0;
};

struct SyncReport {
  std::vector<SyncCall> calls;      // in time order
  std::vector<SyncCause> by_cause;  // by blocked_ns, descending
  uint64_t blocked_ns = 0;
};

// Whether a host API call blocks until the GPU is done with earlier work. `copy_to_pageable`:
// its GPU copy (same correlation) is device to pageable host memory.
bool is_blocking_call(const ApiRecord& a, bool copy_to_pageable);

// named_by_call: a call inside no op is named by its API ("cudaMemcpy"), else "(no op)".
SyncReport find_syncs(const RecordSet& records, bool named_by_call = false);

}  // namespace trace
