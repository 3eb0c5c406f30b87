#include "trace/analyze/kernel_times.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace trace {
namespace {

TimeStats stats_of(std::vector<uint64_t>* v) {
  TimeStats s;
  if (v->empty()) return s;
  std::sort(v->begin(), v->end());
  s.count = v->size();
  for (uint64_t x : *v) s.total_ns += x;
  s.min_ns = v->front(), s.max_ns = v->back();
  const size_t mid = v->size() / 2;
  s.median_ns = v->size() % 2
                    ? static_cast<double>((*v)[mid])
                    : (static_cast<double>((*v)[mid - 1]) + static_cast<double>((*v)[mid])) / 2;
  return s;
}

}  // namespace

KernelTimesTable kernel_times(const RecordSet& r, const AttributionIndex& index) {
  struct Times {
    std::vector<uint64_t> api, queue, kernel;
  };
  KernelTimesTable out;
  std::unordered_map<std::string_view, Times> by_name;
  for (const auto& g : index.gpu_work()) {
    if (g.kind != GpuWorkKind::Kernel) continue;
    if (!g.has_call) {
      ++out.kernels_without_call;
      continue;
    }
    Times& t = by_name[kernel_name(r, r.kernels[g.index])];
    t.api.push_back(g.call_end - g.call_start);
    if (g.start > g.call_end) t.queue.push_back(g.start - g.call_end);
    t.kernel.push_back(g.end - g.start);
  }
  for (auto& [name, t] : by_name)
    out.by_name.push_back(
        {std::string(name), stats_of(&t.api), stats_of(&t.queue), stats_of(&t.kernel)});
  std::sort(out.by_name.begin(), out.by_name.end(), [](const KernelTimes& a, const KernelTimes& b) {
    return a.kernel.total_ns != b.kernel.total_ns ? a.kernel.total_ns > b.kernel.total_ns
                                                  : a.name < b.name;
  });
  return out;
}

}  // namespace trace
