#include "capture/trace_session.h"

#include "capture/bench_names.h"
#include "capture/cupti_session.h"

namespace trace {

#if !IRIS_HAVE_CUPTI
// Without CUPTI headers only the host side exists; asking for CUDA records steps aside.
CuptiSession::CuptiSession() { throw TracerUnavailable("this bench was built without CUPTI"); }
CuptiSession::~CuptiSession() = default;
void CuptiSession::stop(RecordSet&) {}
uint64_t CuptiSession::timestamp_ns() { return steady_now_ns(); }
#endif

TraceSession::TraceSession(bool cuda) {
  if (cuda) cupti_ = std::make_unique<CuptiSession>();
  // Host ranges on the records' clock, so phases and CUPTI records line up.
  recorder_ =
      std::make_unique<HostRangeRecorder>(cuda ? &CuptiSession::timestamp_ns : &steady_now_ns);
  scope_ = std::make_unique<ScopedHostRecording>(recorder_.get());
}

TraceSession::~TraceSession() = default;

RecordSet TraceSession::stop() {
  RecordSet out;
  if (stopped_) return out;
  stopped_ = true;
  scope_.reset();
  out.ranges = recorder_->take();
  out.step_phase = bench::kStepPhase;  // each epoch is one step
  if (cupti_) cupti_->stop(out);
  return out;
}

}  // namespace trace
