#include "trace/analyze/launch_queue.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

namespace trace {
namespace {

void sort_if_needed(std::vector<uint64_t>* v) {
  if (!std::is_sorted(v->begin(), v->end())) std::sort(v->begin(), v->end());
}

// The smallest depth d with time(depth <= d) >= share of the window.
uint32_t time_percentile(const std::vector<uint64_t>& time_at, uint64_t window, double share) {
  const double need = share * static_cast<double>(window);
  uint64_t cumulative = 0;
  for (size_t d = 0; d < time_at.size(); ++d) {
    cumulative += time_at[d];
    if (static_cast<double>(cumulative) >= need) return static_cast<uint32_t>(d);
  }
  return time_at.empty() ? 0 : static_cast<uint32_t>(time_at.size() - 1);
}

size_t count_upto(const std::vector<uint64_t>& v, uint64_t t) {  // elements <= t
  return static_cast<size_t>(std::upper_bound(v.begin(), v.end(), t) - v.begin());
}

}  // namespace

const char* to_string(Regime r) {
  switch (r) {
    case Regime::LaunchBound:
      return "launch-bound";
    case Regime::GpuBound:
      return "GPU-bound";
    case Regime::Mixed:
      return "mixed";
    case Regime::NoGpuWork:
      break;
  }
  return "no GPU work";
}

Regime regime_of(const std::vector<GpuQueue>& gpus, const QueueOptions& o) {
  const GpuQueue* busiest = nullptr;
  for (const auto& g : gpus) {
    if (!g.pieces || !g.depth.window_ns) continue;
    if (!busiest || g.depth.empty_share() < busiest->depth.empty_share()) busiest = &g;
  }
  if (!busiest) return Regime::NoGpuWork;
  const double empty = busiest->depth.empty_share();
  if (empty >= o.launch_bound_empty_share) return Regime::LaunchBound;
  if (empty < o.gpu_bound_empty_share && busiest->depth.p50 >= o.gpu_bound_median_depth)
    return Regime::GpuBound;
  return Regime::Mixed;
}

LaunchQueue::LaunchQueue(const std::vector<Work>& work, const QueueOptions& options)
    : options_(options) {
  // Lanes per (device, stream), filled in the order given (the attribution's: by start, so
  // each stream's times come nearly sorted).
  std::map<std::pair<uint32_t, uint32_t>, size_t> lane_of;
  std::vector<std::vector<const Work*>> pieces;
  size_t last = SIZE_MAX;  // work comes in runs of one stream: the map is asked once per run
  for (const Work& w : work) {
    if (last == SIZE_MAX || streams_[last].device != w.device ||
        streams_[last].stream != w.stream) {
      auto [it, added] = lane_of.try_emplace({w.device, w.stream}, streams_.size());
      if (added) {
        streams_.push_back({w.device, w.stream, {}, {}});
        pieces.emplace_back();
      }
      last = it->second;
    }
    Lane& lane = streams_[last];
    lane.enter.push_back(w.has_call ? std::min(w.call_end, w.start) : w.start);
    lane.leave.push_back(std::max(w.end, w.start));
    pieces[last].push_back(&w);
  }
  // Map order: streams by (device, stream); their pieces follow.
  std::vector<Lane> sorted;
  std::vector<std::vector<const Work*>> sorted_pieces;
  for (const auto& [key, i] : lane_of) {
    sorted.push_back(std::move(streams_[i]));
    sorted_pieces.push_back(std::move(pieces[i]));
  }
  streams_.swap(sorted);
  for (Lane& s : streams_) {
    sort_if_needed(&s.enter);
    sort_if_needed(&s.leave);
  }

  // A GPU's lane: its streams' merged.
  for (const Lane& s : streams_) {
    if (gpus_.empty() || gpus_.back().device != s.device) gpus_.push_back({s.device, 0, {}, {}});
    Lane& g = gpus_.back();
    for (auto [to, from] :
         {std::make_pair(&g.enter, &s.enter), std::make_pair(&g.leave, &s.leave)}) {
      const size_t mid = to->size();
      to->insert(to->end(), from->begin(), from->end());
      std::inplace_merge(to->begin(), to->begin() + static_cast<std::ptrdiff_t>(mid), to->end());
    }
  }

  // Calls made into a full stream queue; a stream with fewer pieces than that never fills.
  for (size_t k = 0; k < streams_.size(); ++k) {
    const Lane& s = streams_[k];
    const size_t full = options_.max_queue - std::min(options_.full_within, options_.max_queue);
    if (s.enter.size() < full) continue;
    for (const Work* w : sorted_pieces[k]) {
      if (!w->has_call) continue;
      const size_t depth = count_upto(s.enter, w->call_start) - count_upto(s.leave, w->call_start);
      if (depth >= full)
        full_calls_.push_back({w->call_start, w->call_end - w->call_start, s.device});
    }
  }
  std::stable_sort(full_calls_.begin(), full_calls_.end(),
                   [](const FullCall& a, const FullCall& b) { return a.start < b.start; });
}

QueueDepth LaunchQueue::depth_over(const Lane& lane, uint64_t w0, uint64_t w1) {
  QueueDepth d;
  if (w1 <= w0) return d;
  d.window_ns = w1 - w0;
  size_t i = count_upto(lane.enter, w0), j = count_upto(lane.leave, w0);
  std::vector<uint64_t> time_at;  // by depth
  uint64_t cursor = w0;
  const auto stay = [&](uint64_t until) {
    const size_t depth = i - j;
    if (time_at.size() <= depth) time_at.resize(depth + 1);
    time_at[depth] += until - cursor;
    d.max = std::max<uint32_t>(d.max, static_cast<uint32_t>(depth));
    cursor = until;
  };
  const uint64_t kNever = UINT64_MAX;
  while (true) {
    const uint64_t next_in = i < lane.enter.size() ? lane.enter[i] : kNever;
    const uint64_t next_out = j < lane.leave.size() ? lane.leave[j] : kNever;
    const uint64_t next = std::min(next_in, next_out);
    if (next >= w1) break;
    stay(next);
    while (i < lane.enter.size() && lane.enter[i] == next) ++i;
    while (j < lane.leave.size() && lane.leave[j] == next) ++j;
  }
  stay(w1);
  d.empty_ns = time_at.empty() ? 0 : time_at[0];
  d.p50 = time_percentile(time_at, d.window_ns, 0.5);
  d.p90 = time_percentile(time_at, d.window_ns, 0.9);
  return d;
}

QueueFigures LaunchQueue::figures(uint64_t w0, uint64_t w1, bool streams) const {
  QueueFigures f;
  for (const Lane& g : gpus_) {
    GpuQueue q;
    q.device = g.device;
    q.depth = depth_over(g, w0, w1);
    // Pieces in the queue at some time in [w0, w1]: entered by w1, not left before w0.
    q.pieces =
        count_upto(g.enter, w1) -
        static_cast<size_t>(std::lower_bound(g.leave.begin(), g.leave.end(), w0) - g.leave.begin());
    f.gpus.push_back(q);
  }
  auto c = std::partition_point(full_calls_.begin(), full_calls_.end(),
                                [&](const FullCall& x) { return x.start < w0; });
  for (; c != full_calls_.end() && c->start <= w1; ++c)
    for (auto& q : f.gpus)
      if (q.device == c->device) ++q.full_queue_calls, q.full_queue_ns += c->ns;
  if (streams)
    for (const Lane& s : streams_) f.streams.push_back({s.device, s.stream, depth_over(s, w0, w1)});
  f.regime = regime_of(f.gpus, options_);
  return f;
}

uint64_t LaunchQueue::depth_at(uint64_t t) const {
  uint64_t depth = 0;
  for (const Lane& g : gpus_) depth += count_upto(g.enter, t) - count_upto(g.leave, t);
  return depth;
}

uint64_t LaunchQueue::pieces() const {
  uint64_t n = 0;
  for (const Lane& g : gpus_) n += g.enter.size();
  return n;
}

uint64_t LaunchQueue::finished_between(uint64_t a, uint64_t b) const {
  uint64_t n = 0;
  if (b <= a) return 0;
  for (const Lane& g : gpus_) n += count_upto(g.leave, b) - count_upto(g.leave, a);
  return n;
}

std::vector<LaunchQueue::DepthSeries> LaunchQueue::series(uint64_t w0, uint64_t w1,
                                                          size_t max_points) const {
  std::vector<DepthSeries> out;
  if (w1 <= w0) return out;
  for (const Lane& g : gpus_) {
    DepthSeries s;
    s.device = g.device;
    size_t i = count_upto(g.enter, w0), j = count_upto(g.leave, w0);
    s.t.push_back(w0);
    s.depth.push_back(static_cast<uint32_t>(i - j));
    while (true) {
      const uint64_t next_in = i < g.enter.size() ? g.enter[i] : UINT64_MAX;
      const uint64_t next_out = j < g.leave.size() ? g.leave[j] : UINT64_MAX;
      const uint64_t next = std::min(next_in, next_out);
      if (next >= w1) break;
      while (i < g.enter.size() && g.enter[i] == next) ++i;
      while (j < g.leave.size() && g.leave[j] == next) ++j;
      const auto depth = static_cast<uint32_t>(i - j);
      if (depth == s.depth.back()) continue;  // as many in as out at that instant
      if (s.t.size() >= max_points) {
        s.truncated = true;
        break;
      }
      s.t.push_back(next);
      s.depth.push_back(depth);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace trace
