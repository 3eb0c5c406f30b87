// Runs a scenario (simulate.h) on one replay graph and measures it over the graph's windows: per
// window its length and critical path, and the total (what_if.h, ScenarioResult).
#pragma once

#include <string>
#include <vector>

#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/simulate.h"
#include "trace/analyze/replay/what_if.h"

namespace trace::replay {

class Evaluator {
 public:
  explicit Evaluator(const ReplayGraph& replay);

  // The scenario's windows and total, named `name`; measured_ns as recorded, replayed_ns unset.
  ScenarioResult operator()(const Scenario& scenario, const std::string& name) const;

 private:
  // From the first window's start to the later of the last one's end and the end of the GPU
  // work queued inside them; `start`/`duration` recorded or simulated.
  int64_t steps_span(const std::vector<int64_t>& start, const std::vector<int64_t>& duration,
                     const Scenario& s, uint32_t* end_node = nullptr) const;
  // A window measured on no thread: its first start to its last end over every node.
  void whole_span(const Timeline& t, const Scenario& s, WindowResult* x) const;

  // Each window's pace (what_if.h WindowResult), from `start`/`duration` recorded or simulated.
  std::vector<int64_t> paces(const std::vector<int64_t>& start,
                             const std::vector<int64_t>& duration, const Scenario& s) const;

  const Graph& g_;
  const std::vector<PlacedWindow>& windows_;
  std::vector<uint32_t> launched_;         // GPU work queued by calls that started inside a window
  std::vector<uint32_t> launched_by_;      // parallel to launched_: the window (index) it was in
  uint32_t first_ = kNone, last_ = kNone;  // the earliest window start, the latest window end
};

}  // namespace trace::replay
