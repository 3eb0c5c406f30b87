#include "capture/host_ranges.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace trace {
namespace {
thread_local HostRangeRecorder* tls_recorder = nullptr;
}

uint64_t steady_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint32_t current_thread_id() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

HostRangeRecorder::HostRangeRecorder(Clock clock) : clock_(clock), thread_id_(current_thread_id()) {
  open_.reserve(16);
}

void HostRangeRecorder::push(Phase phase) { open_.push_back({clock_(), phase}); }

void HostRangeRecorder::pop() {
  if (open_.empty()) return;  // a range opened before recording began
  const uint64_t end = clock_();
  const Open o = open_.back();
  open_.pop_back();
  done_.push_back(
      {o.start_ns, end, thread_id_, static_cast<uint16_t>(open_.size()), phase_name(o.phase)});
}

std::vector<HostRange> HostRangeRecorder::take() { return std::move(done_); }

ScopedHostRecording::ScopedHostRecording(HostRangeRecorder* recorder) : previous_(tls_recorder) {
  tls_recorder = recorder;
}
ScopedHostRecording::~ScopedHostRecording() { tls_recorder = previous_; }

HostRangeRecorder* thread_host_recorder() { return tls_recorder; }

}  // namespace trace
