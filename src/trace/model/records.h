// Plain trace records: what the CUPTI session (cupti_session.h) and the host-range recorder
// (host_ranges.h) produce and what attribution and trace export consume. No CUDA types
// here, so the logic downstream is tested on hand-built records without a GPU.
// All times are nanoseconds on one clock (CUPTI's, or steady_clock on a CPU-only run).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trace {

// A host API call (CUDA runtime or driver), classified by what it does to the timeline.
enum class ApiKind : uint8_t { Launch, Sync, Memcpy, Memset, Other };

struct ApiRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;  // links a launch or copy call to its GPU activity
  uint32_t thread_id = 0;
  ApiKind kind = ApiKind::Other;
  bool driver = false;  // driver API (cu*) rather than runtime (cuda*)
  std::string name;
};

struct KernelRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0, stream_id = 0;
  std::string name;
  // 1 + its index in RecordSet::kernel_names, when the importer was asked for names once per
  // distinct name instead of once per kernel (0: none there; see kernel_name()).
  uint32_t name_id = 0;
};

enum class CopyKind : uint8_t { HtoD, DtoH, DtoD, HtoH, Other };
enum class MemoryKind : uint8_t { Pageable, Pinned, Device, Other };

struct MemcpyRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0, stream_id = 0;
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::Other;
  MemoryKind src = MemoryKind::Other, dst = MemoryKind::Other;
};

struct MemsetRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0, stream_id = 0;
  uint64_t bytes = 0;
};

// Stream id of GPU-side events that belong to no stream (Kineto writes -1, e.g. "Context Sync").
constexpr uint32_t kNoStream = 0xFFFFFFFFu;

// CUPTI's synchronization records: the span a host thread waited in a sync call.
enum class SyncKind : uint8_t { Stream, Event, Context, StreamWaitEvent, Other };
struct SyncRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t stream_id = 0;
  SyncKind kind = SyncKind::Other;
  // Kineto's cuda_sync rows for an event (Event Sync, Stream Wait Event): the stream the event
  // was recorded on and the correlation id of its cudaEventRecord call, when known (the
  // replay, analyze/replay/, waits for the work queued before that record).
  uint32_t wait_stream = kNoStream;
  uint32_t wait_record_correlation = 0;
};

// A phase of the program's own instrumentation, timestamped on the host: bench's capture
// (capture/nvtx_phase.h), or in a file the "phase" events of our Chrome trace writer and the
// NVTX ranges of ImportOptions::phase_domain. One of them may be the program's step
// (RecordSet::step_phase).
struct HostRange {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread_id = 0;
  uint16_t depth = 0;  // 0 = outermost (bench's: the epoch)
  std::string name;    // bench's: "epoch", "forward", ..., "item"
};

// Imported traces only (kineto_import.h): a PyTorch operator (Kineto's `cpu_op`) on a host
// thread. Sync causes (sync_causes.h) name the innermost one around each blocking call.
struct CpuOpRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread_id = 0;
  std::string name;  // "aten::item", "aten::_local_scalar_dense", ...
};

// Imported traces only: a `user_annotation` (host) or `gpu_user_annotation` (GPU) range.
struct AnnotationRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread_id = 0;  // host thread, or the stream for a GPU annotation
  bool gpu = false;
  std::string name;
};

// Traces recorded with stacks only: a Python frame (Kineto's `python_function`, torch.profiler
// with_stack=True) on a host thread, from the function's entry to its return. Its name is the
// profiler's: "dir/file.py(LINE): func" (LINE is where the function's definition starts, not
// the line of a call), "<built-in method item of Tensor object>" (the importer drops the
// object's address), or "nn.Module: Linear_0". Frames nest by time on their thread.
struct PyFrameRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread_id = 0;
  uint32_t name_id = 0;  // index into RecordSet::frame_names
};

// Nsight Systems exports recorded with --cudabacktrace: the native call stack of one runtime
// call, innermost frame first (CUDA_CALLCHAINS rows of the call's callchainId).
struct NativeFrame {
  uint32_t symbol_id = 0, module_id = 0;  // indices into RecordSet::frame_names
  bool unresolved = false;                // an address, not a function name
};
struct CallStack {
  uint32_t api_index = 0;  // the call's index in RecordSet::api
  std::vector<NativeFrame> frames;
};

// One training step: a `ProfilerStep#N` range of an imported trace, a host range the caller
// named (steps_from_ranges.h), or a phase named RecordSet::step_phase. The per-step figures of
// ./attribute are taken over these.
struct StepRecord {
  uint64_t start_ns = 0, end_ns = 0;
  std::string name;
  // The host thread whose range made the step, when the step is no range of its own (a stretch
  // from one range's start to the next); UINT32_MAX: the record of the same name and span says.
  uint32_t thread_id = UINT32_MAX;
};

struct RecordSet {
  std::vector<ApiRecord> api;
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<HostRange> ranges;
  std::vector<CpuOpRecord> cpu_ops;           // imported traces only
  std::vector<AnnotationRecord> annotations;  // imported traces only
  std::vector<StepRecord> steps;              // imported traces only
  // The phase (HostRange::name) that is one step of the program, as its caller named it (bench:
  // capture/bench_names.h); "" for none. A trace without ProfilerStep#N takes these phases as its
  // steps, and the attribution spans them by default (attribution.h).
  std::string step_phase;
  std::vector<std::string> kernel_names;  // each distinct name once (KernelRecord::name_id)
  std::vector<PyFrameRecord> py_frames;   // imported traces with Python stacks only
  std::vector<CallStack> call_stacks;     // Nsight Systems exports with CUDA backtraces only
  std::vector<std::string> frame_names;   // each distinct frame name or module once
  // Nsight Systems exports with CPU sampling only: stretches of a thread whose samples have one
  // function of the program innermost (HostRange::name; depth 0): what the host ran where no
  // call or range is traced.
  std::vector<HostRange> sampled;
  uint64_t dropped_records = 0;  // CUPTI records lost (buffer full); never silently zero
  std::string clock = "steady";  // "cupti" or "steady": which clock the times are on
};

// A kernel's name, wherever the importer put it ("" when it kept none).
const std::string& kernel_name(const RecordSet& r, const KernelRecord& k);

const char* to_string(ApiKind k);
const char* to_string(CopyKind k);
const char* to_string(MemoryKind k);
const char* to_string(SyncKind k);

// Classifies an API call by its name (cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch
// -> Launch; *Synchronize -> Sync; *Memcpy* -> Memcpy; *Memset* -> Memset).
ApiKind classify_api(const std::string& name);

// The span of every record of the set, host and GPU (first start, last end);
// {UINT64_MAX, 0} when it holds none.
std::pair<uint64_t, uint64_t> record_span(const RecordSet& r);

// Host calls in start order (at equal starts a runtime call before a driver call: it holds
// it), and for each call (by its index in `api`) whether it is a driver call made inside a
// runtime call on its own thread, i.e. the innermost runtime call still open on that thread
// when it starts ends after it: the same host time as that runtime call, to be counted once.
struct CallOrder {
  std::vector<uint32_t> by_start;
  std::vector<bool> nested_driver;
};
CallOrder order_calls(const std::vector<ApiRecord>& api);

}  // namespace trace
