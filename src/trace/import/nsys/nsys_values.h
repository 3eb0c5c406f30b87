// What the values of an Nsight Systems SQLite export mean (../../../../docs/nsight-systems.md
// has the tables): the enumerations it stores as integers, the thread and process packed in a
// globalTid, and the names it stores as it recorded them. Pure functions, tested and fuzzed
// on their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model/records.h"

namespace trace::nsys {

// NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE in newer exports; the same numbers in older ones).
enum NvtxEventType : int64_t {
  kNvtxMark = 34,
  kNvtxPushPopRange = 59,
  kNvtxStartEndRange = 60,
  kNvtxtPushPopRange = 70,  // ranges imported from an NVTXT text file
  kNvtxtStartEndRange = 71,
  kNvtxDomainCreate = 75,  // its `text` is the domain's name
};

// CUPTI_ACTIVITY_KIND_RUNTIME.eventClass (ENUM_NSYS_EVENT_CLASS).
enum ApiEventClass : int64_t {
  kCudaRuntime = 0,
  kCudaDriver = 1,
  // A runtime call recorded a second time with its call stack (nsys profile --cudabacktrace):
  // same correlation id, a few hundred ns wider than the call itself.
  kCudaBacktrace = 67,
};

// globalTid = (hardware id << 48) | (pid << 24) | tid, 24 bits each for pid and tid.
inline uint32_t pid_of(int64_t global_tid) {
  return static_cast<uint32_t>((static_cast<uint64_t>(global_tid) >> 24) & 0xFFFFFF);
}
inline uint32_t tid_of(int64_t global_tid) {
  return static_cast<uint32_t>(static_cast<uint64_t>(global_tid) & 0xFFFFFF);
}

// CUPTI's API names carry the version of the entry point: cudaStreamSynchronize_v3020,
// cudaLaunchKernelExC_v11060. Without it they are the names Kineto traces use.
std::string api_name(std::string_view stored);

// PyTorch's NVTX emission (torch.autograd.profiler.emit_nvtx, and the op ranges of recent
// PyTorch) names a range "aten::mm, seq = 12, sizes = [...]" or "aten::view, op_id = 314290":
// the op is the part before those fields, so that every aten::mm counts as one cause.
std::string op_name(std::string_view range_name);

// Bytes as recorded, made valid UTF-8 (each invalid byte becomes U+FFFD): names go into JSON.
std::string utf8(std::string_view bytes);

// CUPTI_ACTIVITY_KIND_MEMCPY.copyKind (ENUM_CUDA_MEMCPY_OPER) and srcKind/dstKind
// (ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, ...).
CopyKind copy_kind(int64_t v);
MemoryKind memory_kind(int64_t v);
// What a CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row waited for, from the name of the call it
// correlates with (api_name()). Not from its syncType: that number moved between versions
// (a cudaStreamSynchronize is 3 in 2022.1 and 2026.2 exports, 2 in 2025.3 and 2026.1 ones,
// whose own ENUM_CUPTI_SYNC_TYPE calls 2 "stream wait event").
SyncKind sync_kind_of_call(std::string_view api);

}  // namespace trace::nsys
