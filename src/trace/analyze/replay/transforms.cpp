#include "trace/analyze/replay/transforms.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "trace/analyze/blocking_calls.h"

namespace trace::replay {

namespace {

void remove_call(const Graph& g, uint32_t a, Scenario* s) {
  const uint32_t c = g.call_node[a];
  if (c == kNone) return;
  s->flags[c + 1] |= kRemoved;
  for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k)
    s->flags[g.call_gpu[k]] |= kRemoved;
}

}  // namespace

void remove_site(const Graph& g, const PlacedSite& placed, Scenario* s) {
  const Site& site = placed.site;
  const SpanNodes& nodes = placed.nodes;
  if (s->flags.empty()) s->flags.assign(g.size(), 0);
  if (site.region && nodes.in_graph() && nodes.open < nodes.close) {
    for (uint32_t v = nodes.open + 1; v <= nodes.close; ++v) {
      s->flags[v] |= kRemoved;
      if (g.node_call[v] != kNone) remove_call(g, g.node_call[v], s);
    }
    // A zero-length call at the region's very start or end sorts outside its nodes (a call at a
    // time sorts after the span ends at that time): it is in the region all the same.
    const uint32_t first = g.thread_first[g.resource[nodes.open]],
                   last = first + g.thread_count[g.resource[nodes.open]];
    const auto inside = [&](uint32_t v) {
      const uint32_t a = g.node_call[v];
      return a != kNone && g.observed[v] >= static_cast<int64_t>(site.start_ns) &&
             g.observed[v + 1] <= static_cast<int64_t>(site.end_ns);
    };
    for (uint32_t v = nodes.close + 1;
         v + 1 < last && g.observed[v] == static_cast<int64_t>(site.end_ns); ++v)
      if (inside(v)) s->flags[v + 1] |= kRemoved, remove_call(g, g.node_call[v], s);
    for (uint32_t v = nodes.open;
         v > first && g.observed[v - 1] == static_cast<int64_t>(site.start_ns);) {
      --v;
      if (inside(v)) s->flags[v + 1] |= kRemoved, remove_call(g, g.node_call[v], s);
    }
  }
  for (uint32_t a : site.calls) remove_call(g, a, s);
}

Scenario scale_kernels(const Graph& g, const RecordSet& r, double factor,
                       const std::string& pattern) {
  Scenario s;
  s.kernel_scale = factor;
  s.flags.assign(g.size(), 0);
  if (!pattern.empty() && !r.kernels.empty() &&
      std::all_of(r.kernels.begin(), r.kernels.end(),
                  [](const KernelRecord& k) { return k.name.empty(); }))
    throw std::invalid_argument("scale-kernels:name=" + pattern +
                                ": the trace was read without kernel names");
  for (uint32_t v = g.host_count; v < g.size(); ++v)
    if (g.type[v] == NodeType::Kernel &&
        (pattern.empty() || r.kernels[g.record[v]].name.find(pattern) != std::string::npos))
      s.flags[v] |= kScaled;
  return s;
}

Scenario scale_launches(double factor) {
  Scenario s;
  s.launch_scale = factor;
  return s;
}

Scenario pin_copies(const Graph& g, const RecordSet& r, double gbps, const GpuConstants& given,
                    PinCopiesFacts* facts) {
  const GpuConstants gpu = given.link ? given : gpu_constants({}, 0);
  const auto copies = copies_by_correlation(r);
  const auto copy_of = [&](const ApiRecord& a) -> const MemcpyRecord* {
    if (a.kind != ApiKind::Memcpy) return nullptr;
    const auto it = copies.find(a.correlation_id);
    return it == copies.end() ? nullptr : &r.memcpys[it->second];
  };
  // The trace's own pinned bandwidth per direction, and its non-blocking copy calls' host time.
  uint64_t bytes[2] = {0, 0}, ns[2] = {0, 0}, samples[2] = {0, 0};
  for (const auto& m : r.memcpys) {
    const int dir = m.kind == CopyKind::HtoD ? 0 : m.kind == CopyKind::DtoH ? 1 : -1;
    const MemoryKind host = dir == 0 ? m.src : m.dst;
    if (dir < 0 || host != MemoryKind::Pinned || m.bytes < kPinnedSampleBytes) continue;
    bytes[dir] += m.bytes, ns[dir] += m.end_ns - m.start_ns, ++samples[dir];
  }
  std::vector<int64_t> calls;
  for (const auto& a : r.api) {
    const MemcpyRecord* m = copy_of(a);
    if (m && a.name.find("Async") != std::string::npos && blocking_kind(a, m) == Blocking::No)
      calls.push_back(static_cast<int64_t>(a.end_ns - a.start_ns));
  }
  PinCopiesFacts f;
  double rate[2];
  std::string from[2];
  for (int dir = 0; dir < 2; ++dir) {
    if (gbps > 0) {
      rate[dir] = gbps, from[dir] = "as given";
    } else if (samples[dir] && ns[dir]) {
      rate[dir] = static_cast<double>(bytes[dir]) / static_cast<double>(ns[dir]);
      from[dir] = "the trace's " + std::to_string(samples[dir]) + " pinned copies of 1 MiB or more";
    } else {
      rate[dir] = gpu.link->gbps;
      from[dir] = std::string("no pinned copy of 1 MiB or more that way in the trace: the ") +
                  gpu.link->name + " link's published peak (copies at the peak: the saving is " +
                  "an upper bound)";
      f.link_from = gpu.why + "; " + gpu.link->source;
    }
  }
  f.htod_gbps = rate[0], f.dtoh_gbps = rate[1], f.htod_from = from[0], f.dtoh_from = from[1];
  if (!calls.empty()) {
    f.call_ns = upper_median(&calls);
    f.call_from =
        "median of the trace's " + std::to_string(calls.size()) + " non-blocking Async copy calls";
  } else {
    f.call_ns = kDefaultAsyncCopyCallNs;
    f.call_from = "default: no non-blocking Async copy call in the trace";
  }

  Scenario s;
  s.flags.assign(g.size(), 0);
  s.node_ns.assign(g.size(), -1);
  for (uint32_t a = 0; a < r.api.size(); ++a) {
    const MemcpyRecord* m = copy_of(r.api[a]);
    if (!m || g.call_node[a] == kNone) continue;
    const int dir = m->kind == CopyKind::HtoD ? 0 : m->kind == CopyKind::DtoH ? 1 : -1;
    if (dir < 0 || (dir == 0 ? m->src : m->dst) != MemoryKind::Pageable) continue;
    ++f.copies, f.bytes += m->bytes;
    const uint32_t end = g.call_node[a] + 1;
    s.flags[end] |= kUnblocked;
    s.node_ns[end] =
        std::min<int64_t>(f.call_ns, static_cast<int64_t>(r.api[a].end_ns - r.api[a].start_ns));
    for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k) {
      const uint32_t v = g.call_gpu[k];
      if (g.type[v] != NodeType::Memcpy) continue;
      const int64_t pinned =
          static_cast<int64_t>(static_cast<double>(r.memcpys[g.record[v]].bytes) / rate[dir]);
      s.node_ns[v] = std::min(g.duration[v], pinned);
    }
  }
  if (facts) *facts = f;
  return s;
}

Scenario stream_syncs(const Graph& g, const RecordSet& r, uint64_t* changed) {
  Scenario s;
  s.only_stream.assign(g.size(), kNone);
  uint64_t n = 0;
  std::unordered_map<uint32_t, uint32_t> last;  // thread -> the stream it last queued work on
  for (uint32_t a : order_calls(r.api).by_start) {
    const ApiRecord& call = r.api[a];
    if (g.call_gpu_begin[a] < g.call_gpu_begin[a + 1])
      last[call.thread_id] = g.resource[g.call_gpu[g.call_gpu_begin[a]]];
    const bool device = call.name.find("DeviceSynchronize") != std::string::npos ||
                        call.name.find("CtxSynchronize") != std::string::npos;
    if (!device || !g.call_blocking[a] || g.call_node[a] == kNone) continue;
    const auto it = last.find(call.thread_id);
    if (it == last.end()) continue;
    s.only_stream[g.call_node[a] + 1] = it->second;
    ++n;
  }
  if (changed) *changed = n;
  return s;
}

}  // namespace trace::replay
