#include "trace/analyze/graph_breaks.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "trace/analyze/nest_index.h"
#include "trace/analyze/steps_from_ranges.h"

namespace trace {

namespace {

// Dynamo's and AOTAutograd's own ranges around a compiled graph, and inductor's range around
// its call: the region's entry, not the work it runs.
bool bookkeeping(const std::string& name) {
  for (const char* p : {"Torch-Compiled Region", "TorchDynamo", "Pregraph bytecode",
                        "AOTDispatcher", "## ", "CompiledFunction"})
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

bool would_sync_op(const std::string& name) {
  for (const char* w : kWouldSyncOps)
    if (name == w) return true;
  return false;
}

struct Region {
  uint64_t start, end;
  uint32_t op;  // index into cpu_ops
};

// One thread's ops by start, for the regions' entries.
struct ThreadOps {
  std::vector<uint32_t> ops;  // indices into cpu_ops, by start
  std::vector<Region> regions;
};

int step_of(const RecordSet& r, uint64_t t) {
  for (size_t s = 0; s < r.steps.size(); ++s)
    if (r.steps[s].start_ns <= t && t <= r.steps[s].end_ns) return static_cast<int>(s);
  return -1;
}

// From the start of the region's cache lookup (when one ends right before it) to the start of
// the first op or GPU-facing call it runs that is not bookkeeping (its end when none).
std::pair<uint64_t, uint64_t> entry_of(const RecordSet& r, const ThreadOps& t, const Region& g,
                                       const std::vector<uint64_t>& api_starts) {
  const auto& ops = r.cpu_ops;
  uint64_t from = g.start;
  const auto at = std::lower_bound(t.ops.begin(), t.ops.end(), g.op, [&](uint32_t a, uint32_t b) {
    return ops[a].start_ns < ops[b].start_ns;
  });
  for (auto it = at; it != t.ops.begin();) {
    const CpuOpRecord& o = ops[*--it];
    if (o.start_ns >= g.start || o.end_ns >= g.end) continue;  // itself, or around it
    if (o.name.rfind("TorchDynamo Cache Lookup", 0) == 0 && o.end_ns <= g.start) {
      from = o.start_ns;
      break;
    }
    if (!bookkeeping(o.name)) break;  // other work before it: no lookup of its own
  }
  uint64_t first = g.end;
  for (auto it = at; it != t.ops.end() && ops[*it].start_ns <= g.end; ++it)
    if (*it != g.op && ops[*it].start_ns >= g.start && !bookkeeping(ops[*it].name)) {
      first = ops[*it].start_ns;
      break;
    }
  const auto a = std::lower_bound(api_starts.begin(), api_starts.end(), g.start);
  if (a != api_starts.end() && *a < first) first = *a;
  return {from, first};
}

}  // namespace

namespace {

// The occurrences that could break a graph: the blocking calls of one op occurrence together,
// or, without GPU work, each outermost op that would block on a GPU.
std::vector<GraphBreak> candidates(const RecordSet& r, const SyncReport& syncs) {
  std::vector<GraphBreak> out;
  const bool gpu_work = !(r.kernels.empty() && r.memcpys.empty() && r.memsets.empty());
  if (gpu_work) {
    std::map<std::pair<uint32_t, int64_t>, size_t> by_op;  // (thread, op instance) -> candidate
    for (uint32_t i = 0; i < syncs.calls.size(); ++i) {
      const SyncCall& c = syncs.calls[i];
      const uint64_t end = r.api[c.api_index].end_ns;
      const auto key = std::make_pair(c.thread_id, c.op_instance);
      const auto it = c.op_instance >= 0 ? by_op.find(key) : by_op.end();
      if (it != by_op.end()) {
        GraphBreak& b = out[it->second];
        b.calls.push_back(i), b.end_ns = std::max(b.end_ns, end);
        continue;
      }
      if (c.op_instance >= 0) by_op[key] = out.size();
      GraphBreak b;
      b.thread = c.thread_id, b.start_ns = c.start_ns, b.end_ns = end, b.calls = {i};
      out.push_back(std::move(b));
    }
    return out;
  }
  const NestIndex nest(r.cpu_ops);
  for (uint32_t i = 0; i < r.cpu_ops.size(); ++i) {
    const CpuOpRecord& o = r.cpu_ops[i];
    if (!would_sync_op(o.name)) continue;
    bool outermost = true;  // not inside another would-sync op (call_sites.cpp's rule)
    for (int64_t p = nest.parent(i); p >= 0; p = nest.parent(p))
      outermost &= !would_sync_op(r.cpu_ops[static_cast<size_t>(p)].name);
    if (!outermost) continue;
    GraphBreak b;
    b.thread = o.thread_id, b.start_ns = o.start_ns, b.end_ns = o.end_ns;
    b.would_sync = static_cast<int32_t>(i);
    out.push_back(std::move(b));
  }
  std::sort(out.begin(), out.end(),
            [](const GraphBreak& a, const GraphBreak& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace

GraphBreakReport find_graph_breaks(const RecordSet& r, const SyncReport& syncs) {
  GraphBreakReport out;
  for (const auto& o : r.cpu_ops) out.regions += range_name_matches(o.name, kCompiledRegion);
  if (!out.regions) return out;  // no torch.compile: nothing more to index
  std::unordered_map<uint32_t, ThreadOps> threads;
  for (uint32_t i = 0; i < r.cpu_ops.size(); ++i) {
    const CpuOpRecord& o = r.cpu_ops[i];
    threads[o.thread_id].ops.push_back(i);
    if (range_name_matches(o.name, kCompiledRegion))
      threads[o.thread_id].regions.push_back({o.start_ns, o.end_ns, i});
  }
  // GPU-facing calls per thread, by start: the first one in a region ends its entry.
  std::unordered_map<uint32_t, std::vector<uint64_t>> api_starts;
  for (const auto& a : r.api)
    if (a.kind != ApiKind::Other) api_starts[a.thread_id].push_back(a.start_ns);
  for (auto& [id, v] : api_starts) std::sort(v.begin(), v.end());
  for (auto& [id, t] : threads) {
    std::sort(t.ops.begin(), t.ops.end(), [&](uint32_t a, uint32_t b) {
      return r.cpu_ops[a].start_ns < r.cpu_ops[b].start_ns;
    });
    std::sort(t.regions.begin(), t.regions.end(), [](const Region& a, const Region& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
  }
  // A candidate breaks a graph between the compiled region before it and the one after it.
  for (GraphBreak& b : candidates(r, syncs)) {
    const auto found = threads.find(b.thread);
    if (found == threads.end()) continue;
    const ThreadOps& t = found->second;
    const Region *in = nullptr, *next = nullptr, *before = nullptr;
    for (const Region& g : t.regions) {
      if (g.start <= b.start_ns && b.end_ns <= g.end) in = &g;  // the innermost, by start
      if (g.end <= b.start_ns && (!before || g.end > before->end)) before = &g;
      if (!next && g.start >= b.end_ns) next = &g;
    }
    if (!next) continue;
    b.step = step_of(r, b.start_ns);
    if (in && next->start < in->end) {
      b.inside = true, before = in;
    } else if (in || !before || step_of(r, before->start) != b.step ||
               step_of(r, next->start) != b.step) {
      continue;
    }
    b.before = r.cpu_ops[before->op].name, b.after = r.cpu_ops[next->op].name;
    std::tie(b.entry_start_ns, b.entry_end_ns) = entry_of(r, t, *next, api_starts[b.thread]);
    b.entry_ns = static_cast<int64_t>(b.entry_end_ns - b.entry_start_ns);
    out.breaks.push_back(std::move(b));
  }
  return out;
}

void label_graph_breaks(const RecordSet& r, const SyncReport& syncs, const SiteReport& sites,
                        GraphBreakReport* rep) {
  std::unordered_map<uint32_t, int32_t> would_row;  // cpu op -> its row in would_sync_sites
  for (size_t row = 0; row < sites.would_sync_sites.size(); ++row)
    for (uint32_t m : sites.would_sync_sites[row].members)
      would_row[sites.would_sync[m].op_index] = static_cast<int32_t>(row);
  std::map<std::pair<std::string, bool>, size_t> row_of;
  rep->rows.clear();
  for (uint32_t i = 0; i < rep->breaks.size(); ++i) {
    const GraphBreak& b = rep->breaks[i];
    std::string where;
    if (!b.calls.empty()) {
      const int32_t s =
          sites.stacks != SiteReport::Stacks::None && b.calls[0] < sites.site_of_call.size()
              ? sites.site_of_call[b.calls[0]]
              : -1;
      if (s >= 0) {
        where = site_label(r, sites.sites[static_cast<size_t>(s)]);
      } else {
        // The outermost op that is not the compiled code's own (a region, its graph's call).
        const std::string& path = syncs.calls[b.calls[0]].op_path;
        for (size_t from = 0; from < path.size() && where.empty();) {
          const size_t cut = std::min(path.find(" > ", from), path.size());
          const std::string op = path.substr(from, cut - from);
          if (!bookkeeping(op)) where = op;
          from = cut + 3;
        }
        if (where.empty()) where = syncs.calls[b.calls[0]].api;
      }
    } else {
      const auto w = would_row.find(static_cast<uint32_t>(b.would_sync));
      where = w != would_row.end()
                  ? site_label(r, sites.would_sync_sites[static_cast<size_t>(w->second)])
                  : r.cpu_ops[static_cast<size_t>(b.would_sync)].name;
    }
    const auto key = std::make_pair(where, b.inside);
    auto it = row_of.find(key);
    if (it == row_of.end()) {
      it = row_of.emplace(key, rep->rows.size()).first;
      GraphBreakRow row;
      row.where = where, row.inside = b.inside, row.before = b.before, row.after = b.after;
      rep->rows.push_back(std::move(row));
    }
    GraphBreakRow& row = rep->rows[it->second];
    ++row.breaks, row.entry_ns += b.entry_ns, row.members.push_back(i);
  }
  for (GraphBreakRow& row : rep->rows) {
    std::set<int> steps;
    std::vector<int64_t> entries;
    for (uint32_t m : row.members) {
      if (rep->breaks[m].step >= 0) steps.insert(rep->breaks[m].step);
      entries.push_back(rep->breaks[m].entry_ns);
    }
    row.steps = steps.size();
    std::sort(entries.begin(), entries.end());
    row.entry_median_ns = entries[entries.size() / 2];
  }
  std::stable_sort(
      rep->rows.begin(), rep->rows.end(),
      [](const GraphBreakRow& a, const GraphBreakRow& b) { return a.entry_ns > b.entry_ns; });
}

}  // namespace trace
