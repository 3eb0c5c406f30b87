#include "trace/attribution.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <vector>

namespace trace {
namespace {

struct Interval {
  uint64_t start, end;
  uint32_t correlation_id;
};

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

std::pair<uint64_t, uint64_t> find_window(const RecordSet& r, const AttributionOptions& options, uint64_t* epochs) {
  uint64_t lo = UINT64_MAX, hi = 0;
  *epochs = 0;
  for (const auto& h : r.ranges) {
    if (h.name != "epoch") continue;
    ++*epochs;
    lo = std::min(lo, h.start_ns);
    hi = std::max(hi, h.end_ns);
  }
  if (options.window) return *options.window;
  if (*epochs) return {lo, hi};
  const auto take = [&](uint64_t s, uint64_t e) { lo = std::min(lo, s), hi = std::max(hi, e); };
  for (const auto& x : r.api) take(x.start_ns, x.end_ns);
  for (const auto& x : r.kernels) take(x.start_ns, x.end_ns);
  for (const auto& x : r.memcpys) take(x.start_ns, x.end_ns);
  for (const auto& x : r.memsets) take(x.start_ns, x.end_ns);
  for (const auto& x : r.ranges) take(x.start_ns, x.end_ns);
  return lo <= hi ? std::make_pair(lo, hi) : std::make_pair(uint64_t{0}, uint64_t{0});
}

// Host ranges by thread, for "which range was open on this thread at time t".
class PhaseLookup {
 public:
  explicit PhaseLookup(const std::vector<HostRange>& ranges) {
    std::map<uint32_t, size_t> epochs_by_thread;
    for (const auto& h : ranges) {
      by_thread_[h.thread_id].push_back(&h);
      if (h.name == "epoch") ++epochs_by_thread[h.thread_id];
    }
    for (auto& [thread, list] : by_thread_)
      std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return x->start_ns < y->start_ns; });
    // The recording thread: the one holding the epoch ranges, else the one with the most ranges.
    const auto& pool = epochs_by_thread.empty() ? count_by_thread() : epochs_by_thread;
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
    auto pos = std::upper_bound(list.begin(), list.end(), t, [](uint64_t v, auto* h) { return v < h->start_ns; });
    while (pos != list.begin()) {
      const HostRange* h = *--pos;
      if (h->end_ns >= t) return h;
      if (h->depth == 0) return nullptr;  // outermost ranges of one thread are disjoint: none earlier holds t
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

Attribution attribute(const RecordSet& r, const AttributionOptions& options) {
  Attribution a;
  a.dropped_records = r.dropped_records;
  const auto [w0, w1] = find_window(r, options, &a.epochs);
  a.window_ns = w1 - w0;
  const auto in_window = [&, w0 = w0, w1 = w1](uint64_t t) { return t >= w0 && t <= w1; };

  // A driver call made inside a runtime call on the same thread (cudaLaunchKernel ->
  // cuLaunchKernel) is the same host time: count the outer call only.
  std::vector<const ApiRecord*> runtime_calls;
  for (const auto& x : r.api)
    if (!x.driver) runtime_calls.push_back(&x);
  std::sort(runtime_calls.begin(), runtime_calls.end(), [](auto* p, auto* q) { return p->start_ns < q->start_ns; });
  const auto nested_in_runtime = [&](const ApiRecord& d) {
    auto pos = std::upper_bound(runtime_calls.begin(), runtime_calls.end(), d.start_ns,
                                [](uint64_t t, auto* p) { return t < p->start_ns; });
    return pos != runtime_calls.begin() && (*std::prev(pos))->thread_id == d.thread_id &&
           (*std::prev(pos))->end_ns >= d.end_ns;
  };

  std::unordered_map<uint32_t, const ApiRecord*> api_by_correlation;
  for (const auto& x : r.api) {
    if (x.correlation_id && !api_by_correlation.count(x.correlation_id)) api_by_correlation[x.correlation_id] = &x;
    if (!in_window(x.start_ns) || (x.driver && nested_in_runtime(x))) continue;
    const uint64_t d = x.end_ns - x.start_ns;
    switch (x.kind) {
      case ApiKind::Launch: ++a.launches, a.launch_api_ns += d; break;
      case ApiKind::Sync: a.sync_api_ns += d; break;
      case ApiKind::Memcpy: a.memcpy_api_ns += d; break;
      default: break;
    }
  }
  a.blocked_ns = a.sync_api_ns + a.memcpy_api_ns;

  // GPU activities in the window, with the host call that queued each.
  std::vector<Interval> gpu;
  std::vector<double> delays;
  for (const auto& k : r.kernels) {
    if (!in_window(k.start_ns)) continue;
    ++a.kernels;
    a.kernel_ns += k.end_ns - k.start_ns;
    gpu.push_back({k.start_ns, k.end_ns, k.correlation_id});
    if (auto it = api_by_correlation.find(k.correlation_id); it != api_by_correlation.end())
      delays.push_back(static_cast<double>(k.start_ns) - static_cast<double>(it->second->end_ns));
  }
  for (const auto& m : r.memcpys) {
    if (!in_window(m.start_ns)) continue;
    ++a.memcpys;
    a.memcpy_gpu_ns += m.end_ns - m.start_ns;
    const MemoryKind host = m.kind == CopyKind::HtoD ? m.src : m.kind == CopyKind::DtoH ? m.dst : MemoryKind::Device;
    auto& s = a.memcpy_by_kind[std::string(to_string(m.kind)) + " " + to_string(host)];
    ++s.count, s.bytes += m.bytes, s.gpu_ns += m.end_ns - m.start_ns;
    gpu.push_back({m.start_ns, m.end_ns, m.correlation_id});
  }
  for (const auto& m : r.memsets) {
    if (!in_window(m.start_ns)) continue;
    ++a.memsets;
    gpu.push_back({m.start_ns, m.end_ns, m.correlation_id});
  }
  a.launch_delay = distribution(std::move(delays));

  // Busy = union of GPU intervals; each gap is idle, classified by what came after it.
  std::sort(gpu.begin(), gpu.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
  const auto queued_at = [&](const Interval& g) -> uint64_t {
    auto it = api_by_correlation.find(g.correlation_id);
    return it == api_by_correlation.end() ? 0 : it->second->start_ns;  // unknown: counted as queued
  };
  const auto classify_gap = [&](uint64_t gap_start, uint64_t gap_end, const Interval* next) {
    if (gap_end <= gap_start) return;
    const uint64_t gap = gap_end - gap_start;
    if (!next || queued_at(*next) >= gap_start) a.idle_host_wait_ns += gap;
    else if (gap <= options.kernel_wait_threshold_ns) a.idle_kernel_wait_ns += gap;
    else a.idle_other_ns += gap;
  };
  uint64_t cursor = w0;  // end of the busy time seen so far
  for (const auto& g : gpu) {
    const uint64_t s = std::max(g.start, w0), e = std::min(g.end, w1);
    if (s > cursor) classify_gap(cursor, s, &g);
    if (e > cursor) {
      a.gpu_busy_ns += e - std::max(s, cursor);
      cursor = e;
    }
  }
  classify_gap(cursor, w1, nullptr);

  // Phases: host time per range name; kernels by the innermost range holding their launch,
  // looked up on the launching thread, or on the recording thread when the launching thread
  // recorded no ranges (a CUDA backward launches from LibTorch's autograd thread while the
  // main thread sits in its `backward` range).
  for (const auto& h : r.ranges) {
    auto& p = a.phases[h.name];
    ++p.count;
    p.host_ns += h.end_ns - h.start_ns;
  }
  const PhaseLookup phases(r.ranges);
  for (const auto& k : r.kernels) {
    if (!in_window(k.start_ns)) continue;
    auto it = api_by_correlation.find(k.correlation_id);
    const HostRange* h = it == api_by_correlation.end() ? nullptr : phases.innermost(it->second->thread_id, it->second->start_ns);
    if (!h) {
      ++a.kernels_outside_phases;
      continue;
    }
    auto& p = a.phases[h->name];
    ++p.kernels;
    p.kernel_ns += k.end_ns - k.start_ns;
  }
  return a;
}

}  // namespace trace
