// Rules on the GPU side of the replay graph (graph.h).
//
// Stream order: work on one stream runs one piece after another, in the order it ran in the
// trace (a stream is a FIFO queue).
// Launch: a kernel starts after the call that launched it returned (its correlation id names
// the call; a cudaGraphLaunch's kernels all carry the graph launch's id, so every kernel of the
// graph waits for it). A copy or memset is queued inside its call and may start before the
// call returns (a blocking copy always does), so it waits only for the call's start.
// Event waits: cudaStreamWaitEvent makes the work queued after it on one stream wait for the
// work queued before the matching cudaEventRecord on another. Kineto's cuda_sync rows name
// both (Stream Wait Event: stream, wait_on_stream, wait_on_cuda_event_record_corr_id).
// GPU waits: work that started well after its launch returned and its stream was free, right
// after work on another stream ended, waited for that work (an event wait the trace does not
// name: traces without cuda_sync rows, NCCL's own stream waits).
#include <algorithm>
#include <map>

#include "trace/analyze/replay/builder.h"

namespace trace::replay {

uint32_t Builder::last_queued(uint32_t s, uint64_t t, uint64_t by) const {
  if (s >= by_enqueue.size()) return kNone;
  const auto& q = by_enqueue[s];
  // q: (enqueued, running max of stream position) by enqueue time.
  auto it = std::lower_bound(q.begin(), q.end(), std::make_pair(t, uint32_t{0}));
  if (it == q.begin()) return kNone;
  const auto& order = stream_ops[s];
  uint32_t pos = std::prev(it)->second;
  // Work that ended after `by` cannot be what a call that returned at `by` waited for.
  for (int walked = 0; walked < 4096; ++walked) {
    const uint32_t v = order[pos];
    if (static_cast<uint64_t>(g.observed_end(v)) <= by) return v;
    if (pos == 0) return kNone;
    --pos;
  }
  return kNone;
}

namespace {

// The latest recorded end among each GPU op's dependencies (by node - host_count), for the GPU
// waits: an op that started later than that waited for something else.
struct DependencyEnds {
  DependencyEnds(uint32_t host_count, size_t ops) : h(host_count), end(ops, INT64_MIN) {}
  void note(const Graph& g, uint32_t from, uint32_t to) {
    end[to - h] = std::max(end[to - h], g.observed_end(from));
  }
  uint32_t h;
  std::vector<int64_t> end;
};

// A node per kernel, copy and memset on its stream's resource, with the call that queued it.
void add_ops(Builder& b) {
  const RecordSet& r = b.r;
  const auto add = [&](uint64_t s, uint64_t e, uint32_t corr, uint32_t device, uint32_t stream,
                       NodeType type, uint32_t index) {
    const uint32_t res = b.stream_resource(device, stream);
    const uint32_t v =
        b.add_node(static_cast<int64_t>(s), static_cast<int64_t>(e - s), res, type, index);
    Builder::GpuOp op{v, kNone, s};
    if (const uint32_t* c = corr ? b.api_by_corr.find(corr) : nullptr) {
      const uint32_t top = b.top_call[*c];
      if (top != kNone && b.call_is_node[top] && b.g.call_node[top] != kNone)
        op.call = top, op.enqueued = b.call_start[top];
    }
    b.ops.push_back(op);
  };
  for (uint32_t i = 0; i < r.kernels.size(); ++i) {
    const auto& k = r.kernels[i];
    add(k.start_ns, k.end_ns, k.correlation_id, k.device_id, k.stream_id, NodeType::Kernel, i);
  }
  for (uint32_t i = 0; i < r.memcpys.size(); ++i) {
    const auto& m = r.memcpys[i];
    add(m.start_ns, m.end_ns, m.correlation_id, m.device_id, m.stream_id, NodeType::Memcpy, i);
  }
  for (uint32_t i = 0; i < r.memsets.size(); ++i) {
    const auto& m = r.memsets[i];
    add(m.start_ns, m.end_ns, m.correlation_id, m.device_id, m.stream_id, NodeType::Memset, i);
  }
  b.g.thread_first.resize(b.g.resources.size(), 0);
  b.g.thread_count.resize(b.g.resources.size(), 0);
}

// Stream order: by recorded start (ties: the shorter first, then record order); and per stream,
// its work by enqueue time (Builder::by_enqueue).
void add_stream_order(Builder& b, DependencyEnds* deps) {
  Graph& g = b.g;
  const uint32_t h = g.host_count;
  b.stream_ops.assign(g.resources.size(), {});
  for (uint32_t i = 0; i < b.ops.size(); ++i) b.stream_ops[g.resource[h + i]].push_back(h + i);
  b.by_enqueue.assign(g.resources.size(), {});
  for (uint32_t s = 0; s < b.stream_ops.size(); ++s) {
    auto& list = b.stream_ops[s];
    std::stable_sort(list.begin(), list.end(), [&](uint32_t x, uint32_t y) {
      return g.observed[x] != g.observed[y] ? g.observed[x] < g.observed[y]
                                            : g.duration[x] < g.duration[y];
    });
    for (uint32_t k = 0; k < list.size(); ++k) {
      b.by_enqueue[s].push_back({b.ops[list[k] - h].enqueued, k});
      if (k == 0) continue;
      b.edge(list[k - 1], list[k], EdgeKind::Stream,
             g.observed[list[k]] - g.observed_end(list[k - 1]));
      deps->note(g, list[k - 1], list[k]);
    }
    auto& q = b.by_enqueue[s];
    std::stable_sort(q.begin(), q.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t k = 1; k < q.size(); ++k) q[k].second = std::max(q[k].second, q[k - 1].second);
  }
}

// Launches. Per API record, its GPU work (CSR) for the what-ifs that remove or regroup calls.
void add_launches(Builder& b, DependencyEnds* deps) {
  Graph& g = b.g;
  g.call_gpu_begin.assign(b.r.api.size() + 1, 0);
  for (const Builder::GpuOp& op : b.ops)
    if (op.call != kNone) ++g.call_gpu_begin[op.call + 1];
  for (size_t a = 0; a < b.r.api.size(); ++a) g.call_gpu_begin[a + 1] += g.call_gpu_begin[a];
  g.call_gpu.assign(g.call_gpu_begin.back(), kNone);
  std::vector<uint32_t> fill(g.call_gpu_begin.begin(), g.call_gpu_begin.end() - 1);
  for (const Builder::GpuOp& op : b.ops)
    if (op.call != kNone) g.call_gpu[fill[op.call]++] = op.node;
  for (const Builder::GpuOp& op : b.ops) {
    if (op.call == kNone) {
      ++g.stats.unlaunched_gpu;
      continue;
    }
    const uint32_t start_node = g.call_node[op.call], end_node = start_node + 1;
    if (g.type[op.node] == NodeType::Kernel) {
      b.edge(end_node, op.node, EdgeKind::Launch, g.observed[op.node] - g.observed[end_node]);
      deps->note(g, end_node, op.node);
      ++g.stats.launches;
      if (g.call_gpu_begin[op.call + 1] - g.call_gpu_begin[op.call] > 1)
        ++g.stats.graph_launch_kernels;
    } else {
      b.edge(start_node, op.node, EdgeKind::Enqueue, g.observed[op.node] - g.observed[start_node]);
      deps->note(g, start_node, op.node);
    }
  }
}

// The stream each call's thread queued work on last before it (the stream a
// cudaStreamSynchronize without a cuda_sync row most likely syncs: sync_waits.cpp).
void find_last_streams(Builder& b) {
  const Graph& g = b.g;
  b.last_stream_of_call.assign(b.r.api.size(), kNone);
  std::vector<uint32_t> order;
  for (uint32_t a = 0; a < b.r.api.size(); ++a)
    if (b.call_is_node[a] && g.call_node[a] != kNone) order.push_back(a);
  std::sort(order.begin(), order.end(),
            [&](uint32_t x, uint32_t y) { return g.call_node[x] < g.call_node[y]; });
  uint32_t thread = kNone, last = kNone;
  for (uint32_t a : order) {
    const uint32_t t = g.resource[g.call_node[a]];
    if (t != thread) thread = t, last = kNone;
    b.last_stream_of_call[a] = last;
    if (g.call_gpu_begin[a + 1] > g.call_gpu_begin[a])
      last = g.resource[g.call_gpu[g.call_gpu_begin[a + 1] - 1]];
  }
}

// Event waits named by Kineto's Stream Wait Event rows.
void add_event_waits(Builder& b, DependencyEnds* deps) {
  const RecordSet& r = b.r;
  Graph& g = b.g;
  IdMap named(r.syncs.size());
  for (const SyncRecord& y : r.syncs)
    if (y.kind == SyncKind::StreamWaitEvent && y.correlation_id) named.insert(y.correlation_id, 0);
  for (const ApiRecord& a : r.api)
    if (a.name.find("StreamWaitEvent") != std::string::npos &&
        !(a.correlation_id && named.contains(a.correlation_id)))
      ++g.stats.unnamed_event_waits;
  for (const SyncRecord& y : r.syncs) {
    if (y.kind != SyncKind::StreamWaitEvent || y.wait_stream == kNoStream ||
        !y.wait_record_correlation)
      continue;
    const auto src = b.stream_by_id.find(y.wait_stream), dst = b.stream_by_id.find(y.stream_id);
    const uint32_t* rec = b.api_by_corr.find(y.wait_record_correlation);
    if (src == b.stream_by_id.end() || dst == b.stream_by_id.end() || !rec) continue;
    const uint32_t* wait_call = y.correlation_id ? b.api_by_corr.find(y.correlation_id) : nullptr;
    const uint64_t w = wait_call ? r.api[*wait_call].start_ns : y.start_ns;
    const uint32_t target = b.last_queued(src->second, r.api[*rec].start_ns, UINT64_MAX);
    // The first work on the waiting stream queued after the wait call.
    const auto& q = b.by_enqueue[dst->second];
    auto it = std::upper_bound(q.begin(), q.end(), std::make_pair(w, UINT32_MAX));
    if (target == kNone || it == q.end()) continue;
    uint32_t pos = it == q.begin() ? 0 : std::prev(it)->second + 1;  // after everything queued by w
    if (pos >= b.stream_ops[dst->second].size()) continue;
    const uint32_t dep = b.stream_ops[dst->second][pos];
    if (g.resource[target] == g.resource[dep]) continue;
    b.edge(target, dep, EdgeKind::EventWait, g.observed[dep] - g.observed_end(target));
    deps->note(g, target, dep);
    ++g.stats.event_waits;
  }
}

// How soon after another stream's work ends a GPU op that waited for it starts, per device: the
// GPU picks released work up about as it picks up a launch on an idle stream, so allow twice the
// median delay from a launch's return to its kernel's start (where the launch was the last thing
// the kernel waited for), or the median named event wait if longer; never below the configured
// floor (a fixed figure misses slower runtimes), never above the cap (a slow launch path is not
// a slow wake-up).
std::map<uint32_t, int64_t> wake_tolerance(const Builder& b, const DependencyEnds& deps) {
  const Graph& g = b.g;
  std::map<uint32_t, std::vector<int64_t>> launches, events;
  const auto device = [&](uint32_t v) { return g.resources[g.resource[v]].device; };
  for (const Builder::GpuOp& op : b.ops) {
    if (op.call == kNone || g.type[op.node] != NodeType::Kernel) continue;
    const int64_t returned = g.observed[g.call_node[op.call] + 1];
    if (deps.end[op.node - g.host_count] ==
        returned)  // its launch was the last thing it waited for
      launches[device(op.node)].push_back(std::max<int64_t>(0, g.observed[op.node] - returned));
  }
  for (const Candidate& c : b.edges)
    if (c.kind == EdgeKind::EventWait)
      events[device(c.to)].push_back(std::max<int64_t>(0, c.slack));
  const int64_t floor = static_cast<int64_t>(b.opt.gpu_wake_ns),
                cap = std::max(floor, static_cast<int64_t>(b.opt.gpu_wake_max_ns));
  std::map<uint32_t, int64_t> out;
  for (auto& [d, v] : launches) out[d] = 2 * upper_median(&v);  // each list holds a sample
  for (auto& [d, v] : events) out[d] = std::max(out[d], upper_median(&v));
  for (auto& [d, w] : out) w = std::clamp(w, floor, cap);
  return out;
}

// GPU waits: the latest end on another stream of the same device just before the op started.
void add_gpu_waits(Builder& b, const DependencyEnds& deps) {
  Graph& g = b.g;
  const uint32_t h = g.host_count;
  const size_t n = b.ops.size();
  const std::map<uint32_t, int64_t> wakes = wake_tolerance(b, deps);
  std::vector<uint32_t> by_end(n);
  for (uint32_t i = 0; i < n; ++i) by_end[i] = h + i;
  std::sort(by_end.begin(), by_end.end(),
            [&](uint32_t x, uint32_t y) { return g.observed_end(x) < g.observed_end(y); });
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = h + i;
    const int64_t dep_end = deps.end[i];
    if (dep_end == INT64_MIN ||
        g.observed[v] - dep_end <= static_cast<int64_t>(b.opt.gpu_wait_min_ns))
      continue;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), g.observed[v],
                               [&](int64_t t, uint32_t u) { return t < g.observed_end(u); });
    const Resource& mine = g.resources[g.resource[v]];
    const auto found = wakes.find(mine.device);
    const int64_t wake =
        found != wakes.end() ? found->second : static_cast<int64_t>(b.opt.gpu_wake_ns);
    while (it != by_end.begin()) {
      const uint32_t u = *--it;
      if (g.observed[v] - g.observed_end(u) > wake || g.observed_end(u) <= dep_end) break;
      const Resource& other = g.resources[g.resource[u]];
      if (g.resource[u] != g.resource[v] && other.device == mine.device) {
        b.edge(u, v, EdgeKind::GpuWait, g.observed[v] - g.observed_end(u));
        ++g.stats.gpu_waits;
        break;
      }
    }
  }
}

}  // namespace

void Builder::add_gpu_nodes() {
  add_ops(*this);
  DependencyEnds deps(g.host_count, ops.size());
  add_stream_order(*this, &deps);
  add_launches(*this, &deps);
  find_last_streams(*this);
  add_event_waits(*this, &deps);
  add_gpu_waits(*this, deps);
}

}  // namespace trace::replay
