// A traced pass: our phase ranges on the calling thread, plus CUPTI records on CUDA; the
// records name bench's epoch as their step phase (bench_names.h).
// The CPU control group uses the same class with cuda = false: host ranges only.
#pragma once

#include <memory>

#include "capture/host_ranges.h"
#include "trace/model/records.h"

namespace trace {

class CuptiSession;

class TraceSession {
 public:
  // Throws TracerUnavailable (cupti_session.h) when cuda is asked for and CUPTI cannot run.
  explicit TraceSession(bool cuda);
  ~TraceSession();
  RecordSet stop();

 private:
  std::unique_ptr<CuptiSession> cupti_;
  std::unique_ptr<HostRangeRecorder> recorder_;
  std::unique_ptr<ScopedHostRecording> scope_;
  bool stopped_ = false;
};

}  // namespace trace
