// Which host API calls hold the host until the GPU is done with earlier work, and why: one
// definition, used by the attribution (attribution.h: sync and blocking-copy time per window)
// and by the list of blocking calls with their causes (sync_causes.h), so that a page's
// totals and the rows it lists are the same calls.
//
// From the CUDA runtime API's "API synchronization behavior" notes:
//  - Sync: cuda*/cu*/hip*Synchronize (stream, event, device/context): waits by definition.
//  - CopyNotAsync: a copy call without "Async" (cudaMemcpy, cuMemcpyDtoH, hipMemcpyWithStream)
//    returns when the copy is done, except device to device, which the driver only queues.
//  - CopyPageable: an Async copy to or from pageable host memory (its GPU copy, by correlation,
//    says "Pageable"): the driver stages it through a pinned buffer, device to pageable host
//    returns only when the copy is done, and host to device first synchronises the stream.
//  - No: everything else, Async copies between pinned or device memory included.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "trace/model/records.h"

namespace trace {

enum class Blocking : uint8_t { No, Sync, CopyNotAsync, CopyPageable };

// `copy`: the call's GPU copy (same correlation id), or nullptr when the trace has none.
Blocking blocking_kind(const ApiRecord& call, const MemcpyRecord* copy);

// "sync", "blocking copy", "" (for No); and the reason a copy blocks: "not Async", "pageable".
const char* blocking_label(Blocking b);
const char* blocking_reason(Blocking b);

// Whether the call returns only once the GPU work queued before it is done: what the replay makes
// it wait for (replay/sync_waits) and what its sync what-ifs remove. Not every call that holds the
// host does: an Async copy from pageable host memory to the device holds it while the driver
// stages the bytes, without waiting for queued work (two-ranks: replayed as a wait, both ranks'
// steps came out 10 % long; as plain host time, within 0.01 %). A copy to pageable memory, a copy
// without Async and a synchronisation do wait.
bool waits_for_queued_gpu_work(Blocking b, const MemcpyRecord* copy);

// The first GPU copy recorded under each correlation id (index into records.memcpys).
std::unordered_map<uint32_t, uint32_t> copies_by_correlation(const RecordSet& records);

}  // namespace trace
