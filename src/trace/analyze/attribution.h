// From plain records (records.h) to where the time of an epoch went. A pure function: the
// tests feed it hand-built records with known answers; bench feeds it a traced pass.
//
// Definitions (also in docs/experiment.md, "Where the time goes: the traced pass"):
// - window: options.window when given; else from the start of the first step phase (the host
//   ranges named RecordSet::step_phase, bench's `epoch`) to the end of the last; without step
//   phases, the span of all records. Per-step figures divide by the step phases.
// - launch_api_ns: host time inside launch calls (cudaLaunchKernel, cuLaunchKernel*,
//   cudaGraphLaunch, ...), by API name (records.h classify_api). A driver call nested in
//   a runtime call on the same thread (the innermost runtime call open on that thread when
//   it starts ends after it) is not counted again (same host time).
// - kernels / kernel_ns: kernel records starting in the window, and the sum of their
//   durations (overlapping kernels both count, so this can exceed busy time).
// - gpu_busy_ns: length of the union of kernel, memcpy and memset intervals, clipped to
//   the window (concurrent work is counted once).
// - memcpy: count, bytes and GPU time per direction and host memory kind, e.g.
//   "DtoH pinned"; the memory kind named is the host side's (pageable or pinned).
// - host calls that hold the host until the GPU is done (blocking_calls.h, one definition
//   for every figure and list): syncs / sync_api_ns, the *Synchronize calls; blocking_copies
//   / blocking_copy_ns, copy calls that block, split by why (copy_not_async: a call without
//   Async; copy_pageable: an Async copy to or from pageable host memory); blocked_ns = both:
//   what a .item() costs the host (its D2H copy into pageable memory plus the stream sync).
//   nonblocking_copies / nonblocking_copy_ns: the other copy calls (queued, host free at
//   once); memcpy_api_ns = every copy call, blocking or not.
// - host identity of a window: wall = launch_api_ns + sync_api_ns + blocking_copy_ns +
//   host_rest_ns(), the rest being the CPU's own work and every other call (non-blocking
//   copies included); calls on several threads can overlap, and then the rest is negative.
// - GPU idle = window - gpu_busy_ns, split after Holistic Trace Analysis's idle-time
//   breakdown: for each gap between busy intervals, the activity after the gap decides:
//     host wait:   its launch (or copy) call started after the GPU went idle: the queue was
//                  empty and the GPU waited for the CPU. A gap with no activity after it
//                  in the window (the tail) is host wait too.
//     kernel wait: it was already queued, and the gap is at most kernel_wait_threshold_ns:
//                  the launch overhead between back-to-back queued work.
//     other:       queued, but a longer gap (dependencies, events, unknown).
// - launch_delay: per kernel with a correlated launch call, kernel start - call end (ns;
//   negative when the kernel started before the call returned).
// - phases: per host range name, how many, inclusive host time, and the kernels whose
//   launch call started inside it, with their GPU time. A kernel counts in the innermost
//   range containing its launch call's start (where it was launched, not where it ran),
//   looked up on the thread that made the call; when that thread recorded no ranges at all,
//   on the recording thread (the one holding the step phases, else the most ranges).
//   Why: LibTorch runs a CUDA backward on its own autograd thread while the thread that
//   recorded the phases waits inside `backward`, and PyTorch profiler traces show autograd
//   ops on their own tid; the range open on the recording thread is the phase that asked
//   for the work. Kernels with no correlated call or no range holding it are counted in
//   kernels_outside_phases, never dropped silently.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/blocking_calls.h"
#include "trace/analyze/launch_queue.h"
#include "trace/model/records.h"

namespace trace {

struct AttributionOptions {
  uint64_t kernel_wait_threshold_ns = 10000;  // 10 us: queued work normally starts within a few us
  // The window [from, to] in ns, when the caller knows it (a profiler step, a whole trace);
  // unset: the step phases' span, else the span of all records (see "window" above).
  std::optional<std::pair<uint64_t, uint64_t>> window;
};

struct Distribution {
  uint64_t count = 0;
  double mean = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;  // ns
};

struct CopyStats {
  uint64_t count = 0, bytes = 0, gpu_ns = 0;
};

struct PhaseStats {
  uint64_t count = 0, host_ns = 0, kernels = 0, kernel_ns = 0;
};

struct Attribution {
  uint64_t steps = 0;  // step phases (RecordSet::step_phase) among the selected host ranges
  uint64_t window_start_ns = 0, window_ns = 0;
  uint64_t launches = 0, launch_api_ns = 0;
  uint64_t kernels = 0, kernel_ns = 0;
  uint64_t gpu_busy_ns = 0;
  uint64_t memcpys = 0, memcpy_gpu_ns = 0;
  std::map<std::string, CopyStats> memcpy_by_kind;  // "DtoH pinned", "HtoD pageable", ...
  uint64_t memsets = 0;
  uint64_t syncs = 0, sync_api_ns = 0;
  uint64_t blocking_copies = 0, blocking_copy_ns = 0;
  uint64_t copies_not_async = 0, copy_not_async_ns = 0;  // blocking: a copy call without Async
  uint64_t copies_pageable = 0, copy_pageable_ns = 0;    // blocking: Async with pageable memory
  uint64_t nonblocking_copies = 0, nonblocking_copy_ns = 0;
  uint64_t memcpy_api_ns = 0, blocked_ns = 0;
  uint64_t idle_host_wait_ns = 0, idle_kernel_wait_ns = 0, idle_other_ns = 0;
  Distribution launch_delay;
  std::map<std::string, PhaseStats> phases;
  uint64_t kernels_outside_phases = 0;  // in the window, but in no phase range (see above)
  uint64_t dropped_records = 0;

  uint64_t gpu_idle_ns() const { return idle_host_wait_ns + idle_kernel_wait_ns + idle_other_ns; }
  // The window's host time outside launch calls and blocking calls (see "host identity").
  int64_t host_rest_ns() const {
    return static_cast<int64_t>(window_ns) -
           static_cast<int64_t>(launch_api_ns + sync_api_ns + blocking_copy_ns);
  }
  // value / steps (or the value itself when the records held no step phase).
  double per_step(double value) const { return steps ? value / static_cast<double>(steps) : value; }
};

// Prepared once for a record set (records sorted by start, each GPU activity joined to the
// host call that queued it, nested driver calls marked); then each window costs only the
// records in it. Why: ./attribute asks for one window per profiler step, and a 1 GB trace
// has hundreds of steps over millions of records. The records must outlive the index.
// What a piece of GPU work is (AttributionIndex::GpuWork).
enum class GpuWorkKind : uint8_t { Kernel, Memcpy, Memset };

class AttributionIndex {
 public:
  explicit AttributionIndex(const RecordSet& records);

  struct GpuWork {  // a kernel, memcpy or memset, in start order (ties: kernels, copies, memsets)
    uint64_t start, end;
    uint64_t call_start, call_end;  // the host call with its correlation id (has_call)
    uint32_t index;                 // into records.kernels / memcpys / memsets
    uint32_t call_thread;
    GpuWorkKind kind;
    bool has_call;
  };
  // Every GPU activity with the host call joined to it, in start order.
  const std::vector<GpuWork>& gpu_work() const { return gpu_; }

  // The figures of the records that start in the window (options.window; else the span of
  // the step phases among the selected ones; else the span of all records). Phases and
  // steps come from the host ranges that start in [ranges_from, ranges_to] and end by
  // ranges_to (default: all of them).
  Attribution attribute(const AttributionOptions& options = {}, uint64_t ranges_from = 0,
                        uint64_t ranges_to = UINT64_MAX) const;

  // The launch queue of the same GPU work, each piece with the host call joined to it above
  // (launch_queue.h).
  LaunchQueue launch_queue(const QueueOptions& options = {}) const;

 private:
  struct HostCall {  // an API call, in start order
    uint64_t start, end;
    ApiKind kind;
    Blocking blocking;
    bool counted;  // false: a driver call inside a runtime call on its thread (same host time)
  };
  // attribute()'s steps, in the order it runs them.
  using GpuIter = std::vector<GpuWork>::const_iterator;
  std::vector<const HostRange*> select_ranges(uint64_t from, uint64_t to) const;
  void choose_window(const AttributionOptions& options, const std::vector<const HostRange*>& ranges,
                     Attribution* a) const;
  void add_host_calls(uint64_t w0, uint64_t w1, Attribution* a) const;
  void add_gpu_work(GpuIter g0, GpuIter g1, Attribution* a) const;
  void add_gpu_idle(GpuIter g0, GpuIter g1, uint64_t kernel_wait_threshold_ns,
                    Attribution* a) const;
  void add_phases(const std::vector<const HostRange*>& ranges, GpuIter g0, GpuIter g1,
                  Attribution* a) const;

  const RecordSet& r_;
  std::vector<HostCall> calls_;
  std::vector<GpuWork> gpu_;
  std::vector<uint32_t> ranges_;       // indices into records.ranges, by start
  uint64_t lo_ = UINT64_MAX, hi_ = 0;  // span of all records
};

// One window of one record set: AttributionIndex(records).attribute(options).
Attribution attribute(const RecordSet& records, const AttributionOptions& options = {});

}  // namespace trace
