#include "capture/nvtx_phase.h"

#include "capture/bench_names.h"
#include "capture/host_ranges.h"

#if IRIS_HAVE_NVTX
#include <array>
#include <nvtx3/nvtx3.hpp>
#endif

namespace trace {

namespace {
constexpr const char* kPhaseNames[] = {bench::kStepPhase, "forward", "loss", "zero_grad",
                                       "backward",        "step",    "log",  "item"};
static_assert(sizeof(kPhaseNames) / sizeof(kPhaseNames[0]) == static_cast<int>(Phase::kCount));
}  // namespace

const char* phase_name(Phase phase) { return kPhaseNames[static_cast<int>(phase)]; }

#if IRIS_HAVE_NVTX

namespace {
struct IrisDomain {
  static constexpr const char* name{bench::kPhaseDomain};
};

// One colour per phase so the timeline reads at a glance; registered strings so a push
// passes a handle, not a string to copy, when a tool is attached.
const nvtxEventAttributes_t& attributes(Phase phase) {
  static const auto table = [] {
    constexpr uint32_t colors[] = {0xFF7F7F7F, 0xFF1F77B4, 0xFF17BECF, 0xFFBCBD22,
                                   0xFFFF7F0E, 0xFF2CA02C, 0xFF9467BD, 0xFFD62728};
    std::array<nvtxEventAttributes_t, static_cast<size_t>(Phase::kCount)> t{};
    for (size_t i = 0; i < t.size(); ++i) {
      t[i].version = NVTX_VERSION;
      t[i].size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      t[i].colorType = NVTX_COLOR_ARGB;
      t[i].color = colors[i];
      t[i].messageType = NVTX_MESSAGE_TYPE_REGISTERED;
      t[i].message.registered =
          nvtxDomainRegisterStringA(nvtx3::domain::get<IrisDomain>(), kPhaseNames[i]);
    }
    return t;
  }();
  return table[static_cast<size_t>(phase)];
}
}  // namespace

static void nvtx_push(Phase phase) {
  nvtxDomainRangePushEx(nvtx3::domain::get<IrisDomain>(), &attributes(phase));
}
static void nvtx_pop() { nvtxDomainRangePop(nvtx3::domain::get<IrisDomain>()); }

#else

static void nvtx_push(Phase) {}
static void nvtx_pop() {}

#endif

// The host recorder (a traced pass) is checked first so its timestamps bracket the NVTX
// calls too; untraced runs pay one thread-local load.
PhaseRange::PhaseRange(Phase phase) noexcept {
  if (auto* r = thread_host_recorder()) r->push(phase);
  nvtx_push(phase);
}
PhaseRange::~PhaseRange() noexcept {
  nvtx_pop();
  if (auto* r = thread_host_recorder()) r->pop();
}

}  // namespace trace
