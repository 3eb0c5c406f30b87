#include "train/aten_op_counter.h"

#include <atomic>
#include <stdexcept>

namespace train {
namespace {

// One process-wide atomic, not a thread_local: the callback also fires on the autograd
// thread during a CUDA backward, and a thread_local would count those ops in that thread's
// own copy, which the caller never reads (the CUDA step would show ~40 ops, not ~105).
// RecordFunction takes a plain function pointer, hence a global, hence one counter at a time.
std::atomic<int64_t> g_ops{0};
std::atomic<bool> g_alive{false};

std::unique_ptr<at::ObserverContext> on_op(const at::RecordFunction&) {
  g_ops.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

}  // namespace

AtenOpCounter::AtenOpCounter() {
  if (g_alive.exchange(true)) throw std::logic_error("AtenOpCounter: another counter is alive (one at a time)");
  g_ops = 0;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(on_op).scopes({at::RecordScope::FUNCTION}));
}

AtenOpCounter::~AtenOpCounter() {
  at::removeCallback(handle_);
  g_alive = false;
}

int64_t AtenOpCounter::count() const { return g_ops.load(std::memory_order_relaxed); }

}  // namespace train
