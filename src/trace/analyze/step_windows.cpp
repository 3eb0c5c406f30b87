#include "trace/analyze/step_windows.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace trace {

namespace {

bool matches(const std::string& range, const std::string& name) {
  if (range == name) return true;
  const size_t colon = range.find(':');  // "domain:text"; "aten::mm" has no domain
  return colon != std::string::npos && colon + 1 < range.size() && range[colon + 1] != ':' &&
         range.compare(colon + 1, std::string::npos, name) == 0;
}

}  // namespace

size_t use_step_ranges(ImportedTrace* t, const std::string& name) {
  RecordSet& r = t->records;
  std::vector<StepWindow> steps;
  for (const auto& o : r.cpu_ops)
    if (matches(o.name, name)) steps.push_back({o.start_ns, o.end_ns, o.name});
  for (const auto& a : r.annotations)
    if (!a.gpu && matches(a.name, name)) steps.push_back({a.start_ns, a.end_ns, a.name});
  for (const auto& h : r.ranges)
    if (matches(h.name, name)) steps.push_back({h.start_ns, h.end_ns, h.name});
  if (steps.empty()) return 0;
  // One step per span: our phases of an Nsight export are ops too, with the same times.
  std::sort(steps.begin(), steps.end(), [](const StepWindow& a, const StepWindow& b) {
    return std::make_pair(a.start_ns, a.end_ns) < std::make_pair(b.start_ns, b.end_ns);
  });
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const StepWindow& a, const StepWindow& b) {
                            return a.start_ns == b.start_ns && a.end_ns == b.end_ns;
                          }),
              steps.end());
  r.steps = std::move(steps);
  auto& w = t->warnings;
  w.erase(std::remove_if(w.begin(), w.end(),
                         [](const std::string& s) { return s.rfind("no ProfilerStep", 0) == 0; }),
          w.end());
  w.push_back("steps: the " + std::to_string(r.steps.size()) + " ranges named " + name +
              " (--step-range)");
  return r.steps.size();
}

}  // namespace trace
