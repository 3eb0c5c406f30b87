// The launch queue of every stream and GPU over time, and the regime it puts a step in: is the
// GPU waiting for the host (the queue keeps running dry) or the host for the GPU (work waits in
// a deep queue)? Docs: docs/trace-tool.md, "The launch queue and the regime".
//
// Definitions:
// - a piece of GPU work (kernel, copy, set) is in its stream's queue from the moment its host
//   call has queued it until it finishes: from min(call end, work start) to work end. Its call is
//   the one the attribution joins it to (attribution.h: first call with its correlation id);
//   work with no call is in the queue only while it runs. A GPU's queue is its streams' together.
// - depth(t): the pieces in the queue at t. Per window [w0, w1]: empty_ns, the time the depth was
//   0 (the GPU had nothing to do and nothing waiting: it starved); depth_p50 / depth_p90 / max,
//   time-weighted (the smallest depth d such that the depth was at most d for p % of the window).
// - a launch call blocked on a full queue: its stream held max_queue - full_within pieces or
//   more when the call started (CUDA's per-stream launch queue, 1024 entries, the figure HTA uses);
//   its whole call time is counted, by the window the call started in.
// - the regime of a window, from the GPU whose queue was empty the least (the one the step kept
//   busiest): launch-bound when that queue was empty for at least launch_bound_empty_share of
//   the window (the GPU waited for launches); GPU-bound when it was empty for less than
//   gpu_bound_empty_share and its median depth is at least gpu_bound_median_depth (work waited
//   behind work: launch cost hidden, each sync drains it); mixed otherwise; no GPU work when no
//   GPU ran or held anything in the window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trace {

struct QueueOptions {
  uint32_t max_queue = 1024;
  // A queue within this many pieces of max_queue counts as full: the records do not show every
  // entry a launch takes (the call's own piece, events), and real traces block short of the
  // figure (a100-sidestreams: launch calls of 5 us grow to ~100 us at depth 1021-1022).
  uint32_t full_within = 2;
  double launch_bound_empty_share = 0.25;
  double gpu_bound_empty_share = 0.05;
  uint32_t gpu_bound_median_depth = 2;
};

struct QueueDepth {
  uint64_t window_ns = 0, empty_ns = 0;
  uint32_t p50 = 0, p90 = 0, max = 0;
  double empty_share() const {
    return window_ns ? static_cast<double>(empty_ns) / static_cast<double>(window_ns) : 0.0;
  }
};

struct GpuQueue {
  uint32_t device = 0;
  QueueDepth depth;
  uint64_t pieces = 0;  // work that was in the queue at some time in the window
  uint64_t full_queue_calls = 0, full_queue_ns = 0;
};

struct StreamQueue {
  uint32_t device = 0, stream = 0;
  QueueDepth depth;
};

enum class Regime : uint8_t { NoGpuWork, LaunchBound, GpuBound, Mixed };
const char* to_string(Regime r);

struct QueueFigures {
  std::vector<GpuQueue> gpus;        // by device id
  std::vector<StreamQueue> streams;  // by (device, stream); only when asked for
  Regime regime = Regime::NoGpuWork;
};

// The rule above, on a window's GPUs.
Regime regime_of(const std::vector<GpuQueue>& gpus, const QueueOptions& options);

class LaunchQueue {
 public:
  struct Work {
    uint64_t start = 0, end = 0;  // the GPU work
    uint64_t call_start = 0, call_end = 0;
    uint32_t device = 0, stream = 0;
    bool has_call = false;
  };
  LaunchQueue(const std::vector<Work>& work, const QueueOptions& options = {});

  // The figures of the window [w0, w1]; per stream too when `streams`.
  QueueFigures figures(uint64_t w0, uint64_t w1, bool streams = false) const;

  // What a blocking call found and drained (sync_causes.h): the pieces in every GPU's queue at
  // t (entered by t, not yet left), and the pieces that left the queues in (a, b].
  uint64_t depth_at(uint64_t t) const;
  uint64_t pieces() const;  // all the GPU work, every GPU
  uint64_t finished_between(uint64_t a, uint64_t b) const;

  // One GPU's depth over [w0, w1] as a step function: depth[k] holds from t[k] to t[k + 1] (the
  // last to w1); t[0] = w0. At most max_points changes, the rest cut (truncated).
  struct DepthSeries {
    uint32_t device = 0;
    std::vector<uint64_t> t;
    std::vector<uint32_t> depth;
    bool truncated = false;
  };
  std::vector<DepthSeries> series(uint64_t w0, uint64_t w1, size_t max_points) const;

 private:
  struct Lane {  // one stream or one GPU: when pieces entered and left its queue, each sorted
    uint32_t device = 0, stream = 0;
    std::vector<uint64_t> enter, leave;
  };
  struct FullCall {
    uint64_t start, ns;
    uint32_t device;
  };
  static QueueDepth depth_over(const Lane& lane, uint64_t w0, uint64_t w1);
  QueueOptions options_;
  std::vector<Lane> streams_, gpus_;
  std::vector<FullCall> full_calls_;  // by start
};

}  // namespace trace
