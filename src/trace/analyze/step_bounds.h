// What bounds a step: every instant of the step's window goes to one class, "GPU first" over
// all host threads (docs/diagnosis.md, section 2 and rules R3-R5): the GPU's when any kernel, copy
// or memset runs (compute before copies before communication alone), else "queued" when GPU work
// was launched and has not started, else the host's, named by its innermost event over every
// thread (a runtime call before an op, an op before a Python frame, a frame before a range).
// One exception: while a thread is held in a blocking copy, the work it queued on other streams
// runs beside the copy and is not on the path the thread waits on: the instant is the copy's.
// Where one resource holds the step up at each instant, as in the launch-bound and GPU-bound
// steps these traces show, this is the step's critical path split by what is on it; the replay
// (replay/what_if.h) follows the dependencies where two resources wait on each other.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/analyze/attribution.h"
#include "trace/model/records.h"

namespace trace {

// The classes of docs/diagnosis.md, section 2.
enum class Bound : uint8_t {
  GpuCompute,     // a kernel or memset runs (by KernelClass)
  Copies,         // only copies run, or the host stages a pageable copy with the GPU idle
  Communication,  // only collectives (NCCL/RCCL) run: exposed communication
  QueuedIdle,     // nothing runs, work was launched and has not started, for over short_gap_ns
  SyncWait,       // nothing runs or is queued; the host is inside a blocking sync
  PerOpHost,      // ... the host is in the per-op path: dispatch, autograd, launch calls, glue
  OtherHost,      // ... the host does other work: data, preprocessing, compile, allocation, init
  Untraced,       // ... no host event on any thread
};
inline constexpr size_t kBounds = 8;
const char* to_string(Bound b);

// What a kernel computes, from its name.
enum class KernelClass : uint8_t { Gemm, Attention, Reduction, Elementwise, Communication, Other };
inline constexpr size_t kKernelClasses = 6;
const char* to_string(KernelClass c);
KernelClass kernel_class(std::string_view name);
// An FP32 GEMM on CUDA cores (sgemm, scudnn, f32f32; not tf32, bf16 or f16): TF32's candidates.
bool is_fp32_gemm(std::string_view kernel);

// A host range that is compilation (torch.compile's dynamo_timed ranges, Inductor's compile).
bool is_compile_range(std::string_view name);
// A name with each run of digits read as one counter: "Step 10 to 20" is "Step # to #".
std::string counters_as_hash(std::string_view name);
// A call that pins host memory (cudaHostAlloc, cudaMallocHost, cudaHostRegister): host work of
// its own that waits for no stream, unlike cudaFree or cudaMalloc, which may synchronise.
bool is_pinning_call(std::string_view name);
// A host range around a collective (nccl:all_reduce, gloo:..., c10d::...).
bool is_collective_range(std::string_view name);

// Per thread, the sorted times at which something starts: whether one starts inside a host
// event on its thread.
struct ThreadStarts {
  std::unordered_map<uint32_t, std::vector<uint64_t>> starts;
  bool inside(uint32_t thread, uint64_t start, uint64_t end) const;  // one in [start, end)
};
// Each thread's calls that queue GPU work (launches, copies, sets): a host event with one
// inside is on the GPU's path (R4).
ThreadStarts issue_starts(const RecordSet& records);

// What host work the GPU waits on is, from its name (R10, R15).
enum class HostWork : uint8_t { DataLoading, Allocation, Other };
HostWork host_work(std::string_view name);

// The upper middle value (0 for none).
uint64_t median(std::vector<uint64_t> v);

// Host time the GPU waited on, by the host event that was innermost meanwhile.
struct HostWait {
  std::string name;
  const char* level = "none";  // "call", "op", "frame", "range", "sample", or "none" (untraced)
  Bound bound = Bound::Untraced;
  uint64_t ns = 0;
};

struct StepBounds {
  uint64_t start_ns = 0, wall_ns = 0;
  std::array<uint64_t, kBounds> ns{};
  std::array<uint64_t, kKernelClasses> kernel_ns{};  // GpuCompute and Communication, by class
  uint64_t launch_latency_ns = 0;  // queued gaps of at most short_gap_ns, inside PerOpHost or
                                   // GpuCompute (R5)
  uint64_t launched = 0;           // GPU work started in the window with its launch call
  uint64_t kernels = 0;            // kernels started in the window
  uint64_t kernel_p50_ns = 0;      // their median length
  uint64_t lag_p50_ns = 0;         // median of start - its launch call's end (R7)
  bool host_ahead = false;         // lag_p50_ns > host_ahead_lag_ns: the GPU is behind
  std::vector<HostWait> host;      // GPU-idle host time by innermost event, most first
  // Cold start (R11): GPU-idle time the host spent in first-use work (context, library and
  // module loading, compilation, profiler start-up) or in a call far above its name's median;
  // counted in OtherHost and listed apart.
  uint64_t cold_ns = 0;
  std::vector<HostWait> cold;

  uint64_t gpu_busy_ns() const;
  double share(Bound b) const;
  Bound largest() const;
  Bound runner_up() const;
};

struct BoundsOptions {
  uint64_t short_gap_ns = 10'000;       // R5: launch latency, not a wait
  uint64_t host_ahead_lag_ns = 50'000;  // R7
  uint64_t glue_ns = 1'000'000;         // R4: Python between launches under it is per-op
  size_t host_items = 30;
  // The trace's ops are the program's own ranges (an Nsight Systems export's NVTX ranges), not a
  // framework's ops: they are judged as ranges (glue while short), not as the per-op path.
  bool ops_are_ranges = false;
  // R11: a call or op at least cold_times_median its name's median and cold_min_ns long is a
  // first-call outlier; shorter first calls are noise.
  uint64_t cold_min_ns = 1'000'000;
  double cold_times_median = 10.0;
  // R3: a blocking copy whose GPU copy starts this soon after another stream's work ended
  // waited for that work (the replay's rule for a wait between streams, replay/graph.h).
  uint64_t wake_ns = 10'000;
  // ... and a host wait that returns this soon after a stream's backlog ran out waited for it
  // (the replay's wake-up window for a thread, replay/graph.h).
  uint64_t return_ns = 100'000;
};

// Prepared once per record set; then each window costs its records.
class BoundsIndex {
 public:
  BoundsIndex(const RecordSet& records, const AttributionIndex& index,
              const BoundsOptions& options = {});
  StepBounds window(uint64_t w0, uint64_t w1) const;

  // How deep a host event is: the innermost open one names the instant. A sampled stretch
  // (RecordSet::sampled) names only what no traced event covers.
  enum Level : uint8_t { kSample, kRange, kFrame, kOp, kCall, kNone };
  // A host event that can be innermost while the GPU waits.
  struct HostEvent {
    uint64_t start, end;
    uint32_t thread, name;  // name: index into names_
    uint8_t level;          // Level
    Bound bound;            // its class when innermost; PerOpHost for glue candidates
    bool glue;              // a frame or range that launches kernels: per-op while short
    bool cold;              // first-use work, or inside it (R11)
  };

 private:
  // The GPU's boundaries in a window: what runs (kind 0..5 kernel classes, 6 memset, 7 copy)
  // and what is queued (8: launched and not started).
  struct Edge {
    uint64_t t;
    int8_t delta;
    uint8_t kind;
  };
  using Stretches = std::vector<std::pair<uint64_t, uint64_t>>;
  // A thread held in a blocking copy or in pinning host memory (R3): what it queued on other
  // streams runs beside the call, off the path the thread waits on, unless the call waited
  // behind it.
  struct Held {
    uint64_t start, end;
    uint32_t thread;
    uint64_t stream, waited;  // the copy's stream; a stream it waited behind, or kNoKey
  };
  static constexpr uint64_t kNoKey = UINT64_MAX;
  uint32_t name_of(const std::string& name);        // its index in names_, added once
  uint32_t range_name_of(const std::string& name);  // ... with its counters as '#'
  void classify_kernels();
  void index_spans();  // long_host_ and the longest work and queue wait
  uint64_t stream_key(const AttributionIndex::GpuWork& g) const;
  void add_held(const ApiRecord& call, const MemcpyRecord& copy);
  // Work beside a held copy is off the path only when no one waits for it: its stream's backlog
  // (work running or queued, gaps up to wake_ns) runs out before the window ends with no host
  // wait returning then. Indexed only when the trace holds a held copy.
  void index_backlogs();
  bool awaited(uint64_t stream, uint64_t t, uint64_t w1) const;
  void mark_cold();
  std::vector<Edge> gpu_edges(uint64_t w0, uint64_t w1, StepBounds* s) const;
  // The GPU's classes over the window; returns the stretches where the GPU is idle with nothing
  // queued, for the host to fill.
  Stretches sweep_gpu(const std::vector<Edge>& edges, uint64_t w0, uint64_t w1,
                      StepBounds* s) const;
  void split_host(const Stretches& host_idle, uint64_t w0, StepBounds* s) const;

  const RecordSet& r_;
  const AttributionIndex& index_;
  BoundsOptions o_;
  std::vector<HostEvent> host_;  // by start
  // Bounds on how far back a window must look: the longest GPU work, the longest wait between
  // a launch call and its work, and the host events longer than kLongNs (the rest cannot be
  // open kLongNs after they start).
  static constexpr uint64_t kLongNs = 10'000'000;
  uint64_t longest_work_ns_ = 0, longest_queue_ns_ = 0;
  std::vector<uint32_t> long_host_;
  std::vector<Held> held_;  // by start
  uint64_t longest_held_ns_ = 0;
  std::unordered_map<uint64_t, Stretches> backlog_;   // per stream key, by start
  std::vector<std::pair<uint64_t, uint64_t>> waits_;  // blocking calls' (end, start), by end
  std::vector<std::string> names_;
  // Views of the records' names, and of the numbered ones kept in numbered_ (a deque: its
  // strings do not move).
  std::unordered_map<std::string_view, uint32_t> name_id_, numbered_id_;
  std::deque<std::string> numbered_;
  struct NameKinds {
    bool poll, setup, first_use, compile, launch;
  };
  std::vector<NameKinds> kinds_;  // per name, what it is (step_bounds.cpp says by which words)
  std::vector<KernelClass> kernel_class_;  // per record in r_.kernels
};

}  // namespace trace
