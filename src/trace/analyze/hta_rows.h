// The rows of Holistic Trace Analysis 0.5.0's per-rank DataFrame before its transformations
// (hta_breakdown.h applies them), built from what the shared model holds:
//  - a trace whose reader listed its events (EventListing: a Kineto trace read with
//    ImportOptions::list_events) gives HTA's own rows: every listed event except category
//    "Trace", at its place in the file, with its numbers as written;
//  - any other trace (an Nsight Systems export) gives the rows HTA would read from a Kineto
//    trace of the same records: each host call, GPU kernel, copy, set, sync and host range, in
//    microseconds, correlation and stream as recorded. HTA's definitions then apply to any
//    GPU events, whoever recorded them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "trace/model/imported_trace.h"

namespace trace {

// What HTA keeps of one event.
struct HtaEvent {
  enum Flag : uint16_t {
    kKernelCat = 1,         // cat kernel/Kernel/gpu_memcpy/Memcpy/gpu_memset/Memset/mtia_ccp_events
    kComputeName = 2,       // HTA's get_kernel_type(name) == COMPUTATION
    kLaunchName = 4,        // cudaLaunchKernel, cudaLaunchKernelExC
    kMemAsyncName = 8,      // cudaMemcpyAsync, cudaMemsetAsync
    kDeviceSyncName = 16,   // "Event Sync", "Context Sync" (GPU rows although stream -1)
    kStepName = 32,         // name contains "ProfilerStep"
    kQueueLaunchName = 64,  // a launch of HTA's queue length (get_runtime_launch_events_query)
    // 0.6.1's rules where they changed: get_kernel_type's regexes (hta/common/types.py), the
    // queue's launches with cuLaunchKernelEx, steps named ^ProfilerStep#\d+.
    kCompute06Name = 128,
    kQueueLaunch06Name = 256,
    kStep06Name = 512,
    kComm05Name = 1024,      // get_kernel_type == COMMUNICATION: 0.5.0's ^nccl.*Kernel
    kComm06Name = 2048,      // 0.6.1's CommunicateKernelGroupingPattern
    kStepPrefixName = 4096,  // starts with "ProfilerStep": a step of get_profiler_steps
    kCpuOpCat = 8192,        // cat "cpu_op" (0.6.1's add_iteration places those on stream 0)
  };
  int64_t index = 0;  // HTA's row index: the event's place in the file
  // As Python's json reads the text (HTA's arithmetic starts from these doubles, not from our
  // integer nanoseconds: a ts of 12.9999999 must round up to 13 as it does there).
  double ts_us = 0, dur_us = 0;
  int64_t stream = -1, correlation = -1;  // HTA's defaults when absent or not an integer
  uint16_t flags = 0;
  // A kStepPrefixName row's N in ProfilerStep\s*#\s*N (straggler.py, get_iter_nbr), else -1.
  int32_t step_iter = -1;
  // As written (text: an index into HtaEvents::strings); the queue length series carries them.
  ListedId pid, tid;
  uint32_t name = ListedEvent::kNone;  // an index into HtaEvents::strings()
  double memory_bw_gbps = 0;
};

struct HtaEvents {
  std::vector<HtaEvent> rows;
  // How pandas types the file's columns (over every event, kept or not): "ts" is float64 when
  // any ts has a fraction or is missing (HTA rounds only then); "dur" likewise.
  bool float_ts = false, missing_ts = false;
  bool float_dur = false, missing_dur = false;
  std::set<std::string> step_names;     // the names of kept rows that contain "ProfilerStep"
  std::set<std::string> step_names_06;  // those 0.6.1 counts as steps (kStep06Name)
  // HTA's local symbol table is built from the kept rows' distinct categories and names in the
  // order they first appear (indices into strings(); a listing only). name_missing_at: where a
  // row without a name first appears among the names (pandas' NaN), -1 when none does.
  std::vector<uint32_t> cat_order, name_order;
  int64_t name_missing_at = -1;
  // How pandas types "pid" and "tid": the kinds of value over every event (EventListing).
  uint8_t pid_kinds = 0, tid_kinds = 0;
  // Names and text pids and tids: the listing's strings, or (from records) own_strings.
  const std::vector<std::string>* listing_strings = nullptr;
  std::vector<std::string> own_strings;
  const std::vector<std::string>& strings() const {
    return listing_strings ? *listing_strings : own_strings;
  }
};

HtaEvents hta_events(const ImportedTrace& trace);

}  // namespace trace
