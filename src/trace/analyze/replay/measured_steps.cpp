#include "trace/analyze/replay/measured_steps.h"

#include <map>
#include <utility>

#include "trace/analyze/replay/graph.h"

namespace trace::replay {

std::vector<MeasuredStep> measured_steps(const RecordSet& r) {
  std::vector<MeasuredStep> out;
  if (r.steps.empty()) {
    const auto [lo, hi] = record_span(r);
    if (lo <= hi) out.push_back({"whole trace", lo, hi, kNone});
    return out;
  }
  // A step is measured on the thread that recorded it: the host record of the same name and span.
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> holder;
  const auto offer = [&](const std::string& name, uint64_t s, uint64_t e, uint32_t thread) {
    if (name.rfind("ProfilerStep#", 0) == 0 || (!r.step_phase.empty() && name == r.step_phase))
      holder.emplace(std::make_pair(s, e), thread);
  };
  for (const auto& a : r.annotations)
    if (!a.gpu) offer(a.name, a.start_ns, a.end_ns, a.thread_id);
  for (const auto& o : r.cpu_ops) offer(o.name, o.start_ns, o.end_ns, o.thread_id);
  for (const auto& h : r.ranges) offer(h.name, h.start_ns, h.end_ns, h.thread_id);
  for (const auto& s : r.steps) {
    auto it = holder.find({s.start_ns, s.end_ns});
    const uint32_t thread = s.thread_id != kNone ? s.thread_id
                            : it == holder.end() ? kNone
                                                 : it->second;
    out.push_back({s.name, s.start_ns, s.end_ns, thread});
  }
  return out;
}

}  // namespace trace::replay
