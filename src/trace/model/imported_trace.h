// One trace as read from a file: its records (records.h) plus what the file said about
// itself. The importers (import/) fill it; the analyses (analyze/) read it, and never the
// file: a new input format only has to produce this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/event_listing.h"
#include "trace/model/records.h"

namespace trace {

// A GPU as the file describes it (Kineto's deviceProperties, Nsight Systems' TARGET_INFO_GPU):
// what the replay picks its published constants by (analyze/replay/gpu_constants.h).
struct DeviceProperties {
  uint32_t id = 0;
  std::string name;                              // "NVIDIA A100-SXM4-80GB", "NVIDIA PG509-210"
  int32_t compute_major = 0, compute_minor = 0;  // 0: not recorded
  uint64_t total_memory = 0;                     // bytes; 0: not recorded
};

struct ImportedTrace {
  std::string file;
  int64_t rank = 0;             // distributedInfo.rank, 0 when absent
  RecordSet records;            // clock: "kineto", or ours ("cupti"/"steady") for our own files
  std::string producer;         // otherData.producer of our own files, else ""
  bool hip = false;             // HIP runtime names seen (an AMD trace)
  uint64_t events = 0;          // traceEvents elements read
  uint64_t ignored_events = 0;  // categories or phases not used (flows, ...)
  uint64_t bytes = 0;  // decompressed JSON bytes (an Nsight Systems export: its SQLite bytes)
  std::string format =
      "JSON";  // "JSON" (Kineto, Chrome trace) or "SQLite" (an Nsight Systems export)
  // A blocking call inside no op is named by the call itself instead of "(no op)": in an Nsight
  // Systems export the ops are NVTX ranges, which many programs never emit.
  bool syncs_named_by_call = false;
  uint64_t negative_durations = 0;        // clamped to 0
  uint64_t unmatched_correlations = 0;    // GPU events whose correlation matches no host call
  uint64_t launches_without_gpu = 0;      // launch calls whose correlation matches no GPU event
  std::vector<DeviceProperties> devices;  // as the file lists them; empty when it lists none
  std::vector<std::string> warnings;
  EventListing listing;  // the file's events as written, when asked (event_listing.h)
};

}  // namespace trace
