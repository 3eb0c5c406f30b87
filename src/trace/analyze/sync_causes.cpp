#include "trace/analyze/sync_causes.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "trace/model/sorted_order.h"

namespace trace {

namespace {

// Host ops of one thread, with each op's parent (the op it is nested in).
struct ThreadOps {
  std::vector<const CpuOpRecord*> ops;  // by start, outer before inner at equal start
  std::vector<int> parent;
};

std::unordered_map<uint32_t, ThreadOps> index_ops(const std::vector<CpuOpRecord>& all) {
  std::unordered_map<uint32_t, ThreadOps> by_thread;
  // By start, the longer first at equal starts (the outer op before the op it holds).
  const auto order = sorted_order(all.size(), [&](size_t i) {
    return std::make_pair(all[i].start_ns, UINT64_MAX - all[i].end_ns);
  });
  for (uint32_t i : order) by_thread[all[i].thread_id].ops.push_back(&all[i]);
  for (auto& [tid, t] : by_thread) {
    t.parent.assign(t.ops.size(), -1);
    std::vector<int> stack;
    for (int i = 0; i < static_cast<int>(t.ops.size()); ++i) {
      while (!stack.empty() && t.ops[stack.back()]->end_ns < t.ops[i]->end_ns) stack.pop_back();
      t.parent[i] = stack.empty() ? -1 : stack.back();
      stack.push_back(i);
    }
  }
  return by_thread;
}

// Merged GPU busy intervals with prefix sums: busy time inside any [a, b] in O(log n).
class BusyIndex {
 public:
  explicit BusyIndex(const RecordSet& r) {
    std::vector<std::pair<uint64_t, uint64_t>> v;
    for (const auto& k : r.kernels) v.push_back({k.start_ns, k.end_ns});
    for (const auto& m : r.memcpys) v.push_back({m.start_ns, m.end_ns});
    for (const auto& m : r.memsets) v.push_back({m.start_ns, m.end_ns});
    std::sort(v.begin(), v.end());
    for (const auto& [s, e] : v) {
      if (!merged_.empty() && s <= merged_.back().second)
        merged_.back().second = std::max(merged_.back().second, e);
      else
        merged_.push_back({s, e});
    }
    prefix_.push_back(0);
    for (const auto& [s, e] : merged_) prefix_.push_back(prefix_.back() + (e - s));
  }
  // How long no GPU work ran after t: to the next busy interval's start (0 when busy at t, or
  // when nothing ran after t: no GPU work waited on the host then).
  uint64_t idle_after(uint64_t t) const {
    const auto next = std::partition_point(merged_.begin(), merged_.end(),
                                           [&](auto& x) { return x.second <= t; });
    if (next == merged_.end() || next->first <= t) return 0;
    return next->first - t;
  }
  uint64_t busy(uint64_t a, uint64_t b) const {
    if (b <= a || merged_.empty()) return 0;
    const auto first = std::partition_point(merged_.begin(), merged_.end(),
                                            [&](auto& x) { return x.second <= a; });
    const auto last =
        std::partition_point(merged_.begin(), merged_.end(), [&](auto& x) { return x.first < b; });
    if (first >= last) return 0;
    const size_t i = first - merged_.begin(), j = last - merged_.begin();
    uint64_t t = prefix_[j] - prefix_[i];
    if (first->first < a) t -= a - first->first;
    if (std::prev(last)->second > b) t -= std::prev(last)->second - b;
    return t;
  }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> merged_;
  std::vector<uint64_t> prefix_;
};

}  // namespace

SyncReport find_syncs(const RecordSet& r, bool named_by_call) {
  SyncReport rep;
  const auto copies = copies_by_correlation(r);

  // A driver call inside a runtime call on the same thread is the same host time.
  const std::vector<bool> nested = order_calls(r.api).nested_driver;

  const auto ops = index_ops(r.cpu_ops);
  const BusyIndex busy(r);
  std::vector<const StepRecord*> steps;
  for (const auto& s : r.steps) steps.push_back(&s);

  for (size_t i = 0; i < r.api.size(); ++i) {
    const ApiRecord& a = r.api[i];
    const auto copy = a.kind == ApiKind::Memcpy ? copies.find(a.correlation_id) : copies.end();
    const MemcpyRecord* gpu_copy = copy == copies.end() ? nullptr : &r.memcpys[copy->second];
    const Blocking kind = blocking_kind(a, gpu_copy);
    if (kind == Blocking::No || nested[i]) continue;
    SyncCall c;
    c.api = a.name;
    c.kind = kind;
    c.waits_for_gpu = waits_for_queued_gpu_work(kind, gpu_copy);
    c.thread_id = a.thread_id;
    c.start_ns = a.start_ns;
    c.blocked_ns = a.end_ns - a.start_ns;
    c.api_index = static_cast<uint32_t>(i);
    c.gpu_queued_ns = busy.busy(a.start_ns, a.end_ns);
    c.idle_after_ns = busy.idle_after(a.end_ns);
    c.op = named_by_call ? a.name : "(no op)";
    if (auto it = ops.find(a.thread_id); it != ops.end()) {
      const ThreadOps& t = it->second;
      auto pos = std::upper_bound(t.ops.begin(), t.ops.end(), a.start_ns,
                                  [](uint64_t v, auto* o) { return v < o->start_ns; });
      int i = static_cast<int>(pos - t.ops.begin()) - 1;
      while (i >= 0 && t.ops[i]->end_ns < a.end_ns) i = t.parent[i];
      if (i >= 0) {
        c.op = t.ops[i]->name;
        c.op_instance = static_cast<int64_t>(t.ops[i] - r.cpu_ops.data());
        std::vector<const std::string*> path;
        for (int j = i; j >= 0; j = t.parent[j]) path.push_back(&t.ops[j]->name);
        for (auto p = path.rbegin(); p != path.rend(); ++p)
          c.op_path += (c.op_path.empty() ? "" : " > ") + **p;
      }
    }
    for (size_t s = 0; s < r.steps.size(); ++s)
      if (r.steps[s].start_ns <= a.start_ns && a.start_ns <= r.steps[s].end_ns)
        c.step = static_cast<int>(s);
    if (kind == Blocking::Sync)
      ++rep.syncs, rep.sync_ns += c.blocked_ns;
    else
      ++rep.blocking_copies, rep.blocking_copy_ns += c.blocked_ns;
    rep.blocked_ns += c.blocked_ns;
    rep.calls.push_back(std::move(c));
  }
  std::sort(rep.calls.begin(), rep.calls.end(),
            [](const SyncCall& x, const SyncCall& y) { return x.start_ns < y.start_ns; });

  std::map<std::string, SyncCause> causes;
  std::map<std::string, std::unordered_set<int64_t>> instances;
  for (const auto& c : rep.calls) {
    auto& g = causes[c.op];
    g.op = c.op;
    ++g.calls;
    (c.kind == Blocking::Sync ? g.sync_ns : g.blocking_copy_ns) += c.blocked_ns;
    g.blocked_ns += c.blocked_ns;
    g.gpu_queued_ns += c.gpu_queued_ns;
    if (c.op_instance < 0 || instances[c.op].insert(c.op_instance).second) ++g.op_occurrences;
  }
  for (auto& [op, g] : causes) rep.by_cause.push_back(g);
  std::sort(rep.by_cause.begin(), rep.by_cause.end(), [](const SyncCause& x, const SyncCause& y) {
    return x.blocked_ns != y.blocked_ns ? x.blocked_ns > y.blocked_ns : x.op < y.op;
  });
  return rep;
}

}  // namespace trace
