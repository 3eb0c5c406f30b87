#include "trace/import/common/finish_records.h"

#include <algorithm>

#include "trace/model/id_set.h"

namespace trace {

void settle_steps(RecordSet* r) {
  auto& steps = r->steps;
  std::sort(steps.begin(), steps.end(), [](const StepRecord& a, const StepRecord& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.name < b.name;
  });
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const StepRecord& a, const StepRecord& b) {
                            return a.start_ns == b.start_ns && a.name == b.name;
                          }),
              steps.end());
  if (steps.empty() && !r->step_phase.empty())  // the caller's step phases are the steps
    for (const auto& h : r->ranges)
      if (h.name == r->step_phase) steps.push_back({h.start_ns, h.end_ns, h.name});
  std::sort(steps.begin(), steps.end(),
            [](const StepRecord& a, const StepRecord& b) { return a.start_ns < b.start_ns; });
}

void count_unmatched_correlations(ImportedTrace* t) {
  const RecordSet& r = t->records;
  uint32_t lo = UINT32_MAX, hi = 0;
  const auto range = [&](const auto& records) {
    for (const auto& x : records)
      lo = std::min(lo, x.correlation_id), hi = std::max(hi, x.correlation_id);
  };
  range(r.api), range(r.kernels), range(r.memcpys), range(r.memsets);
  IdSet host(lo, hi, r.api.size()),
      gpu(lo, hi, r.kernels.size() + r.memcpys.size() + r.memsets.size());
  for (const auto& a : r.api) host.insert(a.correlation_id);
  const auto check = [&](uint32_t c) {
    gpu.insert(c);
    if (!host.contains(c)) ++t->unmatched_correlations;
  };
  for (const auto& k : r.kernels) check(k.correlation_id);
  for (const auto& m : r.memcpys) check(m.correlation_id);
  for (const auto& m : r.memsets) check(m.correlation_id);
  for (const auto& a : r.api)
    if (a.kind == ApiKind::Launch && !gpu.contains(a.correlation_id)) ++t->launches_without_gpu;
}

}  // namespace trace
