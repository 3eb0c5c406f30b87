// Where in the program each blocking call (sync_causes.h) was made: its stack and caller frame,
// from the Python frames of a torch.profiler trace recorded with stacks (records.h
// PyFrameRecord) or the native call stacks of an Nsight Systems export (CallStack), and the
// calls grouped by call site. Docs: docs/trace-tool.md, "Where in the code".
//
// The caller frame is the innermost frame of code that is neither PyTorch's own, nor Python's
// standard library, nor a builtin, nor a module's forward (frame_kinds.h): the user's function,
// or the library function (transformers, ...) that called into torch. A torch.profiler frame is
// named when the function is entered: "train.py(40): step" is the function `step` whose
// definition starts at line 40, not the line of the call. The callee is the next frame in, on
// the way to the call ("<built-in method item of Tensor object>", "torch/optim/optimizer.py(...):
// wrapper"): what the caller called.
//
// A site is (caller, callee, op, order): op is the outermost PyTorch op around the calls
// ("aten::item", or the API when none), and order tells apart the occurrences of one callee from
// one caller in a step: the 2nd `.item()` that `<module>` makes in each step is its own site,
// and all the calls one occurrence makes (one `.item()` blocks in a copy and a sync; one
// `optimizer.step()` may call `.item()` once per parameter) are one. Without steps the order is
// always 1.
//
// A trace with no GPU work has nothing to block on: there the ops that would synchronise on a
// GPU (kWouldSyncOps: a scalar read by `.item()`, `nonzero`, ...) are listed by site instead.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/sync_causes.h"
#include "trace/model/records.h"

namespace trace {

constexpr uint32_t kNoFrame = UINT32_MAX;

struct CallSite {
  std::vector<uint32_t> stack;  // frame names (RecordSet::frame_names), outermost first
  bool stack_cut = false;       // deeper than kMaxStack frames: the outermost ones are left out
  int32_t caller = -1;          // position in `stack` of the caller frame; -1: none
  int32_t callee = -1;          // the next frame in, toward the call; -1: none
  int32_t user = -1;            // innermost frame of the user's own code (is_user_code); -1: none
  int32_t module = -1;          // innermost "nn.Module: ..." frame; -1: none
  uint64_t occurrence = 0;      // which occurrence of the callee (or of the op) made the call
};

struct SiteRow {
  uint32_t caller = kNoFrame, callee = kNoFrame, user = kNoFrame, module = kNoFrame;  // names
  std::string op;            // outermost op around the calls, or the API when none
  uint32_t order = 1;        // the k-th occurrence of (caller, callee, op) in its step; 0: the
                             // occurrences that do not stand out, folded (call_sites.cpp)
  uint64_t calls = 0;        // blocking calls (ops, for would-sync rows)
  uint64_t occurrences = 0;  // occurrences of the callee that made them
  uint64_t blocked_ns = 0;   // host time blocked (would-sync rows: the ops' host time)
  uint64_t gpu_queued_ns = 0;
  uint64_t steps = 0;             // steps it happened in
  std::vector<std::string> apis;  // the APIs of its calls, each once, in first-seen order
  std::vector<uint32_t> members;  // its calls: indices into SyncReport::calls (or would_sync)
};

// An op that would block on a GPU, found in a trace without GPU work.
struct WouldSync {
  uint32_t op_index = 0;  // into RecordSet::cpu_ops: the outermost op of kWouldSyncOps
  int step = -1;
  uint64_t host_ns = 0;
};

struct SiteReport {
  enum class Stacks : uint8_t { None, Python, Native };
  Stacks stacks = Stacks::None;
  std::vector<CallSite> calls;        // parallel to SyncReport::calls
  std::vector<SiteRow> sites;         // by blocked time, descending
  std::vector<int32_t> site_of_call;  // parallel to SyncReport::calls: its row in `sites`
  uint64_t without_caller = 0;        // blocking calls inside frames, none of them a caller frame
  uint64_t without_stack = 0;         // blocking calls with no frame around them at all
  bool gpu_work = true;               // false: the would-sync list stands in for the blocking calls
  std::vector<WouldSync> would_sync;
  std::vector<CallSite> would_sync_calls;  // parallel to would_sync
  std::vector<SiteRow> would_sync_sites;
};

// Ops that synchronise with the GPU on a CUDA tensor: reading a value to the host
// (`.item()`, `int()`, `float()`, `bool()`, a `print`), and ops whose output size depends on the
// data, which must be read back before the output exists.
constexpr std::array<const char*, 9> kWouldSyncOps = {"aten::_local_scalar_dense",
                                                      "aten::nonzero",
                                                      "aten::masked_select",
                                                      "aten::_unique2",
                                                      "aten::unique_dim",
                                                      "aten::unique_consecutive",
                                                      "aten::repeat_interleave",
                                                      "aten::bincount",
                                                      "aten::histc"};

constexpr size_t kMaxStack = 4096;

SiteReport find_call_sites(const RecordSet& records, const SyncReport& syncs);

// "caller -> callee, op (2nd in its step)": a site as the tables and --what-if site= name it.
std::string site_label(const RecordSet& records, const SiteRow& site);

}  // namespace trace
