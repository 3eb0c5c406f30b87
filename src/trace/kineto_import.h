// PyTorch profiler (Kineto) and Chrome Trace Event JSON -> the suite's records (records.h).
// Reads plain or gzip files (by content), streaming: memory holds the records, not the file.
// The suite's own --trace_dir files (chrome_trace.h) import too, back to the same records
// up to a shift of the clock origin.
//
// Categories: cuda_runtime / cuda_driver (and older Runtime / Driver) -> ApiRecord, classified
// by name (records.h classify_api; HIP names like hipLaunchKernel classify the same way);
// kernel / Kernel; gpu_memcpy / Memcpy (direction and host memory kind from
// "Memcpy DtoH (Device -> Pinned)"); gpu_memset / Memset; cuda_sync -> SyncRecord; cpu_op /
// Operator -> CpuOpRecord; user_annotation / gpu_user_annotation -> AnnotationRecord;
// ProfilerStep#N (any host category) -> StepWindow; our own "phase" -> HostRange.
// Times: Kineto's microseconds (integers, or decimals with ns resolution) are converted to
// integer ns from the number's text, exactly (no float multiply).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "trace/byte_source.h"
#include "trace/records.h"

namespace trace {

// What Holistic Trace Analysis 0.5.0 keeps of one event (hta_breakdown.h reproduces its
// figures from these): events with both "dur" and "cat", except cat "Trace".
struct HtaEvent {
  enum Flag : uint16_t {
    kKernelCat = 1,        // cat kernel/Kernel/gpu_memcpy/Memcpy/gpu_memset/Memset
    kComputeName = 2,      // HTA's get_kernel_type(name) == COMPUTATION
    kLaunchName = 4,       // cudaLaunchKernel, cudaLaunchKernelExC
    kMemAsyncName = 8,     // cudaMemcpyAsync, cudaMemsetAsync
    kDeviceSyncName = 16,  // "Event Sync", "Context Sync" (GPU rows although stream -1)
    kStepName = 32,        // name contains "ProfilerStep"
  };
  int64_t index = 0;       // position in traceEvents (HTA's row index)
  int64_t ts_ns = 0, dur_ns = 0;
  int64_t stream = -1, correlation = -1;  // HTA's defaults when absent or not an integer
  uint16_t flags = 0;
};

struct ImportOptions {
  bool hta_events = false;  // also keep HtaEvent rows (./attribute --hta)
  unsigned threads = 0;     // parse workers (event_pipeline.h); 0: one per hardware thread
  // Kernel names (KernelRecord::name), hundreds of bytes each in a C++ build: nothing
  // ./attribute reports uses them, so it leaves them out (a third of a large trace's memory).
  bool kernel_names = true;
};

struct ImportedTrace {
  std::string file;
  int64_t rank = 0;          // distributedInfo.rank, 0 when absent
  RecordSet records;         // clock: "kineto", or ours ("cupti"/"steady") for our own files
  std::string producer;      // otherData.producer of our own files, else ""
  bool hip = false;          // HIP runtime names seen (an AMD trace)
  uint64_t events = 0;       // traceEvents elements read
  uint64_t ignored_events = 0;  // categories or phases not used (python_function, flows, ...)
  uint64_t bytes = 0;        // decompressed JSON bytes
  uint64_t negative_durations = 0;  // clamped to 0
  uint64_t unmatched_correlations = 0;  // GPU events whose correlation matches no host call
  uint64_t launches_without_gpu = 0;    // launch calls whose correlation matches no GPU event
  std::vector<std::string> warnings;
  // --hta only:
  std::vector<HtaEvent> hta;
  bool hta_float_ts = false;       // pandas would hold "ts" as float64 (HTA rounds only then)
  std::set<std::string> hta_step_names;
};

ImportedTrace import_trace(const std::string& path, const ImportOptions& options = {});
ImportedTrace import_trace(ByteSource& source, const std::string& name, const ImportOptions& options = {});

// Files named on the command line; a folder stands for its *.json and *.json.gz files
// (per-rank traces), sorted by name. Throws InputError for a missing path or empty folder.
std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args);

// Microseconds as JSON number text -> integer ns, exactly for up to 3 decimals (rounded to
// the nearest ns beyond). False when the text is not a number or does not fit.
bool us_text_to_ns(std::string_view text, int64_t* ns);

}  // namespace trace
