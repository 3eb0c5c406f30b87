#include "train/aten_op_counter.h"

#include <atomic>
#include <mutex>
#include <stdexcept>

namespace train {
namespace {

// Process-wide, not thread_local: the callback also fires on the autograd thread during a CUDA
// backward, and a thread_local would count those ops in that thread's own copy, which the caller
// never reads (the CUDA step would show ~40 ops, not ~105). RecordFunction takes a plain function
// pointer, hence globals, hence one counter at a time.
std::atomic<int64_t> g_ops{0};
std::atomic<int64_t> g_top{0};
std::atomic<bool> g_alive{false};
std::mutex g_names_mutex;
std::vector<std::string> g_names;
// Operator nesting on this thread: each thread's outermost operator is depth 0.
thread_local int t_depth = 0;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!fn.operator_name()) return nullptr;  // not an operator (evaluate_function, user scopes)
  const int depth = t_depth++;
  g_ops.fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) g_top.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_names_mutex);
  g_names.push_back(std::string(2 * static_cast<size_t>(depth), ' ') + fn.name());
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  if (fn.operator_name() && t_depth > 0) --t_depth;
}

}  // namespace

AtenOpCounter::AtenOpCounter() {
  if (g_alive.exchange(true))
    throw std::logic_error("AtenOpCounter: another counter is alive (one at a time)");
  g_ops = 0;
  g_top = 0;
  {
    std::lock_guard<std::mutex> lock(g_names_mutex);
    g_names.clear();
  }
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
}

AtenOpCounter::~AtenOpCounter() {
  at::removeCallback(handle_);
  g_alive = false;
}

int64_t AtenOpCounter::count() const { return g_ops.load(std::memory_order_relaxed); }
int64_t AtenOpCounter::top_level() const { return g_top.load(std::memory_order_relaxed); }

std::vector<std::string> AtenOpCounter::names() const {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  return g_names;
}

}  // namespace train
