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
#include "trace/analyze/launch_queue.h"
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
  uint64_t idle_after_ns = 0;  // the GPUs idle from its end until any GPU work ran again
  // What it found and drained, and the regime it ran in (sync_drain.h; 0 until add_drain).
  uint64_t queue_depth = 0, drained = 0;
  Regime regime = Regime::NoGpuWork;
};

// What bounds the saving of removing a cause's calls (sync_drain.h).
enum class DrainAdvice : uint8_t {
  NoGpuWork,  // nothing ran on a GPU: each call costs its own host time
  OwnCost,    // the GPU sat idle after its calls longer than they waited: saves the blocked time
  WaitMoves,  // the GPU was soon busy again: the wait moves to the next sync; saves the idle
  Mixed,      // some calls of each kind
};

struct SyncCause {
  std::string op;
  uint64_t calls = 0;           // blocking API calls under this op
  uint64_t op_occurrences = 0;  // op occurrences that blocked (one .item() blocks in two calls)
  uint64_t sync_ns = 0, blocking_copy_ns = 0, blocked_ns = 0;  // blocked = sync + blocking copies
  uint64_t gpu_queued_ns = 0;
  // sync_drain.h: the queue the calls found, what they drained, the GPUs' idle after them, and
  // the first-order saving (per call the smaller of its blocked time and the idle after it).
  uint64_t queue_depth_p50 = 0, queue_depth_max = 0, drained = 0;
  uint64_t idle_after_ns = 0, saving_estimate_ns = 0;
  Regime regime = Regime::NoGpuWork;  // of the steps holding most of its blocked time
  DrainAdvice advice = DrainAdvice::NoGpuWork;
  uint64_t idle_bound_ns = 0;  // blocked time of its calls the GPU idle after them bounds
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
