// Records our NVTX phases (nvtx_phase.h) as HostRange records while installed on a thread:
// the CPU control group's trace, and on CUDA the ranges CUPTI's records are attributed to.
// We timestamp our own ranges instead of capturing NVTX through CUPTI: that would need
// NVTX injection, which collides with Nsight Systems.
#pragma once

#include <cstdint>
#include <vector>

#include "capture/nvtx_phase.h"
#include "trace/model/records.h"

namespace trace {

uint64_t steady_now_ns();
uint32_t current_thread_id();  // the system thread id (gettid), as CUPTI reports it when told to

class HostRangeRecorder {
 public:
  using Clock = uint64_t (*)();
  explicit HostRangeRecorder(Clock clock = steady_now_ns);
  void push(Phase phase);
  void pop();
  std::vector<HostRange> take();  // finished ranges, in end order

 private:
  struct Open {
    uint64_t start_ns;
    Phase phase;
  };
  Clock clock_;
  uint32_t thread_id_;
  std::vector<Open> open_;
  std::vector<HostRange> done_;
};

// While alive, PhaseRanges on this thread report to `recorder`.
class ScopedHostRecording {
 public:
  explicit ScopedHostRecording(HostRangeRecorder* recorder);
  ~ScopedHostRecording();
  ScopedHostRecording(const ScopedHostRecording&) = delete;
  ScopedHostRecording& operator=(const ScopedHostRecording&) = delete;

 private:
  HostRangeRecorder* previous_;
};

HostRangeRecorder* thread_host_recorder();

}  // namespace trace
