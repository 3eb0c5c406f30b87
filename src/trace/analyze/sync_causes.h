// Every call that held the host until the GPU caught up, and what caused it: the blocking
// calls of blocking_calls.h (synchronisations and blocking copies, each kind and reason named),
// each with the innermost cpu_op around it on the same thread (aten::_local_scalar_dense
// under aten::item, aten::nonzero, aten::copy_ ...), the host time it blocked, and the GPU
// busy time during the call (the work that was still queued). The same calls, in the same
// windows, as the attribution's sync_api_ns + blocking_copy_ns: the list adds up to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/blocking_calls.h"
#include "trace/model/records.h"

namespace trace {

struct SyncCall {
  std::string api;                 // "cudaStreamSynchronize", "cudaMemcpyAsync", ...
  Blocking kind = Blocking::Sync;  // a synchronisation, or a blocking copy and why
  std::string op;                  // innermost enclosing cpu_op, "(no op)" when none
  std::string op_path;             // outermost > ... > innermost
  int step = -1;  // index into RecordSet::steps holding the call's start, -1 if none
  uint32_t thread_id = 0;
  uint64_t start_ns = 0, blocked_ns = 0, gpu_queued_ns = 0;
  int64_t op_instance = -1;  // which cpu_op occurrence (one .item() may block in two calls)
  uint32_t api_index = 0;    // the call's index in RecordSet::api
  bool waits_for_gpu =
      true;  // blocking_calls.h waits_for_queued_gpu_work: what the replay's sync what-ifs remove
};

struct SyncCause {
  std::string op;
  uint64_t calls = 0;           // blocking API calls under this op
  uint64_t op_occurrences = 0;  // op occurrences that blocked (one .item() blocks in two calls)
  uint64_t sync_ns = 0, blocking_copy_ns = 0, blocked_ns = 0;  // blocked = sync + blocking copies
  uint64_t gpu_queued_ns = 0;
};

struct SyncReport {
  std::vector<SyncCall> calls;      // in time order
  std::vector<SyncCause> by_cause;  // by blocked_ns, descending
  uint64_t syncs = 0, sync_ns = 0, blocking_copies = 0, blocking_copy_ns = 0, blocked_ns = 0;
};

// named_by_call: a call inside no op is named by its API ("cudaMemcpy"), else "(no op)".
// Which calls are listed: blocking_calls.h.
SyncReport find_syncs(const RecordSet& records, bool named_by_call = false);

}  // namespace trace
