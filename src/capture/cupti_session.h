// One CUPTI activity session (RAII), for a traced pass: runtime and driver API calls,
// concurrent kernels, memcpy, memset and synchronisation records. CUPTI hands over full
// buffers in a callback that only queues them; they are parsed after the flush, outside
// CUPTI's callbacks and outside the queue's lock. Dropped records are counted.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "trace/model/records.h"

namespace trace {

// The tracer cannot run here (another CUPTI client such as Nsight Systems is attached, or
// no CUPTI): it steps aside; callers report the message and carry on untraced.
class TracerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CuptiSession {
 public:
  CuptiSession();   // enables the activity kinds; throws TracerUnavailable or std::runtime_error
  ~CuptiSession();  // disables whatever is still enabled; never throws
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  // Disables, flushes and moves every record gathered into `out` (and the dropped count),
  // then detaches CUPTI from the process (cuptiFinalize), so later timed rows run without it.
  void stop(RecordSet& out);

  // CUPTI's clock, the one its records use: host ranges are stamped with it.
  static uint64_t timestamp_ns();

 private:
  void detach();
  bool active_ = false;
  void* subscriber_ = nullptr;
};

}  // namespace trace
