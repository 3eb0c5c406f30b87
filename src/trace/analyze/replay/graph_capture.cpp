#include "trace/analyze/replay/graph_capture.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "trace/analyze/steps_from_ranges.h"

namespace trace::replay {

namespace {

// A call a graph can hold: it queues GPU work and does not block.
bool capturable(const Graph& g, uint32_t a) {
  return !g.call_blocking[a] && g.call_gpu_begin[a] < g.call_gpu_begin[a + 1];
}

}  // namespace

std::vector<Capture> step_captures(const Graph& g,
                                   const std::vector<std::pair<uint64_t, uint64_t>>& steps) {
  auto sorted = steps;
  std::sort(sorted.begin(), sorted.end());
  const auto step_of = [&](int64_t at) -> size_t {
    const auto w = std::upper_bound(sorted.begin(), sorted.end(),
                                    std::make_pair(static_cast<uint64_t>(at), UINT64_MAX));
    if (w == sorted.begin() || std::prev(w)->second < static_cast<uint64_t>(at)) return SIZE_MAX;
    return static_cast<size_t>(std::prev(w) - sorted.begin());
  };
  std::vector<Capture> out;
  for (uint32_t t = 0; t < g.resources.size(); ++t) {
    if (g.resources[t].gpu) continue;
    Capture open;  // the stretch being gathered
    size_t in = SIZE_MAX;
    const auto close = [&] {
      if (open.open != kNone) out.push_back(open);
      open = {};
    };
    for (uint32_t v = g.thread_first[t]; v < g.thread_first[t] + g.thread_count[t]; ++v) {
      const uint32_t a = g.node_call[v];
      if (a == kNone) continue;
      if (g.call_blocking[a]) {
        close();  // a graph cannot span a host sync
        continue;
      }
      if (!capturable(g, a)) continue;
      const size_t w = step_of(g.observed[v]);
      if (w == SIZE_MAX) continue;  // in no step
      if (w != in) close(), in = w;
      if (open.open == kNone) open.open = v;
      open.close = v + 1;
    }
    close();
  }
  return out;
}

std::vector<Capture> region_captures(const Graph& g, const std::vector<SpanNodes>& regions,
                                     uint64_t* split) {
  std::vector<Capture> out;
  uint64_t n = 0;
  for (const SpanNodes& r : regions) {
    if (!r.in_graph() || r.open >= r.close) continue;
    uint32_t from = r.open;
    bool cut = false;
    for (uint32_t v = r.open; v < r.close; ++v) {
      const uint32_t a = g.node_call[v];
      if (a == kNone || !g.call_blocking[a]) continue;
      if (v > from) out.push_back({from, v});
      from = v + 1, cut = true;  // on after the blocking call's end
    }
    if (r.close > from) out.push_back({from, r.close});
    n += cut;
  }
  if (split) *split = n;
  return out;
}

std::vector<Span> named_regions(const RecordSet& r, const std::string& name) {
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> found;  // thread, start, end
  for (const auto& o : r.cpu_ops)
    if (range_name_matches(o.name, name)) found.emplace_back(o.thread_id, o.start_ns, o.end_ns);
  for (const auto& a : r.annotations)
    if (!a.gpu && range_name_matches(a.name, name))
      found.emplace_back(a.thread_id, a.start_ns, a.end_ns);
  for (const auto& h : r.ranges)
    if (range_name_matches(h.name, name)) found.emplace_back(h.thread_id, h.start_ns, h.end_ns);
  for (const auto& f : r.py_frames)
    if (r.frame_names[f.name_id] == name) found.emplace_back(f.thread_id, f.start_ns, f.end_ns);
  // By thread and start, the longest first: a range inside the one before it is not outermost.
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(std::get<0>(a), std::get<1>(a), ~std::get<2>(a)) <
           std::make_tuple(std::get<0>(b), std::get<1>(b), ~std::get<2>(b));
  });
  std::vector<Span> out;
  for (const auto& [thread, start, end] : found) {
    if (!out.empty() && out.back().thread == thread && start < out.back().end_ns) continue;
    out.push_back({thread, start, end});
  }
  return out;
}

namespace {

// The gaps between kernels queued back to back on one stream: each kernel whose launch call had
// ended before the kernel ahead of it on its stream did, so that only the GPU held it back; a
// graph's kernels follow one another no further apart. Kernels of graph launches are left out.
std::vector<int64_t> back_to_back_gaps(const RecordSet& r, const std::map<uint32_t, bool>& graph) {
  std::map<uint32_t, uint64_t> call_end;
  for (const auto& a : r.api)
    if (a.kind == ApiKind::Launch && a.correlation_id) call_end[a.correlation_id] = a.end_ns;
  std::vector<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, uint32_t>> ks;
  ks.reserve(r.kernels.size());
  for (const auto& k : r.kernels)
    if (!graph.count(k.correlation_id))
      ks.emplace_back(k.device_id, k.stream_id, k.start_ns, k.end_ns, k.correlation_id);
  std::sort(ks.begin(), ks.end());
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < ks.size(); ++i) {
    const auto& [dev0, str0, s0, e0, c0] = ks[i - 1];
    const auto& [dev, str, s, e, c] = ks[i];
    if (dev != dev0 || str != str0 || s < e0) continue;
    const auto call = call_end.find(c);
    if (call != call_end.end() && call->second < e0) gaps.push_back(static_cast<int64_t>(s - e0));
  }
  return gaps;
}

// What a graph launch costs, and what separates its nodes: as given, else the trace's own
// measurements, else the published figures for its GPU (gpu_constants.h).
GraphFacts graph_costs(const RecordSet& r, const GraphOptions& opt) {
  GraphFacts f;
  // The trace's own graph launches: their host time, and the gaps between the kernels of one.
  std::vector<int64_t> launches, gaps;
  std::map<uint32_t, bool> graph_corr;
  for (const auto& a : r.api)
    if (a.kind == ApiKind::Launch && a.name.find("GraphLaunch") != std::string::npos) {
      launches.push_back(static_cast<int64_t>(a.end_ns - a.start_ns));
      graph_corr[a.correlation_id] = true;
    }
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, uint64_t>>> by_launch;
  for (const auto& k : r.kernels)
    if (graph_corr.count(k.correlation_id))
      by_launch[{k.correlation_id, k.stream_id}].push_back({k.start_ns, k.end_ns});
  for (auto& [key, ks] : by_launch) {
    std::sort(ks.begin(), ks.end());
    for (size_t i = 1; i < ks.size(); ++i)
      if (ks[i].first >= ks[i - 1].second)
        gaps.push_back(static_cast<int64_t>(ks[i].first - ks[i - 1].second));
  }
  if (opt.launch_ns >= 0) {
    f.launch_ns = opt.launch_ns, f.launch_from = "as given";
  } else if (!launches.empty()) {
    f.launch_ns = upper_median(&launches);
    f.launch_from = "median of the trace's " + std::to_string(launches.size()) + " graph launches";
  } else {
    f.launch_ns = kGraphLaunch.base_ns, f.launch_per_node_ns = kGraphLaunch.per_node_ns;
    f.launch_from = std::string("published, untraced: ") + kGraphLaunch.source;
  }
  const GpuRow* row = opt.gpu.row;
  std::vector<int64_t> queued;
  if (opt.node_gap_ns >= 0) {
    f.node_gap_ns = opt.node_gap_ns, f.node_gap_from = "as given";
  } else if (!gaps.empty()) {
    f.node_gap_ns = upper_median(&gaps);
    f.node_gap_from = "median of the trace's " + std::to_string(gaps.size()) +
                      " gaps between the kernels of one graph launch";
  } else if (!(queued = back_to_back_gaps(r, graph_corr)).empty()) {
    f.node_gap_ns = upper_median(&queued);
    f.node_gap_from = "median of the trace's " + std::to_string(queued.size()) +
                      " gaps between kernels queued back to back on one stream";
  } else if (row && row->graph_kernel_ns) {
    f.node_gap_ns = row->graph_kernel_ns, f.node_period = true;
    f.node_gap_from = std::string("published per kernel in a graph, for ") + opt.gpu.why + ": " +
                      row->kernel_source;
  } else if (row && row->stream_kernel_ns) {
    f.node_gap_ns = row->stream_kernel_ns, f.node_period = true;
    f.node_gap_from = std::string(
                          "none published in a graph: the one for kernels on a stream, "
                          "which a graph's are not slower than, for ") +
                      opt.gpu.why + ": " + row->kernel_source;
  } else {
    const char* source = "";
    f.node_gap_ns = conservative_kernel_ns(&source), f.node_period = true;
    f.node_gap_from = (row                   ? "none published for " + opt.gpu.why
                       : opt.gpu.why.empty() ? std::string("no GPU named")
                                             : opt.gpu.why) +
                      ": the largest per-kernel cost published for any GPU, " + source;
  }
  return f;
}

}  // namespace

Scenario capture_graphs(const Graph& g, const RecordSet& r, const std::vector<Capture>& captures,
                        const GraphOptions& opt, GraphFacts* facts) {
  GraphFacts f = graph_costs(r, opt);
  Scenario s;
  s.flags.assign(g.size(), 0);
  s.node_ns.assign(g.size(), -1);
  s.launch_from.assign(g.size(), kNone);
  s.stream_gap_ns.assign(g.size(), -1);
  std::vector<uint32_t> capture_of(g.size(), kNone);  // per GPU node
  for (uint32_t c = 0; c < captures.size(); ++c) {
    const Capture& x = captures[c];
    if (x.open == kNone || x.close == kNone || x.open >= x.close) continue;
    uint64_t nodes = 0;
    for (uint32_t v = x.open; v < x.close; ++v) {
      const uint32_t a = g.node_call[v];
      if (a == kNone || g.call_blocking[a]) continue;
      for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k)
        if (capture_of[g.call_gpu[k]] == kNone) capture_of[g.call_gpu[k]] = c, ++nodes;
    }
    if (!nodes) continue;  // nothing for a graph to hold: the host work stays
    ++f.graphs, f.nodes += nodes;
    // The graph launch is the capture's first stretch of host time, so that it ends on a node
    // every captured call's end follows on the thread: the replay's order (graph.h topo) then
    // has it before every captured kernel. The rest of the capture takes no time.
    const uint32_t launched = x.open + 1;
    s.node_ns[launched] = f.launch_ns + f.launch_per_node_ns * static_cast<int64_t>(nodes);
    for (uint32_t v = launched + 1; v < x.close; ++v) s.flags[v] |= kRemoved;
    if (x.close > launched) s.node_ns[x.close] = 0;
    for (uint32_t v = x.open; v < x.close; ++v) {
      const uint32_t a = g.node_call[v];
      if (a == kNone || g.call_blocking[a]) continue;
      for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k)
        if (capture_of[g.call_gpu[k]] == c && g.type[g.call_gpu[k]] == NodeType::Kernel)
          s.launch_from[g.call_gpu[k]] = launched;  // a copy stays queued at its call's start
    }
  }
  for (uint32_t v = g.host_count; v < g.size(); ++v) {
    if (capture_of[v] == kNone || !g.first_is_chain[v]) continue;
    const uint32_t before = g.in[g.in_begin[v]].from;  // the work before it on its stream
    if (before == kNone || capture_of[before] != capture_of[v]) continue;
    // A per-kernel cost holds the node's own time: only what its duration leaves is a gap.
    s.stream_gap_ns[v] =
        f.node_period ? std::max<int64_t>(0, f.node_gap_ns - g.duration[before]) : f.node_gap_ns;
  }
  if (facts) *facts = f;
  return s;
}

}  // namespace trace::replay
