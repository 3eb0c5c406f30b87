#include "trace/analyze/steps_from_ranges.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "trace/analyze/step_bounds.h"

namespace trace {

bool range_name_matches(const std::string& range, const std::string& name) {
  if (range == name) return true;
  // "IO #": a range the program numbers, as the diagnosis names it (step_bounds.h).
  if (name.find('#') != std::string::npos && counters_as_hash(range) == name) return true;
  // "Torch-Compiled Region: 0/1": torch.compile's frame and compile ids after the name.
  if (range.size() > name.size() + 2 && range.compare(0, name.size(), name) == 0 &&
      range.compare(name.size(), 2, ": ") == 0)
    return true;
  const size_t colon = range.find(':');  // "domain:text"; "aten::mm" has no domain
  return colon != std::string::npos && colon + 1 < range.size() && range[colon + 1] != ':' &&
         range.compare(colon + 1, std::string::npos, name) == 0;
}

namespace {

struct Found {
  uint64_t start_ns, end_ns;
  uint32_t thread;
  const std::string* name;
};

// Every host range, op and annotation named `name`, by start, then end.
std::vector<Found> find_ranges(const RecordSet& r, const std::string& name) {
  std::vector<Found> out;
  for (const auto& o : r.cpu_ops)
    if (range_name_matches(o.name, name))
      out.push_back({o.start_ns, o.end_ns, o.thread_id, &o.name});
  for (const auto& a : r.annotations)
    if (!a.gpu && range_name_matches(a.name, name))
      out.push_back({a.start_ns, a.end_ns, a.thread_id, &a.name});
  for (const auto& h : r.ranges)
    if (range_name_matches(h.name, name))
      out.push_back({h.start_ns, h.end_ns, h.thread_id, &h.name});
  std::sort(out.begin(), out.end(), [](const Found& a, const Found& b) {
    return std::make_pair(a.start_ns, a.end_ns) < std::make_pair(b.start_ns, b.end_ns);
  });
  return out;
}

void replace_steps(ImportedTrace* t, std::vector<StepRecord> steps, const std::string& why) {
  t->records.steps = std::move(steps);
  auto& w = t->warnings;
  w.erase(std::remove_if(w.begin(), w.end(),
                         [](const std::string& s) { return s.rfind("no ProfilerStep", 0) == 0; }),
          w.end());
  w.push_back("steps: " + why);
}

}  // namespace

size_t use_step_ranges(ImportedTrace* t, const std::string& name) {
  std::vector<StepRecord> steps;
  for (const Found& f : find_ranges(t->records, name))
    steps.push_back({f.start_ns, f.end_ns, *f.name, f.thread});
  if (steps.empty()) return 0;
  // One step per span: our phases of an Nsight export are ops too, with the same times.
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const StepRecord& a, const StepRecord& b) {
                            return a.start_ns == b.start_ns && a.end_ns == b.end_ns;
                          }),
              steps.end());
  const size_t n = steps.size();
  replace_steps(t, std::move(steps),
                "the " + std::to_string(n) + " ranges named " + name + " (--step-range)");
  return n;
}

size_t use_step_starts(ImportedTrace* t, const std::string& name, uint32_t every) {
  const RecordSet& r = t->records;
  std::vector<Found> found = find_ranges(r, name);
  if (found.empty() || every == 0) return 0;
  const uint32_t thread = found.front().thread;
  std::vector<uint64_t> starts;
  uint64_t seen = 0, last = 0;
  for (const Found& f : found) {
    if (f.thread != thread || (seen && f.start_ns == last)) continue;  // one per start
    if (seen++ % every == 0) starts.push_back(f.start_ns);
    last = f.start_ns;
  }
  // The last step ends with the last of its thread's ranges and ops that start in it.
  uint64_t end = starts.back();
  const auto reach = [&](uint64_t s, uint64_t e, uint32_t th) {
    if (th == thread && s >= starts.back()) end = std::max(end, e);
  };
  for (const auto& o : r.cpu_ops) reach(o.start_ns, o.end_ns, o.thread_id);
  for (const auto& a : r.annotations)
    if (!a.gpu) reach(a.start_ns, a.end_ns, a.thread_id);
  for (const auto& h : r.ranges) reach(h.start_ns, h.end_ns, h.thread_id);
  std::vector<StepRecord> steps;
  for (size_t i = 0; i < starts.size(); ++i)
    steps.push_back({starts[i], i + 1 < starts.size() ? starts[i + 1] : end,
                     "step " + std::to_string(i + 1), thread});
  const size_t n = steps.size();
  replace_steps(t, std::move(steps),
                "the " + std::to_string(n) + " stretches from one start of " + name +
                    (every > 1 ? " (one in every " + std::to_string(every) + ")" : "") +
                    " to the next (--step-starts)");
  return n;
}

}  // namespace trace
