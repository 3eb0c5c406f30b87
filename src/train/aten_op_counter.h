// Counts the ATen operations the calling thread runs while a counter is alive, including
// those LibTorch runs on its behalf on other threads (a CUDA backward runs on the autograd
// engine's device thread, which inherits the caller's thread-local RecordFunction callbacks).
#pragma once

#include <ATen/record_function.h>

#include <cstdint>

namespace train {

class AtenOpCounter {
 public:
  AtenOpCounter();   // installs a thread-local RecordFunction callback (FUNCTION scope);
                     // throws std::logic_error if another counter is alive (one at a time)
  ~AtenOpCounter();  // removes it
  AtenOpCounter(const AtenOpCounter&) = delete;
  AtenOpCounter& operator=(const AtenOpCounter&) = delete;

  int64_t count() const;

 private:
  at::CallbackHandle handle_ = 0;
};

}  // namespace train
