// Counts the ATen operators the calling thread runs while a counter is alive, including those
// LibTorch runs on its behalf on other threads (a CUDA backward runs on the autograd engine's
// device thread, which inherits the caller's thread-local RecordFunction callbacks).
//
// Which records count: only those with an operator name, i.e. calls through the dispatcher
// (aten::addmm, aten::relu, ...). Other FUNCTION-scope records are not operators: autograd's
// "autograd::engine::evaluate_function: AddmmBackward0" (about one per autograd node) and the
// like. count() is every operator call, nested ones too (aten::linear calls aten::t, which calls
// aten::transpose, each a dispatcher call of its own); top_level() counts only the outermost
// operator on each thread, what user code and autograd's nodes call. names() lists them.
#pragma once

#include <ATen/record_function.h>

#include <cstdint>
#include <string>
#include <vector>

namespace train {

class AtenOpCounter {
 public:
  AtenOpCounter();   // installs a thread-local RecordFunction callback (FUNCTION scope);
                     // throws std::logic_error if another counter is alive (one at a time)
  ~AtenOpCounter();  // removes it
  AtenOpCounter(const AtenOpCounter&) = delete;
  AtenOpCounter& operator=(const AtenOpCounter&) = delete;

  int64_t count() const;      // every operator call, nested ones included
  int64_t top_level() const;  // the outermost operator calls only
  // "aten::addmm" ... of every operator call in the order they started; nested ones are
  // prefixed by one "  " per level, so the list reads as the call tree of each thread.
  std::vector<std::string> names() const;

 private:
  at::CallbackHandle handle_ = 0;
};

}  // namespace train
