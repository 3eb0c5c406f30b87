#include "trace/analyze/replay/accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace trace::replay {

void replay_errors(const ScenarioResult& s, bool has_steps, double* median, double* max,
                   bool* met) {
  std::vector<double> e;
  for (const StepResult& w : s.steps)
    if (w.measured_ns > 0)
      e.push_back(std::fabs(static_cast<double>(w.predicted_ns - w.measured_ns)) /
                  static_cast<double>(w.measured_ns));
  if (e.empty()) return;
  std::sort(e.begin(), e.end());
  const size_t m = e.size() / 2;
  *median = e.size() % 2 ? e[m] : (e[m - 1] + e[m]) / 2;
  *max = e.back();
  *met = has_steps ? *median <= 0.02 && *max <= 0.05 : *max <= 0.05;
}

std::vector<ExcessDelay> excess_delays(const Graph& g) {
  std::vector<int64_t> excess(g.typical.size(), 0);
  std::vector<uint64_t> count(g.typical.size(), 0);
  for (const Edge& e : g.in) {
    const size_t k = static_cast<size_t>(e.kind);
    if (!is_delay(e.kind) || e.from == kNone || g.typical[k] == INT64_MAX ||
        e.delay <= g.typical[k])
      continue;
    excess[k] += e.delay - g.typical[k], ++count[k];
  }
  std::vector<ExcessDelay> out;
  for (size_t k = 0; k < excess.size(); ++k)
    if (excess[k] > 0) out.push_back({static_cast<EdgeKind>(k), count[k], g.typical[k], excess[k]});
  return out;
}

}  // namespace trace::replay
