#include "trace/analyze/attribution.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "trace/model/correlation_index.h"
#include "trace/model/sorted_order.h"

namespace trace {
namespace {

Distribution distribution(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  const auto pct = [&](double p) {  // nearest-rank percentile
    const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  d.count = v.size();
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  d.min = v.front();
  d.max = v.back();
  d.p50 = pct(50);
  d.p90 = pct(90);
  d.p99 = pct(99);
  return d;
}

// Host ranges by thread, for "which range was open on this thread at time t".
class PhaseLookup {
 public:
  PhaseLookup(const std::vector<const HostRange*>& ranges, const std::string& step_phase) {
    std::map<uint32_t, size_t> steps_by_thread;
    for (const HostRange* h : ranges) {
      by_thread_[h->thread_id].push_back(h);
      if (!step_phase.empty() && h->name == step_phase) ++steps_by_thread[h->thread_id];
    }
    // By start, outer before inner at equal starts, so the walk back meets the inner first.
    for (auto& [thread, list] : by_thread_)
      std::stable_sort(list.begin(), list.end(), [](auto* x, auto* y) {
        return x->start_ns != y->start_ns ? x->start_ns < y->start_ns : x->depth < y->depth;
      });
    // The recording thread: the one holding the step phases, else the one with the most ranges.
    const auto& pool = steps_by_thread.empty() ? count_by_thread() : steps_by_thread;
    size_t best = 0;
    for (const auto& [thread, n] : pool)
      if (n > best) best = n, recording_thread_ = thread;
  }

  // The innermost range containing t on `thread`; a thread with no ranges at all borrows the
  // recording thread's. nullptr when no range holds t.
  const HostRange* innermost(uint32_t thread, uint64_t t) const {
    auto it = by_thread_.find(thread);
    if (it == by_thread_.end()) it = by_thread_.find(recording_thread_);
    if (it == by_thread_.end()) return nullptr;
    const auto& list = it->second;
    // The innermost range containing t has the latest start among those containing t.
    auto pos = std::upper_bound(list.begin(), list.end(), t,
                                [](uint64_t v, auto* h) { return v < h->start_ns; });
    while (pos != list.begin()) {
      const HostRange* h = *--pos;
      if (h->end_ns >= t) return h;
      if (h->depth == 0)
        return nullptr;  // outermost ranges of one thread are disjoint: none earlier holds t
    }
    return nullptr;
  }

 private:
  std::map<uint32_t, size_t> count_by_thread() const {
    std::map<uint32_t, size_t> n;
    for (const auto& [thread, list] : by_thread_) n[thread] = list.size();
    return n;
  }
  std::map<uint32_t, std::vector<const HostRange*>> by_thread_;
  uint32_t recording_thread_ = 0;
};

}  // namespace

AttributionIndex::AttributionIndex(const RecordSet& r) : r_(r) {
  const auto see = [&](uint64_t s, uint64_t e) { lo_ = std::min(lo_, s), hi_ = std::max(hi_, e); };

  const CallOrder order = order_calls(r.api);
  const auto copies = copies_by_correlation(r);
  calls_.reserve(r.api.size());
  for (uint32_t i : order.by_start) {
    const ApiRecord& x = r.api[i];
    see(x.start_ns, x.end_ns);
    const auto copy = x.kind == ApiKind::Memcpy ? copies.find(x.correlation_id) : copies.end();
    const Blocking b = blocking_kind(x, copy == copies.end() ? nullptr : &r.memcpys[copy->second]);
    calls_.push_back({x.start_ns, x.end_ns, x.kind, b, !order.nested_driver[i]});
  }

  // GPU work with the host call that queued it: the first call (in record order) with its
  // correlation id.
  CorrelationIndex by_correlation(r.api.size(), [&](size_t i) { return r.api[i].correlation_id; });
  gpu_.reserve(r.kernels.size() + r.memcpys.size() + r.memsets.size());
  const auto add = [&](uint64_t start, uint64_t end, uint32_t correlation, uint32_t index,
                       GpuWorkKind kind) {
    see(start, end);
    GpuWork g{start, end, 0, 0, index, 0, kind, false};
    if (const uint32_t* c = by_correlation.find(correlation)) {
      const ApiRecord& call = r.api[*c];
      g.call_start = call.start_ns, g.call_end = call.end_ns, g.call_thread = call.thread_id,
      g.has_call = true;
    }
    gpu_.push_back(g);
  };
  for (uint32_t i = 0; i < r.kernels.size(); ++i)
    add(r.kernels[i].start_ns, r.kernels[i].end_ns, r.kernels[i].correlation_id, i,
        GpuWorkKind::Kernel);
  for (uint32_t i = 0; i < r.memcpys.size(); ++i)
    add(r.memcpys[i].start_ns, r.memcpys[i].end_ns, r.memcpys[i].correlation_id, i,
        GpuWorkKind::Memcpy);
  for (uint32_t i = 0; i < r.memsets.size(); ++i)
    add(r.memsets[i].start_ns, r.memsets[i].end_ns, r.memsets[i].correlation_id, i,
        GpuWorkKind::Memset);
  // By start; equal starts keep the order above (kernels, copies, memsets, each as recorded).
  const std::vector<uint32_t> gpu_order = sorted_order(
      gpu_.size(), [&](size_t i) { return std::make_pair(gpu_[i].start, uint64_t{0}); });
  std::vector<GpuWork> sorted(gpu_.size());
  for (size_t i = 0; i < gpu_order.size(); ++i) sorted[i] = gpu_[gpu_order[i]];
  gpu_.swap(sorted);

  for (const auto& h : r.ranges) see(h.start_ns, h.end_ns);
  ranges_ = sorted_order(
      r.ranges.size(), [&](size_t i) { return std::make_pair(r.ranges[i].start_ns, uint64_t{0}); });
}

Attribution AttributionIndex::attribute(const AttributionOptions& options, uint64_t ranges_from,
                                        uint64_t ranges_to) const {
  Attribution a;
  a.dropped_records = r_.dropped_records;
  const std::vector<const HostRange*> ranges = select_ranges(ranges_from, ranges_to);
  choose_window(options, ranges, &a);
  const uint64_t w0 = a.window_start_ns, w1 = w0 + a.window_ns;
  add_host_calls(w0, w1, &a);
  // GPU work starting in the window, in start order.
  const auto g0 = std::partition_point(gpu_.begin(), gpu_.end(),
                                       [&](const GpuWork& x) { return x.start < w0; });
  const auto g1 =
      std::partition_point(g0, gpu_.end(), [&](const GpuWork& x) { return x.start <= w1; });
  add_gpu_work(g0, g1, &a);
  add_gpu_idle(g0, g1, options.kernel_wait_threshold_ns, &a);
  add_phases(ranges, g0, g1, &a);
  return a;
}

// The host ranges that start in [from, to] and end by `to`, by start.
std::vector<const HostRange*> AttributionIndex::select_ranges(uint64_t from, uint64_t to) const {
  std::vector<const HostRange*> ranges;
  auto it = std::partition_point(ranges_.begin(), ranges_.end(),
                                 [&](uint32_t i) { return r_.ranges[i].start_ns < from; });
  for (; it != ranges_.end() && r_.ranges[*it].start_ns <= to; ++it)
    if (r_.ranges[*it].end_ns <= to) ranges.push_back(&r_.ranges[*it]);
  return ranges;
}

// The window (attribution.h): the one asked for, else the step phases' span, else every record's.
void AttributionIndex::choose_window(const AttributionOptions& options,
                                     const std::vector<const HostRange*>& ranges,
                                     Attribution* a) const {
  uint64_t e0 = UINT64_MAX, e1 = 0;
  if (!r_.step_phase.empty())
    for (const HostRange* h : ranges)
      if (h->name == r_.step_phase)
        ++a->steps, e0 = std::min(e0, h->start_ns), e1 = std::max(e1, h->end_ns);
  uint64_t w0 = 0, w1 = 0;
  if (options.window)
    std::tie(w0, w1) = *options.window;
  else if (a->steps)
    w0 = e0, w1 = e1;
  else if (lo_ <= hi_)
    w0 = lo_, w1 = hi_;
  a->window_start_ns = w0, a->window_ns = w1 - w0;
}

// Host calls starting in the window: launches, copies, and the calls that block (by why).
void AttributionIndex::add_host_calls(uint64_t w0, uint64_t w1, Attribution* a) const {
  auto c = std::partition_point(calls_.begin(), calls_.end(),
                                [&](const HostCall& x) { return x.start < w0; });
  for (; c != calls_.end() && c->start <= w1; ++c) {
    if (!c->counted) continue;
    const uint64_t d = c->end - c->start;
    if (c->kind == ApiKind::Launch) ++a->launches, a->launch_api_ns += d;
    if (c->kind == ApiKind::Memcpy) a->memcpy_api_ns += d;
    switch (c->blocking) {
      case Blocking::Sync:
        ++a->syncs, a->sync_api_ns += d;
        break;
      case Blocking::CopyNotAsync:
        ++a->copies_not_async, a->copy_not_async_ns += d;
        break;
      case Blocking::CopyPageable:
        ++a->copies_pageable, a->copy_pageable_ns += d;
        break;
      case Blocking::No:
        if (c->kind == ApiKind::Memcpy) ++a->nonblocking_copies, a->nonblocking_copy_ns += d;
        break;
    }
  }
  a->blocking_copies = a->copies_not_async + a->copies_pageable;
  a->blocking_copy_ns = a->copy_not_async_ns + a->copy_pageable_ns;
  a->blocked_ns = a->sync_api_ns + a->blocking_copy_ns;
}

// Kernels, copies (by direction and host memory) and memsets, and each kernel's launch delay.
void AttributionIndex::add_gpu_work(GpuIter g0, GpuIter g1, Attribution* a) const {
  std::vector<double> delays;
  for (auto g = g0; g != g1; ++g) {
    const uint64_t d = g->end - g->start;
    if (g->kind == GpuWorkKind::Kernel) {
      ++a->kernels;
      a->kernel_ns += d;
      if (g->has_call)
        delays.push_back(static_cast<double>(g->start) - static_cast<double>(g->call_end));
    } else if (g->kind == GpuWorkKind::Memcpy) {
      const MemcpyRecord& m = r_.memcpys[g->index];
      ++a->memcpys;
      a->memcpy_gpu_ns += d;
      const MemoryKind host = m.kind == CopyKind::HtoD   ? m.src
                              : m.kind == CopyKind::DtoH ? m.dst
                                                         : MemoryKind::Device;
      auto& s = a->memcpy_by_kind[std::string(to_string(m.kind)) + " " + to_string(host)];
      ++s.count, s.bytes += m.bytes, s.gpu_ns += d;
    } else {
      ++a->memsets;
    }
  }
  a->launch_delay = distribution(std::move(delays));
}

// Busy = union of GPU intervals in the window; each gap is idle, classified by what came after.
void AttributionIndex::add_gpu_idle(GpuIter g0, GpuIter g1, uint64_t kernel_wait_threshold_ns,
                                    Attribution* a) const {
  const uint64_t w0 = a->window_start_ns, w1 = w0 + a->window_ns;
  const auto classify_gap = [&](uint64_t gap_start, uint64_t gap_end, const GpuWork* next) {
    if (gap_end <= gap_start) return;
    const uint64_t gap = gap_end - gap_start;
    const uint64_t queued_at =
        next && next->has_call ? next->call_start : 0;  // unknown: counted as queued
    if (!next || queued_at >= gap_start)
      a->idle_host_wait_ns += gap;
    else if (gap <= kernel_wait_threshold_ns)
      a->idle_kernel_wait_ns += gap;
    else
      a->idle_other_ns += gap;
  };
  uint64_t cursor = w0;  // end of the busy time seen so far
  for (auto g = g0; g != g1; ++g) {
    const uint64_t s = std::max(g->start, w0), e = std::min(g->end, w1);
    if (s > cursor) classify_gap(cursor, s, &*g);
    if (e > cursor) {
      a->gpu_busy_ns += e - std::max(s, cursor);
      cursor = e;
    }
  }
  classify_gap(cursor, w1, nullptr);
}

// Phases: host time per range name; kernels by the innermost range holding their launch,
// looked up on the launching thread, or on the recording thread when the launching thread
// recorded no ranges (a CUDA backward launches from LibTorch's autograd thread while the
// main thread sits in its `backward` range).
void AttributionIndex::add_phases(const std::vector<const HostRange*>& ranges, GpuIter g0,
                                  GpuIter g1, Attribution* a) const {
  for (const HostRange* h : ranges) {
    auto& p = a->phases[h->name];
    ++p.count;
    p.host_ns += h->end_ns - h->start_ns;
  }
  if (ranges.empty()) {
    a->kernels_outside_phases = a->kernels;
    return;
  }
  const PhaseLookup phases(ranges, r_.step_phase);
  for (auto g = g0; g != g1; ++g) {
    if (g->kind != GpuWorkKind::Kernel) continue;
    const HostRange* h = g->has_call ? phases.innermost(g->call_thread, g->call_start) : nullptr;
    if (!h) {
      ++a->kernels_outside_phases;
      continue;
    }
    auto& p = a->phases[h->name];
    ++p.kernels;
    p.kernel_ns += g->end - g->start;
  }
}

LaunchQueue AttributionIndex::launch_queue(const QueueOptions& options) const {
  std::vector<LaunchQueue::Work> work;
  work.reserve(gpu_.size());
  for (const GpuWork& g : gpu_) {
    uint32_t device = 0, stream = 0;
    if (g.kind == GpuWorkKind::Kernel)
      device = r_.kernels[g.index].device_id, stream = r_.kernels[g.index].stream_id;
    else if (g.kind == GpuWorkKind::Memcpy)
      device = r_.memcpys[g.index].device_id, stream = r_.memcpys[g.index].stream_id;
    else
      device = r_.memsets[g.index].device_id, stream = r_.memsets[g.index].stream_id;
    work.push_back({g.start, g.end, g.call_start, g.call_end, device, stream, g.has_call});
  }
  return LaunchQueue(work, options);
}

Attribution attribute(const RecordSet& records, const AttributionOptions& options) {
  return AttributionIndex(records).attribute(options);
}

}  // namespace trace
