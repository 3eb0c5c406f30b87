// One trace as read from a file: its records (records.h) plus what the file said about
// itself. The importers (import/) fill it; the analyses (analyze/) read it, and never the
// file: a new input format only has to produce this.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "trace/model/records.h"

namespace trace {

// What Holistic Trace Analysis 0.5.0 keeps of one event (hta_breakdown.h reproduces its
// figures from these): events with both "dur" and "cat", except cat "Trace".
struct HtaEvent {
  enum Flag : uint16_t {
    kKernelCat = 1,        // cat kernel/Kernel/gpu_memcpy/Memcpy/gpu_memset/Memset/mtia_ccp_events
    kComputeName = 2,      // HTA's get_kernel_type(name) == COMPUTATION
    kLaunchName = 4,       // cudaLaunchKernel, cudaLaunchKernelExC
    kMemAsyncName = 8,     // cudaMemcpyAsync, cudaMemsetAsync
    kDeviceSyncName = 16,  // "Event Sync", "Context Sync" (GPU rows although stream -1)
    kStepName = 32,        // name contains "ProfilerStep"
  };
  int64_t index = 0;  // position in traceEvents (HTA's row index)
  // As Python's json reads the text: float(text) when it has '.', 'e' or 'E', else the integer
  // (HTA's arithmetic starts from these doubles, not from our integer nanoseconds: a ts of
  // 12.9999999 must round up to 13 as it does there).
  double ts_us = 0, dur_us = 0;
  int64_t stream = -1, correlation = -1;  // HTA's defaults when absent or not an integer
  uint16_t flags = 0;
};

struct ImportedTrace {
  std::string file;
  int64_t rank = 0;             // distributedInfo.rank, 0 when absent
  RecordSet records;            // clock: "kineto", or ours ("cupti"/"steady") for our own files
  std::string producer;         // otherData.producer of our own files, else ""
  bool hip = false;             // HIP runtime names seen (an AMD trace)
  uint64_t events = 0;          // traceEvents elements read
  uint64_t ignored_events = 0;  // categories or phases not used (python_function, flows, ...)
  uint64_t bytes = 0;  // decompressed JSON bytes (an Nsight Systems export: its SQLite bytes)
  std::string format =
      "JSON";  // "JSON" (Kineto, Chrome trace) or "SQLite" (an Nsight Systems export)
  // A blocking call inside no op is named by the call itself instead of "(no op)": in an Nsight
  // Systems export the ops are NVTX ranges, which many programs never emit.
  bool syncs_named_by_call = false;
  uint64_t negative_durations = 0;      // clamped to 0
  uint64_t unmatched_correlations = 0;  // GPU events whose correlation matches no host call
  uint64_t launches_without_gpu = 0;    // launch calls whose correlation matches no GPU event
  std::vector<std::string> warnings;
  // --hta only:
  std::vector<HtaEvent> hta;
  // How pandas would type the file's columns (over every traceEvents element): "ts" is float64
  // when any ts has a fraction or is missing (HTA rounds only then); "dur" likewise.
  bool hta_float_ts = false, hta_missing_ts = false;
  bool hta_float_dur = false, hta_missing_dur = false;
  std::set<std::string> hta_step_names;
};

}  // namespace trace
