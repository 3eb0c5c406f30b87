#include "trace/analyze/replay/evaluate.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace trace::replay {

namespace {

std::vector<Bound> bounds(const Graph& g, const std::vector<Share>& shares) {
  std::vector<Bound> out;
  for (const Share& s : shares) out.push_back({g.resources[s.resource].label(), s.ns});
  return out;
}

void add_share(std::vector<Bound>* b, const std::string& resource, int64_t ns) {
  auto it =
      std::find_if(b->begin(), b->end(), [&](const Bound& x) { return x.resource == resource; });
  if (it == b->end())
    b->push_back({resource, ns});
  else
    it->ns += ns;
  std::stable_sort(b->begin(), b->end(),
                   [](const Bound& x, const Bound& y) { return x.ns > y.ns; });
}

}  // namespace

Evaluator::Evaluator(const ReplayGraph& replay) : g_(replay.graph), steps_(replay.steps) {
  const Graph& g = g_;
  // The GPU work queued from inside the steps (by a call that started in one): the total
  // runs until it is done, so a what-if that lets the CPU run ahead of a busy GPU is not
  // credited with work the GPU still has to do.
  struct Open {
    int64_t start, end;
    uint32_t step;
    bool operator<(const Open& o) const { return start != o.start ? start < o.start : end < o.end; }
  };
  std::vector<Open> spans;
  for (uint32_t i = 0; i < steps_.size(); ++i)
    if (steps_[i].nodes.open != kNone)
      spans.push_back({g.observed[steps_[i].nodes.open], g.observed[steps_[i].nodes.close], i});
  std::sort(spans.begin(), spans.end());
  for (uint32_t v = 0; v < g.host_count; ++v) {
    const uint32_t a = g.node_call[v];
    if (a == kNone || g.call_gpu_begin[a] == g.call_gpu_begin[a + 1]) continue;
    auto w = std::upper_bound(spans.begin(), spans.end(), Open{g.observed[v], INT64_MAX, 0});
    if (w == spans.begin() || std::prev(w)->end < g.observed[v]) continue;
    for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k) {
      launched_.push_back(g.call_gpu[k]);
      launched_by_.push_back(std::prev(w)->step);
    }
  }
  for (const PlacedStep& w : steps_) {
    if (w.nodes.open == kNone) continue;
    if (first_ == kNone || g.observed[w.nodes.open] < g.observed[first_]) first_ = w.nodes.open;
    if (last_ == kNone || g.observed[w.nodes.close] > g.observed[last_]) last_ = w.nodes.close;
  }
}

int64_t Evaluator::steps_span(const std::vector<int64_t>& start,
                              const std::vector<int64_t>& duration, const Scenario& s,
                              uint32_t* end_node) const {
  int64_t end = start[last_];
  uint32_t at = last_;
  for (uint32_t v : launched_)
    if (!(s.flag(v) & kRemoved) && start[v] + duration[v] > end)
      end = start[v] + duration[v], at = v;
  if (end_node) *end_node = at;
  return end - start[first_];
}

std::vector<int64_t> Evaluator::paces(const std::vector<int64_t>& start,
                                      const std::vector<int64_t>& duration,
                                      const Scenario& s) const {
  // When each step is done: its end on its thread, or the end of its GPU work if later.
  std::vector<int64_t> done(steps_.size(), INT64_MIN);
  for (size_t i = 0; i < steps_.size(); ++i)
    if (steps_[i].nodes.in_graph()) done[i] = start[steps_[i].nodes.close];
  for (size_t k = 0; k < launched_.size(); ++k) {
    const uint32_t v = launched_[k];
    if (!(s.flag(v) & kRemoved))
      done[launched_by_[k]] = std::max(done[launched_by_[k]], start[v] + duration[v]);
  }
  std::vector<int64_t> out(steps_.size(), 0);
  int64_t before = INT64_MIN;  // the previous step's end of work
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (!steps_[i].nodes.in_graph()) continue;
    const int64_t from = before == INT64_MIN ? start[steps_[i].nodes.open] : before;
    out[i] = std::max<int64_t>(0, done[i] - from);
    before = std::max(before, done[i]);
  }
  return out;
}

void Evaluator::whole_span(const Timeline& t, const Scenario& s, StepResult* x) const {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  uint32_t last = kNone;
  for (uint32_t v = 0; v < g_.size(); ++v) {
    if (t.removed(v, s) || t.start[v] == kNowhere) continue;
    lo = std::min(lo, t.start[v]);
    if (t.start[v] + t.duration[v] > hi) hi = t.start[v] + t.duration[v], last = v;
  }
  if (last == kNone) return;
  x->predicted_ns = hi - lo;
  x->bound = bounds(g_, critical_path(g_, t, last, lo));
  // The last node's own work is not on the walk (it ends the path).
  if (t.duration[last])
    add_share(&x->bound, g_.resources[g_.resource[last]].label(), t.duration[last]);
}

ScenarioResult Evaluator::operator()(const Scenario& s, const std::string& name) const {
  const Timeline t = simulate(g_, s);
  ScenarioResult out;
  out.name = name;
  const std::vector<int64_t> measured = paces(g_.observed, g_.duration, Scenario{}),
                             predicted = paces(t.start, t.duration, s);
  for (size_t i = 0; i < steps_.size(); ++i) {
    const PlacedStep& w = steps_[i];
    StepResult x;
    x.measured_pace_ns = measured[i], x.predicted_pace_ns = predicted[i];
    x.name = w.step.name;
    x.measured_ns = static_cast<int64_t>(w.step.end_ns - w.step.start_ns);
    if (w.nodes.in_graph()) {
      x.predicted_ns = t.start[w.nodes.close] - t.start[w.nodes.open];
      x.bound = bounds(g_, critical_path(g_, t, w.nodes.close, t.start[w.nodes.open]));
    } else {
      whole_span(t, s, &x);  // the whole trace, or a step on no known thread
      x.measured_pace_ns = x.measured_ns, x.predicted_pace_ns = x.predicted_ns;
    }
    out.total.measured_ns += x.measured_ns;
    out.total.predicted_ns += x.predicted_ns;
    out.steps.push_back(std::move(x));
  }
  const bool whole_trace = steps_.size() == 1 && steps_[0].nodes.open == kNone;
  out.total.name = whole_trace ? "whole trace" : "total";
  if (whole_trace) out.total.bound = out.steps[0].bound;
  if (first_ != kNone && last_ != kNone) {
    out.total.measured_ns = steps_span(g_.observed, g_.duration, Scenario{});
    uint32_t end = kNone;
    out.total.predicted_ns = steps_span(t.start, t.duration, s, &end);
    out.total.bound = bounds(g_, critical_path(g_, t, end, t.start[first_]));
    if (t.duration[end])
      add_share(&out.total.bound, g_.resources[g_.resource[end]].label(), t.duration[end]);
  }
  out.total.measured_pace_ns = out.total.measured_ns;
  out.total.predicted_pace_ns = out.total.predicted_ns;
  return out;
}

}  // namespace trace::replay
