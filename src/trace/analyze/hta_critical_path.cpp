#include "trace/analyze/hta_critical_path.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>

namespace trace {
namespace {

// HTA's BoundType values this path gives, in its order (data_loading is the caller's, from
// cpu_by_name).
enum Class : size_t { kCpu, kCompute, kComm, kKernelKernel, kLaunch, kNoClass };
constexpr std::array<const char*, 6> kClassNames = {"cpu_bound",
                                                    "gpu_compute_bound",
                                                    "gpu_communication_bound",
                                                    "gpu_kernel_kernel_overhead",
                                                    "gpu_kernel_launch_overhead",
                                                    ""};

struct Span {
  uint64_t start, end;
};

// Every host event whose name holds `annotation`, once each, by start.
std::vector<Span> instances(const RecordSet& r, const std::string& annotation) {
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> found;
  const auto add = [&](uint64_t s, uint64_t e, const std::string& name) {
    if (name.find(annotation) != std::string::npos) found.emplace_back(s, e, name);
  };
  for (const auto& x : r.steps) add(x.start_ns, x.end_ns, x.name);
  for (const auto& x : r.annotations)
    if (!x.gpu) add(x.start_ns, x.end_ns, x.name);
  for (const auto& x : r.ranges) add(x.start_ns, x.end_ns, x.name);
  for (const auto& x : r.cpu_ops) add(x.start_ns, x.end_ns, x.name);
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<Span> out;
  for (const auto& [s, e, name] : found) out.push_back({s, e});
  return out;
}

// The instances' span; {0, 0} when no host event is named with the annotation.
Span window(const RecordSet& r, const std::string& annotation, int64_t first, int64_t last) {
  if (annotation.empty()) {
    const auto [lo, hi] = record_span(r);
    return {lo, hi};
  }
  const std::vector<Span> spans = instances(r, annotation);
  if (spans.empty()) return {0, 0};
  const auto n = static_cast<int64_t>(spans.size());
  if (first < 0 || last < first || last >= n)
    throw std::invalid_argument("critical_path_analysis: instance " + std::to_string(first) +
                                (last != first ? ".." + std::to_string(last) : "") + " of '" +
                                annotation + "': expected 0 to " + std::to_string(n - 1) +
                                ", the first at most the last");
  Span w{UINT64_MAX, 0};
  for (int64_t i = first; i <= last; ++i) {
    w.start = std::min(w.start, spans[static_cast<size_t>(i)].start);
    w.end = std::max(w.end, spans[static_cast<size_t>(i)].end);
  }
  return w;
}

BoundsOptions every_host_event() {
  BoundsOptions o;
  o.host_items = SIZE_MAX;  // data_load_events may name any of them, not the largest alone
  return o;
}

}  // namespace

HtaCriticalPathIndex::HtaCriticalPathIndex(const ImportedTrace& trace)
    : r_(trace.records),
      index_(trace.records),
      bounds_(trace.records, index_, every_host_event()) {}

HtaCriticalPath HtaCriticalPathIndex::operator()(const std::string& annotation, int64_t first,
                                                 int64_t last) const {
  HtaCriticalPath out;
  const Span w = window(r_, annotation, first, last);
  if (w.end <= w.start && !annotation.empty()) return out;
  out.found = true, out.start_ns = w.start, out.end_ns = w.end;
  const StepBounds s = bounds_.window(w.start, w.end);
  const auto at = [&](Bound b) { return s.ns[static_cast<size_t>(b)]; };

  std::array<uint64_t, kClassNames.size()> ns{};
  ns[kCompute] = at(Bound::GpuCompute) + at(Bound::Copies);
  ns[kComm] = at(Bound::Communication);
  ns[kNoClass] = at(Bound::SyncWait);
  ns[kCpu] = at(Bound::PerOpHost) + at(Bound::OtherHost) + at(Bound::Untraced);
  // Queued work the GPU has not started: behind other work while the GPU is behind the host,
  // else waiting on its launch. The short gaps the diagnosis counts in the class around them
  // (R5) move here too.
  const Class queued = s.host_ahead ? kKernelKernel : kLaunch;
  const size_t around = s.host_ahead ? kCompute : kCpu;
  const uint64_t short_gaps = std::min(s.launch_latency_ns, ns[around]);
  ns[around] -= short_gaps;
  ns[queued] += at(Bound::QueuedIdle) + short_gaps;
  for (size_t c = 0; c < ns.size(); ++c)
    if (ns[c]) out.by_class.emplace_back(kClassNames[c], ns[c]);
  for (const HostWait& h : s.host)
    if (h.bound == Bound::PerOpHost || h.bound == Bound::OtherHost)
      out.cpu_by_name.emplace_back(h.name, h.ns);
  return out;
}

}  // namespace trace
