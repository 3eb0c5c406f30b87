// Named phases of one training epoch, as NVTX ranges in bench's domain (bench_names.h: "iris"),
// so a run under
//   nsys profile -t cuda,nvtx ./bench --benchmark_filter=ItemSync/cuda ...
// shows forward / loss / zero_grad / backward / step / log / item on the CPU timeline.
// Built without NVTX headers, PhaseRange does nothing.
#pragma once

#include <cstdint>

namespace trace {

enum class Phase : uint8_t { Epoch, Forward, Loss, ZeroGrad, Backward, Step, Log, Item, kCount };

const char* phase_name(Phase phase);  // "epoch", "forward", ...

// RAII: push on construction, pop on destruction, on the calling thread.
class PhaseRange {
 public:
  explicit PhaseRange(Phase phase) noexcept;
  ~PhaseRange() noexcept;
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;
};

}  // namespace trace
