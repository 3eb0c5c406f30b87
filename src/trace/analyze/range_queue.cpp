#include "trace/analyze/range_queue.h"

#include <algorithm>
#include <vector>

#include "trace/analyze/attribution.h"
#include "trace/analyze/launch_queue.h"

namespace trace {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

RangeQueueSummary summarize_queue(const RecordSet& records, const std::string& range) {
  RangeQueueSummary s;
  const LaunchQueue queue = AttributionIndex(records).launch_queue();
  std::vector<double> empty, p50, p90;
  for (const HostRange& h : records.ranges) {
    if (h.name != range) continue;
    const QueueFigures f = queue.figures(h.start_ns, h.end_ns);
    ++s.ranges;
    ++s.by_regime[static_cast<size_t>(f.regime)];
    const GpuQueue* busiest = nullptr;  // as regime_of picks it
    for (const GpuQueue& g : f.gpus) {
      s.depth_max = std::max(s.depth_max, g.depth.max);
      s.full_queue_calls += g.full_queue_calls;
      if (!g.pieces || !g.depth.window_ns) continue;
      if (!busiest || g.depth.empty_share() < busiest->depth.empty_share()) busiest = &g;
    }
    empty.push_back(busiest ? busiest->depth.empty_share() : 1.0);
    p50.push_back(busiest ? busiest->depth.p50 : 0);
    p90.push_back(busiest ? busiest->depth.p90 : 0);
  }
  s.empty_share_median = median(empty);
  s.depth_p50_median = median(p50);
  s.depth_p90_median = median(p90);
  return s;
}

}  // namespace trace
