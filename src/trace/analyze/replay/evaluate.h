// Runs a scenario (simulate.h) on one replay graph and measures it over the graph's steps: per
// step its length and critical path, and the total (what_if.h, ScenarioResult).
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

  // The scenario's steps and total, named `name`; measured_ns as recorded, replayed_ns unset.
  ScenarioResult operator()(const Scenario& scenario, const std::string& name) const;

 private:
  // From the first step's start to the later of the last one's end and the end of the GPU
  // work queued inside them; `start`/`duration` recorded or simulated.
  int64_t steps_span(const std::vector<int64_t>& start, const std::vector<int64_t>& duration,
                     const Scenario& s, uint32_t* end_node = nullptr) const;
  // A step measured on no thread: its first start to its last end over every node.
  void whole_span(const Timeline& t, const Scenario& s, StepResult* x) const;

  // Each step's pace (what_if.h StepResult), from `start`/`duration` recorded or simulated.
  std::vector<int64_t> paces(const std::vector<int64_t>& start,
                             const std::vector<int64_t>& duration, const Scenario& s) const;

  const Graph& g_;
  const std::vector<PlacedStep>& steps_;
  std::vector<uint32_t> launched_;         // GPU work queued by calls that started inside a step
  std::vector<uint32_t> launched_by_;      // parallel to launched_: the step (index) it was in
  uint32_t first_ = kNone, last_ = kNone;  // the earliest step start, the latest step end
};

}  // namespace trace::replay
