#include "trace/analyze/call_sites.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "trace/analyze/frame_kinds.h"
#include "trace/analyze/nest_index.h"

namespace trace {

namespace {

// A native frame that is not the program's: the CUDA driver, runtime and profiler libraries,
// the C library and loader, or an address nothing resolved.
bool native_system_frame(const RecordSet& r, const NativeFrame& f) {
  if (f.unresolved) return true;
  const std::string& module = r.frame_names[f.module_id];
  const std::string base = module.substr(module.rfind('/') + 1);
  for (const char* lib : {"libcuda.", "libcudart.", "libcupti.", "libnvidia", "libnvToolsExt",
                          "libc.", "libc-", "ld-linux", "libpthread", "libstdc++", "libgcc_s"})
    if (base.rfind(lib, 0) == 0) return true;
  // The runtime API's C++ wrappers (cudaMalloc<T>, ...) are compiled into the program from
  // cuda_runtime.h: the call's own entry, not the code that made it.
  const std::string& symbol = r.frame_names[f.symbol_id];
  return symbol.rfind("cuda", 0) == 0 || symbol.rfind("cudaError cuda", 0) == 0 ||
         symbol.rfind("cudaError_t cuda", 0) == 0;
}

// Positions of the caller, callee, user and module frames in a stack (outermost first), looked
// for from the innermost frame out.
void place(CallSite* s, const std::vector<FrameKind>& kinds, const std::vector<bool>& user) {
  for (int32_t p = static_cast<int32_t>(s->stack.size()) - 1; p >= 0; --p) {
    const FrameKind k = kinds[p];
    if (s->caller < 0 && k == FrameKind::Code) {
      s->caller = p;
      if (p + 1 < static_cast<int32_t>(s->stack.size())) s->callee = p + 1;
    }
    if (s->user < 0 && user[p]) s->user = p;
    if (s->module < 0 && k == FrameKind::Module) s->module = p;
  }
}

// Frame kinds by name, worked out once per distinct name.
class FrameKinds {
 public:
  explicit FrameKinds(const RecordSet& r) : r_(r) {}
  FrameKind kind(uint32_t name) {
    fill(name);
    return kind_[name];
  }
  bool user(uint32_t name) {
    fill(name);
    return user_[name];
  }

 private:
  void fill(uint32_t name) {
    if (known_.size() <= name)
      known_.resize(r_.frame_names.size()), kind_.resize(known_.size()),
          user_.resize(known_.size());
    if (known_[name]) return;
    kind_[name] = classify_frame(r_.frame_names[name]);
    user_[name] = is_user_code(r_.frame_names[name]);
    known_[name] = true;
  }
  const RecordSet& r_;
  std::vector<bool> known_, user_;
  std::vector<FrameKind> kind_;
};

constexpr uint64_t kByFrame = 1ull << 62, kByOp = 2ull << 62, kByCall = 3ull << 62;

// The Python stack around [a, b] on `thread`, outermost first; its frames' record indices in
// `frames` (same order).
CallSite python_site(const RecordSet& r, const NestIndex& idx, FrameKinds* kinds, uint32_t thread,
                     uint64_t a, uint64_t b, std::vector<int64_t>* frames) {
  CallSite s;
  frames->clear();
  for (int64_t f = idx.innermost(thread, a, b); f >= 0; f = idx.parent(f)) {
    if (frames->size() == kMaxStack) {
      s.stack_cut = true;
      break;
    }
    frames->push_back(f);
  }
  std::reverse(frames->begin(), frames->end());
  std::vector<FrameKind> k;
  std::vector<bool> user;
  for (int64_t f : *frames) {
    const uint32_t name = r.py_frames[f].name_id;
    s.stack.push_back(name);
    k.push_back(kinds->kind(name));
    user.push_back(kinds->user(name));
  }
  place(&s, k, user);
  return s;
}

CallSite native_site(const RecordSet& r, const CallStack& cs) {
  CallSite s;
  std::vector<FrameKind> k;
  std::vector<bool> user;
  for (auto f = cs.frames.rbegin(); f != cs.frames.rend(); ++f) {  // outermost first
    if (s.stack.size() == kMaxStack) {
      s.stack_cut = true;
      break;
    }
    s.stack.push_back(f->symbol_id);
    const bool program = !native_system_frame(r, *f);
    k.push_back(program ? FrameKind::Code : FrameKind::NotAFile);
    user.push_back(program);
  }
  place(&s, k, user);
  return s;
}

// One call (or would-sync op) as the grouping sees it.
struct Member {
  int step = -1;
  uint64_t start_ns = 0;
  std::string op;
  const CallSite* site = nullptr;
};

uint32_t name_at(const CallSite& s, int32_t p) { return p < 0 ? kNoFrame : s.stack[p]; }

// The k-th occurrences of one (caller, callee, op) in a step are told apart only where they
// differ: a row whose blocked time per occurrence is at least twice the (lower) median row's and
// kStandsOutNs more, or that happens in fewer steps than the most frequent (the article's
// print `.item()` every 100th step beside the logged one in every step), stays its own site;
// the rest fold into one row, order 0 ("the others in its step"), or, when none stands out,
// into one plain site. An optimizer's 80 alike `.item()` are one row.
constexpr uint64_t kStandsOutNs = 50'000;

std::vector<SiteRow> fold_orders(std::vector<SiteRow> rows,
                                 std::map<size_t, std::unordered_set<int>>& steps_of,
                                 std::map<size_t, std::unordered_set<uint64_t>>& occurrences_of) {
  std::map<std::tuple<uint32_t, uint32_t, std::string>, std::vector<size_t>> by_key;
  for (size_t i = 0; i < rows.size(); ++i)
    by_key[{rows[i].caller, rows[i].callee, rows[i].op}].push_back(i);
  std::vector<bool> gone(rows.size(), false);
  const auto per = [&](size_t i) {
    return rows[i].blocked_ns / std::max<uint64_t>(1, rows[i].occurrences);
  };
  for (const auto& [key, list] : by_key) {
    if (list.size() < 2) continue;
    std::vector<uint64_t> costs;
    for (size_t i : list) costs.push_back(per(i));
    // The lower median: of two rows, the cheaper one is what the other stands out from.
    const size_t m = (costs.size() - 1) / 2;
    std::nth_element(costs.begin(), costs.begin() + static_cast<std::ptrdiff_t>(m), costs.end());
    const uint64_t mid = costs[m];
    uint64_t usual_steps = 0;  // how many steps the most frequent occurrence is in
    for (size_t i : list) usual_steps = std::max(usual_steps, rows[i].steps);
    std::vector<size_t> alike;
    for (size_t i : list)
      if ((per(i) < 2 * mid || per(i) < mid + kStandsOutNs) && rows[i].steps == usual_steps)
        alike.push_back(i);
    if (alike.size() < 2) continue;
    const size_t into = alike.front();
    rows[into].order = alike.size() == list.size() ? 1 : 0;
    for (size_t k = 1; k < alike.size(); ++k) {
      const size_t from = alike[k];
      SiteRow& a = rows[into];
      SiteRow& b = rows[from];
      a.calls += b.calls, a.blocked_ns += b.blocked_ns, a.gpu_queued_ns += b.gpu_queued_ns;
      a.members.insert(a.members.end(), b.members.begin(), b.members.end());
      for (const auto& api : b.apis)
        if (std::find(a.apis.begin(), a.apis.end(), api) == a.apis.end()) a.apis.push_back(api);
      steps_of[into].insert(steps_of[from].begin(), steps_of[from].end());
      occurrences_of[into].insert(occurrences_of[from].begin(), occurrences_of[from].end());
      gone[from] = true;
    }
    rows[into].steps = steps_of[into].size();
    rows[into].occurrences = occurrences_of[into].size();
    std::sort(rows[into].members.begin(), rows[into].members.end());
  }
  std::vector<SiteRow> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (!gone[i]) out.push_back(std::move(rows[i]));
  return out;
}

// Members grouped into sites (caller, callee, op, order), by `cost` descending.
template <typename Add>
std::vector<SiteRow> group(const std::vector<Member>& members, bool steps, Add add) {
  using Key = std::tuple<uint32_t, uint32_t, std::string>;  // caller, callee, op
  // The occurrences of each key in each step, in time order: their rank is the order.
  std::vector<uint32_t> by_start(members.size());
  for (uint32_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(), [&](uint32_t x, uint32_t y) {
    return members[x].start_ns < members[y].start_ns;
  });
  // Per step and key, each occurrence met so far and its rank (1, 2, ...).
  std::map<std::pair<int, Key>, std::unordered_map<uint64_t, uint32_t>> seen;
  std::map<std::tuple<uint32_t, uint32_t, std::string, uint32_t>, size_t> row_of;
  std::map<size_t, std::unordered_set<int>> steps_of;
  std::map<size_t, std::unordered_set<uint64_t>> occurrences_of;
  std::vector<SiteRow> rows;
  for (uint32_t i : by_start) {
    const Member& m = members[i];
    const CallSite& s = *m.site;
    const Key key{name_at(s, s.caller), name_at(s, s.callee), m.op};
    uint32_t order = 1;  // outside every step there is no step to count in
    if (steps && m.step >= 0) {
      auto& occ = seen[{m.step, key}];
      order = occ.try_emplace(s.occurrence, static_cast<uint32_t>(occ.size()) + 1).first->second;
    }
    const auto [it, added] = row_of.try_emplace(
        std::make_tuple(std::get<0>(key), std::get<1>(key), m.op, order), rows.size());
    if (added) {
      SiteRow row;
      row.caller = std::get<0>(key), row.callee = std::get<1>(key), row.op = m.op;
      row.order = order;
      row.user = name_at(s, s.user), row.module = name_at(s, s.module);
      rows.push_back(std::move(row));
    }
    SiteRow& row = rows[it->second];
    row.members.push_back(i);
    ++row.calls;
    add(&row, i);
    if (m.step >= 0) steps_of[it->second].insert(m.step);
    occurrences_of[it->second].insert(s.occurrence);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].steps = steps_of[i].size();
    rows[i].occurrences = occurrences_of[i].size();
  }
  rows = fold_orders(std::move(rows), steps_of, occurrences_of);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const SiteRow& a, const SiteRow& b) { return a.blocked_ns > b.blocked_ns; });
  return rows;
}

// The outermost op of "a > b > c".
std::string outermost(const std::string& path) { return path.substr(0, path.find(" > ")); }

}  // namespace

namespace {

// What finds a call's site in the trace's stacks: its Python frames, or its native stacks.
struct StackReader {
  explicit StackReader(const RecordSet& r) : kinds(r), frames(r.py_frames) {
    for (const auto& cs : r.call_stacks) native[cs.api_index] = &cs;
  }
  FrameKinds kinds;
  const NestIndex frames;
  std::unordered_map<uint32_t, const CallStack*> native;
  std::vector<int64_t> frame_records;  // python_site's scratch
};

// Each blocking call's site, then the calls grouped into rows (SiteReport::sites).
void add_blocking_sites(const RecordSet& r, const SyncReport& syncs, StackReader* st,
                        SiteReport* rep) {
  rep->calls.reserve(syncs.calls.size());
  for (size_t i = 0; i < syncs.calls.size(); ++i) {
    const SyncCall& c = syncs.calls[i];
    CallSite s;
    st->frame_records.clear();
    if (rep->stacks == SiteReport::Stacks::Python)
      s = python_site(r, st->frames, &st->kinds, c.thread_id, c.start_ns, c.start_ns + c.blocked_ns,
                      &st->frame_records);
    else if (auto it = st->native.find(c.api_index); it != st->native.end())
      s = native_site(r, *it->second);
    if (s.callee >= 0 && !st->frame_records.empty())
      s.occurrence = kByFrame | static_cast<uint64_t>(st->frame_records[s.callee]);
    else if (c.op_instance >= 0)
      s.occurrence = kByOp | static_cast<uint64_t>(c.op_instance);
    else
      s.occurrence = kByCall | i;
    if (rep->stacks != SiteReport::Stacks::None) {
      if (s.stack.empty())
        ++rep->without_stack;
      else if (s.caller < 0)
        ++rep->without_caller;
    }
    rep->calls.push_back(std::move(s));
  }
  std::vector<Member> members;
  for (size_t i = 0; i < syncs.calls.size(); ++i) {
    const SyncCall& c = syncs.calls[i];
    members.push_back(
        {c.step, c.start_ns, c.op_path.empty() ? c.api : outermost(c.op_path), &rep->calls[i]});
  }
  rep->sites = group(members, !r.steps.empty(), [&](SiteRow* row, uint32_t i) {
    const SyncCall& c = syncs.calls[i];
    row->blocked_ns += c.blocked_ns;
    row->gpu_queued_ns += c.gpu_queued_ns;
    if (std::find(row->apis.begin(), row->apis.end(), c.api) == row->apis.end())
      row->apis.push_back(c.api);
  });
  rep->site_of_call.assign(syncs.calls.size(), -1);
  for (size_t row = 0; row < rep->sites.size(); ++row)
    for (uint32_t m : rep->sites[row].members) rep->site_of_call[m] = static_cast<int32_t>(row);
}

// A trace without GPU work: the ops that would block on one, each outermost instance, with
// their sites and rows (SiteReport::would_sync*).
void add_would_sync_sites(const RecordSet& r, StackReader* st, SiteReport* rep) {
  const NestIndex ops(r.cpu_ops);
  const auto would = [](const std::string& name) {
    for (const char* w : kWouldSyncOps)
      if (name == w) return true;
    return false;
  };
  std::vector<std::string> paths;
  for (size_t i = 0; i < r.cpu_ops.size(); ++i) {
    const CpuOpRecord& o = r.cpu_ops[i];
    if (!would(o.name)) continue;
    bool inside_another = false;
    int64_t root = static_cast<int64_t>(i);
    for (int64_t p = ops.parent(static_cast<int64_t>(i)); p >= 0; p = ops.parent(p)) {
      inside_another |= would(r.cpu_ops[p].name);
      root = p;
    }
    if (inside_another) continue;
    WouldSync w;
    w.op_index = static_cast<uint32_t>(i);
    w.host_ns = o.end_ns - o.start_ns;
    for (size_t s = 0; s < r.steps.size(); ++s)
      if (r.steps[s].start_ns <= o.start_ns && o.start_ns <= r.steps[s].end_ns)
        w.step = static_cast<int>(s);
    CallSite s;
    if (rep->stacks == SiteReport::Stacks::Python)
      s = python_site(r, st->frames, &st->kinds, o.thread_id, o.start_ns, o.end_ns,
                      &st->frame_records);
    s.occurrence =
        s.callee >= 0 ? kByFrame | static_cast<uint64_t>(st->frame_records[s.callee]) : kByOp | i;
    rep->would_sync.push_back(w);
    rep->would_sync_calls.push_back(std::move(s));
    paths.push_back(r.cpu_ops[root].name);
  }
  std::vector<Member> wm;
  for (size_t i = 0; i < rep->would_sync.size(); ++i) {
    const WouldSync& w = rep->would_sync[i];
    wm.push_back({w.step, r.cpu_ops[w.op_index].start_ns, paths[i], &rep->would_sync_calls[i]});
  }
  rep->would_sync_sites = group(wm, !r.steps.empty(), [&](SiteRow* row, uint32_t i) {
    row->blocked_ns += rep->would_sync[i].host_ns;
    const std::string& name = r.cpu_ops[rep->would_sync[i].op_index].name;
    if (std::find(row->apis.begin(), row->apis.end(), name) == row->apis.end())
      row->apis.push_back(name);
  });
}

}  // namespace

SiteReport find_call_sites(const RecordSet& r, const SyncReport& syncs) {
  SiteReport rep;
  rep.stacks = !r.py_frames.empty()     ? SiteReport::Stacks::Python
               : !r.call_stacks.empty() ? SiteReport::Stacks::Native
                                        : SiteReport::Stacks::None;
  rep.gpu_work = !(r.kernels.empty() && r.memcpys.empty() && r.memsets.empty());
  StackReader stacks(r);
  add_blocking_sites(r, syncs, &stacks, &rep);
  if (!rep.gpu_work) add_would_sync_sites(r, &stacks, &rep);
  return rep;
}

std::string site_label(const RecordSet& r, const SiteRow& s) {
  const auto name = [&](uint32_t n) { return n == kNoFrame ? std::string() : r.frame_names[n]; };
  std::string out = s.caller == kNoFrame ? "(no caller frame)" : name(s.caller);
  if (s.callee != kNoFrame) out += " -> " + name(s.callee);
  out += ", " + s.op;
  if (s.order == 0) out += " (the others in its step)";
  if (s.order > 1) {
    const uint32_t n = s.order;
    const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                    ? "st"
                         : n % 10 == 2                    ? "nd"
                         : n % 10 == 3                    ? "rd"
                                                          : "th";
    out += " (" + std::to_string(n) + suffix + " in its step)";
  }
  return out;
}

}  // namespace trace
