// Rules on the host side of the replay graph (graph.h).
//
// CPU order: a thread runs its events one after another, so each host node follows the one
// before it on its thread; the time between two nodes is kept as recorded (CPU work the trace
// shows or not: Python, dispatch, ops that touch no GPU), except inside a blocking call
// (sync_waits.cpp) and in an idle gap that waits for another thread (below).
//
// Thread waits: a thread that records nothing for a while (no event of it starts or ends,
// outside any call) and wakes up right after another thread's event ended was waiting for
// that thread. Observed in PyTorch traces: the main thread sits in `backward` while the
// autograd thread runs the backward ops, and returns tens of microseconds after the last one;
// the autograd thread sleeps until the main thread queues the backward. Without the rule a
// what-if that speeds one thread up leaves the other waiting as long as in the trace.
#include <algorithm>

#include "trace/analyze/blocking_calls.h"
#include "trace/analyze/replay/builder.h"
#include "trace/analyze/sync_causes.h"

namespace trace::replay {

namespace {

// Host events of every kind, as (thread, start, end, is an API call that is not nested).
template <typename F>
void for_each_host_event(const RecordSet& r, const std::vector<bool>& nested, F f) {
  for (size_t i = 0; i < r.api.size(); ++i)
    f(r.api[i].thread_id, r.api[i].start_ns, r.api[i].end_ns, !nested[i]);
  for (const auto& o : r.cpu_ops) f(o.thread_id, o.start_ns, o.end_ns, false);
  for (const auto& a : r.annotations)
    if (!a.gpu) f(a.thread_id, a.start_ns, a.end_ns, false);
  for (const auto& h : r.ranges) f(h.thread_id, h.start_ns, h.end_ns, false);
}

// A point of a thread's timeline, packed under its time as (time << 2 | kind) so that points
// sort by time and, at one time, a call's end before what starts then.
enum class PointKind : uint64_t { CallEnd = 0, OtherEdge = 1, CallStart = 2 };
uint64_t point(uint64_t t, PointKind kind) { return t << 2 | static_cast<uint64_t>(kind); }
PointKind kind_of(uint64_t p) { return static_cast<PointKind>(p & 3); }

}  // namespace

void Builder::find_thread_waits() {
  // Every thread with a host event becomes a resource here, so resources are numbered the
  // same whether or not waits are found.
  uint64_t lo = UINT64_MAX, hi = 0;
  for_each_host_event(r, nested, [&](uint32_t tid, uint64_t s, uint64_t e, bool) {
    thread_resource(tid);
    lo = std::min(lo, s), hi = std::max(hi, e);
  });
  const size_t threads = thread_res.size();
  // Two bits of kind under the time; a span too long for that is no trace of a program.
  if (threads < 2 || hi - lo >= (uint64_t{1} << 61)) return;

  // Points per thread, at time - lo (PointKind).
  std::vector<std::vector<uint64_t>> points(threads);
  std::vector<std::pair<uint64_t, uint32_t>> ends;  // (end, thread resource), every host event
  for_each_host_event(r, nested, [&](uint32_t tid, uint64_t s, uint64_t e, bool call) {
    const uint32_t t = thread_res[tid];
    points[t].push_back(point(s - lo, call ? PointKind::CallStart : PointKind::OtherEdge));
    points[t].push_back(point(e - lo, call ? PointKind::CallEnd : PointKind::OtherEdge));
    ends.push_back({e, t});
  });
  std::vector<ThreadWaitGap> gaps;
  for (uint32_t t = 0; t < threads; ++t) {
    auto& p = points[t];
    std::sort(p.begin(), p.end());
    int depth = 0;  // calls open: time inside a call is the call's, never idle
    for (size_t i = 0; i + 1 < p.size(); ++i) {
      const PointKind kind = kind_of(p[i]);
      if (kind == PointKind::CallStart)
        ++depth;
      else if (kind == PointKind::CallEnd && depth > 0)
        --depth;
      const uint64_t a = p[i] >> 2, b = p[i + 1] >> 2;
      if (depth == 0 && b - a >= opt.thread_wait_min_gap_ns)
        gaps.push_back({t, a + lo, b + lo, kNone, 0});
    }
    std::vector<uint64_t>().swap(p);
  }
  if (gaps.empty()) return;
  std::sort(ends.begin(), ends.end());
  for (auto& w : gaps) {
    // The latest event end on another thread in (gap start, gap end], within the wake window.
    auto it = std::upper_bound(ends.begin(), ends.end(), std::make_pair(w.to, UINT32_MAX));
    while (it != ends.begin()) {
      --it;
      if (it->first <= w.from || w.to - it->first > opt.thread_wake_ns) break;
      if (it->second != w.thread) {
        w.other = it->second, w.other_end = it->first;
        waits.push_back(w);
        break;
      }
    }
  }
}

namespace {

// Calls that are nodes: top-level calls that touch the GPU (launch, copy, memset, sync by
// name, or a call that some GPU work names by correlation, itself or a driver call inside it).
void mark_node_calls(Builder& b) {
  const RecordSet& r = b.r;
  IdMap gpu_corr(r.kernels.size() + r.memcpys.size() + r.memsets.size());
  for (const auto& k : r.kernels) gpu_corr.insert(k.correlation_id, 0);
  for (const auto& m : r.memcpys) gpu_corr.insert(m.correlation_id, 0);
  for (const auto& m : r.memsets) gpu_corr.insert(m.correlation_id, 0);
  const auto has_gpu = [&](const ApiRecord& a) {
    return a.correlation_id && gpu_corr.contains(a.correlation_id);
  };
  b.call_is_node.assign(r.api.size(), 0);
  b.top_call.assign(r.api.size(), kNone);
  // Top-level calls by start, per thread.
  std::vector<std::vector<uint32_t>> top(b.g.resources.size());
  for (size_t i = 0; i < r.api.size(); ++i)
    if (!b.nested[i]) top[b.thread_res[r.api[i].thread_id]].push_back(static_cast<uint32_t>(i));
  for (auto& list : top)
    std::stable_sort(list.begin(), list.end(),
                     [&](uint32_t x, uint32_t y) { return r.api[x].start_ns < r.api[y].start_ns; });
  for (size_t i = 0; i < r.api.size(); ++i) {
    const ApiRecord& a = r.api[i];
    if (!b.nested[i]) {
      b.top_call[i] = static_cast<uint32_t>(i);
      if (a.kind != ApiKind::Other || has_gpu(a)) b.call_is_node[i] = 1;
      continue;
    }
    // A driver call inside a runtime call: its GPU work is queued by the runtime call.
    const auto& list = top[b.thread_res[a.thread_id]];
    auto pos = std::upper_bound(list.begin(), list.end(), a.start_ns,
                                [&](uint64_t v, uint32_t c) { return v < r.api[c].start_ns; });
    if (pos == list.begin()) continue;
    const uint32_t outer = *std::prev(pos);
    if (r.api[outer].end_ns < a.end_ns) continue;
    b.top_call[i] = outer;
    if (has_gpu(a)) b.call_is_node[outer] = 1;
  }
}

// Which node calls hold the host until queued GPU work is done: blocking_calls.h's one
// definition, which needs the first GPU copy under each call's correlation for its kinds.
void mark_blocking_calls(Builder& b) {
  const RecordSet& r = b.r;
  const auto copy_of = copies_by_correlation(r);
  b.g.call_blocking.assign(r.api.size(), 0);
  for (size_t i = 0; i < r.api.size(); ++i) {
    if (!b.call_is_node[i]) continue;
    const auto copy =
        r.api[i].correlation_id ? copy_of.find(r.api[i].correlation_id) : copy_of.end();
    const MemcpyRecord* gpu_copy = copy != copy_of.end() ? &r.memcpys[copy->second] : nullptr;
    b.g.call_blocking[i] = waits_for_queued_gpu_work(blocking_kind(r.api[i], gpu_copy), gpu_copy);
  }
}

// A point of a thread's chain, sorted by (time, order, seq). Orders at one time: a call's end
// (0), an idle gap's end (1), a span's end or the thread's last point (2), a span's start or its
// first point (3), a call's start and a zero-length call's end (4: start before end by seq), an
// idle gap's start (5: the gap begins after whatever else happens at that time).
enum class Role : uint8_t { CallStart, CallEnd, SpanOpen, SpanClose, GapFrom, GapTo, First, Last };
struct Pt {
  uint64_t t;
  uint8_t order;
  Role role;
  uint32_t ref;
  uint64_t seq;
};
using ThreadPoints = std::vector<std::vector<Pt>>;

// Each thread's node calls in start order, clamped so that they follow one another
// (Builder::call_start, call_end), their ends as points. Returns the calls per thread.
std::vector<std::vector<uint32_t>> add_call_points(Builder& b, ThreadPoints* pts) {
  const RecordSet& r = b.r;
  std::vector<std::vector<uint32_t>> calls(pts->size());
  for (size_t i = 0; i < r.api.size(); ++i)
    if (b.call_is_node[i])
      calls[b.thread_res[r.api[i].thread_id]].push_back(static_cast<uint32_t>(i));
  b.call_start.assign(r.api.size(), 0);
  b.call_end.assign(r.api.size(), 0);
  for (size_t t = 0; t < calls.size(); ++t) {
    auto& list = calls[t];
    std::stable_sort(list.begin(), list.end(),
                     [&](uint32_t x, uint32_t y) { return r.api[x].start_ns < r.api[y].start_ns; });
    uint64_t prev_end = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      const ApiRecord& a = r.api[list[k]];
      uint64_t s = a.start_ns, e = a.end_ns;
      if (s < prev_end) s = prev_end, ++b.g.stats.overlapping_calls;
      if (e < s) e = s;
      b.call_start[list[k]] = s, b.call_end[list[k]] = e;
      prev_end = e;
      (*pts)[t].push_back({s, 4, Role::CallStart, list[k], 2 * k});
      (*pts)[t].push_back(
          {e, static_cast<uint8_t>(e == s ? 4 : 0), Role::CallEnd, list[k], 2 * k + 1});
    }
  }
  return calls;
}

// The thread's first and last points, so that its whole span maps; the idle gaps' ends.
void add_thread_points(Builder& b, ThreadPoints* pts) {
  const size_t threads = pts->size();
  std::vector<uint64_t> first(threads, UINT64_MAX), last(threads, 0);
  for_each_host_event(b.r, b.nested, [&](uint32_t tid, uint64_t s, uint64_t e, bool) {
    const uint32_t t = b.thread_res[tid];
    first[t] = std::min(first[t], s), last[t] = std::max(last[t], e);
  });
  for (size_t t = 0; t < threads; ++t) {
    if (first[t] > last[t]) continue;
    (*pts)[t].push_back({first[t], 3, Role::First, 0, 0});
    (*pts)[t].push_back({last[t], 2, Role::Last, 0, 0});
  }
  for (uint32_t w = 0; w < b.waits.size(); ++w) {
    (*pts)[b.waits[w].thread].push_back({b.waits[w].from, 5, Role::GapFrom, w, 0});
    (*pts)[b.waits[w].thread].push_back({b.waits[w].to, 1, Role::GapTo, w, 0});
  }
}

// Spans' ends: one inside a call moves out to the call's start (a span's start) or end (its
// end). They sort among themselves in the order given.
void add_span_points(Builder& b, const std::vector<Span>& spans,
                     std::vector<std::vector<uint32_t>>* calls, ThreadPoints* pts) {
  uint64_t span_seq = 0;
  const auto add_span_end = [&](uint32_t span, uint32_t thread, uint64_t time, bool opening) {
    auto it = b.thread_res.find(thread);
    const uint32_t t = it == b.thread_res.end() ? b.thread_resource(thread) : it->second;
    if (t >= pts->size()) pts->resize(t + 1), calls->resize(t + 1);
    const auto& list = (*calls)[t];
    auto pos = std::upper_bound(list.begin(), list.end(), time,
                                [&](uint64_t v, uint32_t a) { return v < b.call_start[a]; });
    if (pos != list.begin()) {
      const uint32_t a = *std::prev(pos);
      if (b.call_start[a] < time && time < b.call_end[a])
        time = opening ? b.call_start[a] : b.call_end[a];
    }
    (*pts)[t].push_back({time, static_cast<uint8_t>(opening ? 3 : 2),
                         opening ? Role::SpanOpen : Role::SpanClose, span, span_seq++});
  };
  for (uint32_t k = 0; k < spans.size(); ++k) {
    add_span_end(k, spans[k].thread, spans[k].start_ns, true);
    add_span_end(k, spans[k].thread, spans[k].end_ns, false);
  }
}

// Each thread's points in order become its nodes, each joined to the one before: a call's own
// time, an idle gap that waits for another thread, or the recorded time between.
void chain_points(Builder& b, size_t spans, ThreadPoints* pts) {
  Graph& g = b.g;
  g.call_node.assign(b.r.api.size(), kNone);
  g.span_nodes.assign(spans, {});
  g.thread_first.assign(g.resources.size(), 0);
  g.thread_count.assign(g.resources.size(), 0);
  for (uint32_t t = 0; t < pts->size(); ++t) {
    auto& p = (*pts)[t];
    std::sort(p.begin(), p.end(), [](const Pt& x, const Pt& y) {
      return x.t != y.t ? x.t < y.t : x.order != y.order ? x.order < y.order : x.seq < y.seq;
    });
    g.thread_first[t] = static_cast<uint32_t>(g.size());
    g.thread_count[t] = static_cast<uint32_t>(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      const uint32_t v = b.add_node(static_cast<int64_t>(p[i].t), 0, t, NodeType::Host, kNone);
      g.node_call.push_back(kNone);
      switch (p[i].role) {
        case Role::CallStart:
          g.call_node[p[i].ref] = v, g.node_call[v] = p[i].ref;
          break;
        case Role::SpanOpen:
          g.span_nodes[p[i].ref].open = v;
          break;
        case Role::SpanClose:
          g.span_nodes[p[i].ref].close = v;
          break;
        case Role::GapFrom:
          b.waits[p[i].ref].from_node = v;
          break;
        case Role::GapTo:
          b.waits[p[i].ref].to_node = v;
          break;
        default:
          break;
      }
      if (i == 0) continue;
      const Pt& a = p[i - 1];
      EdgeKind kind = EdgeKind::Gap;
      int64_t slack = static_cast<int64_t>(p[i].t - a.t);
      if (a.role == Role::CallStart && p[i].role == Role::CallEnd && a.ref == p[i].ref) {
        const ApiRecord& call = b.r.api[a.ref];
        kind = g.call_blocking[a.ref]         ? EdgeKind::SyncCall
               : call.kind == ApiKind::Launch ? EdgeKind::LaunchCall
                                              : EdgeKind::Call;
      } else if (a.role == Role::GapFrom && p[i].role == Role::GapTo && a.ref == p[i].ref) {
        kind = EdgeKind::WaitGap, slack = 0;
      }
      b.edge(v - 1, v, kind, slack);
    }
  }
}

}  // namespace

void Builder::build_chains(const std::vector<Span>& spans) {
  mark_node_calls(*this);
  mark_blocking_calls(*this);
  ThreadPoints pts(g.resources.size());
  std::vector<std::vector<uint32_t>> calls = add_call_points(*this, &pts);
  add_thread_points(*this, &pts);
  add_span_points(*this, spans, &calls, &pts);
  chain_points(*this, spans.size(), &pts);
  g.host_count = static_cast<uint32_t>(g.size());
}

void Builder::add_thread_waits() {
  for (const auto& w : waits) {
    if (w.to_node == kNone || w.from_node == kNone || w.to_node != w.from_node + 1) continue;
    // The other thread's last node at or before its event's end: its time there is that node's
    // plus the recorded CPU time between them.
    const uint32_t first = g.thread_first[w.other], count = g.thread_count[w.other];
    const auto begin = g.observed.begin() + first, end = begin + count;
    auto pos = std::upper_bound(begin, end, static_cast<int64_t>(w.other_end));
    if (pos == begin) continue;
    const uint32_t src = static_cast<uint32_t>(std::prev(pos) - g.observed.begin());
    edge(src, w.to_node, EdgeKind::ThreadWait, static_cast<int64_t>(w.to) - g.observed[src]);
    ++g.stats.thread_waits;
  }
}

}  // namespace trace::replay
