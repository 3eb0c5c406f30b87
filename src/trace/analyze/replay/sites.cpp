#include "trace/analyze/replay/sites.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "trace/analyze/call_sites.h"

namespace trace::replay {

namespace {

void add_call(Site* s, const SyncCall& c) {
  s->calls.push_back(c.api_index);
  s->blocked_ns += c.blocked_ns;
  s->queued_ns += c.gpu_queued_ns;
}

// The row of the call-site table that `want` names (sites.h): its number, its label, or a part
// of one label only.
size_t site_row(const RecordSet& r, const SiteReport& sites, const std::string& want) {
  const auto listing = [&] {
    std::string out;
    for (size_t i = 0; i < sites.sites.size() && i < 20; ++i)
      out += "\n  " + std::to_string(i + 1) + ") " + site_label(r, sites.sites[i]);
    if (sites.sites.size() > 20) out += "\n  ...";
    return out;
  };
  const std::string what = "--what-if site=" + want + ": ";
  if (sites.stacks == SiteReport::Stacks::None)
    throw std::invalid_argument(what +
                                "this trace has no stacks, so no call sites (record them with "
                                "torch.profiler.profile(with_stack=True))");
  char* end = nullptr;
  const unsigned long n = std::strtoul(want.c_str(), &end, 10);
  if (!want.empty() && *end == '\0') {
    if (n >= 1 && n <= sites.sites.size()) return n - 1;
    throw std::invalid_argument(what + "no site numbered " + want + "; the sites:" + listing());
  }
  std::vector<size_t> part;
  for (size_t i = 0; i < sites.sites.size(); ++i) {
    const std::string label = site_label(r, sites.sites[i]);
    if (label == want) return i;
    if (label.find(want) != std::string::npos) part.push_back(i);
  }
  if (part.size() == 1) return part[0];
  throw std::invalid_argument(what +
                              (part.empty() ? "no site's label holds it"
                                            : "several sites' labels "
                                              "hold it: give its number") +
                              "; the sites:" + listing());
}

using Syncs = std::vector<const SyncCall*>;  // pointers: a call carries three strings

// By blocking call: the calls of one op instance together.
std::vector<Site> sites_by_blocking_call(const Syncs& syncs) {
  std::vector<Site> out;
  std::unordered_map<int64_t, size_t> by_op;  // op instance -> site
  for (const SyncCall* p : syncs) {
    const SyncCall& c = *p;
    const auto it = c.op_instance >= 0 ? by_op.find(c.op_instance) : by_op.end();
    if (it != by_op.end()) {
      Site& s = out[it->second];
      s.end_ns = std::max(s.end_ns, c.start_ns + c.blocked_ns);
      add_call(&s, c);
      continue;
    }
    Site s;
    s.thread = c.thread_id;
    s.start_ns = c.start_ns, s.end_ns = c.start_ns + c.blocked_ns;
    add_call(&s, c);
    if (c.op_instance >= 0) by_op[c.op_instance] = out.size();
    out.push_back(std::move(s));
  }
  return out;
}

// By call-site row: one site per occurrence of the row's callee, its calls together (one
// `.item()` is one).
std::vector<Site> sites_of_row(const RecordSet& r, const SyncReport& report,
                               const std::string& want) {
  std::vector<Site> out;
  const SiteReport sites = find_call_sites(r, report);
  const SiteRow& row = sites.sites[site_row(r, sites, want)];
  std::map<uint64_t, size_t> by_occurrence;
  for (uint32_t m : row.members) {
    const SyncCall& c = report.calls[m];
    if (!c.waits_for_gpu) continue;
    const auto [it, added] = by_occurrence.try_emplace(sites.calls[m].occurrence, out.size());
    if (added) {
      Site s;
      s.thread = c.thread_id;
      s.start_ns = c.start_ns, s.end_ns = c.start_ns + c.blocked_ns;
      out.push_back(std::move(s));
    }
    Site& s = out[it->second];
    s.start_ns = std::min(s.start_ns, c.start_ns);
    s.end_ns = std::max(s.end_ns, c.start_ns + c.blocked_ns);
    add_call(&s, c);
  }
  return out;
}

// By op: instances of the op on each thread, outermost only (an op nested in one of its own
// kind, as a recursive call, goes with its outer instance), each with the calls inside it.
std::vector<Site> sites_of_op(const RecordSet& r, const Syncs& syncs, const std::string& op) {
  std::vector<Site> out;
  std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> spans;
  for (const auto& o : r.cpu_ops)
    if (o.name == op) spans[o.thread_id].push_back({o.start_ns, o.end_ns});
  for (const auto& a : r.annotations)
    if (!a.gpu && a.name == op) spans[a.thread_id].push_back({a.start_ns, a.end_ns});
  for (const auto& h : r.ranges)
    if (h.name == op) spans[h.thread_id].push_back({h.start_ns, h.end_ns});
  std::map<uint32_t, Syncs> calls;  // blocking calls by thread, by start
  for (const SyncCall* c : syncs) calls[c->thread_id].push_back(c);
  for (auto& [thread, list] : spans) {
    std::sort(list.begin(), list.end(), [](auto& a, auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    uint64_t covered = 0;
    bool any = false;
    const auto& mine = calls[thread];
    for (const auto& [s0, s1] : list) {
      if (any && s1 <= covered) continue;  // inside the previous instance
      Site s;
      s.thread = thread, s.start_ns = s0, s.end_ns = s1, s.region = true;
      auto it = std::lower_bound(mine.begin(), mine.end(), s0,
                                 [](const SyncCall* c, uint64_t t) { return c->start_ns < t; });
      for (; it != mine.end() && (*it)->start_ns <= s1; ++it)
        if ((*it)->start_ns + (*it)->blocked_ns <= s1) add_call(&s, **it);
      out.push_back(std::move(s));
      covered = std::max(covered, s1), any = true;
    }
  }
  return out;
}

}  // namespace

std::vector<Site> find_sites(const RecordSet& r, const SyncReport& report,
                             const SiteSelector& sel) {
  // Only the calls that wait for queued GPU work are syncs to remove: a pageable upload holds the
  // host for its staging, which stays (blocking_calls.h).
  Syncs syncs;
  for (const SyncCall& c : report.calls)
    if (c.waits_for_gpu) syncs.push_back(&c);
  std::vector<Site> out;
  if (sel.by == SiteSelector::By::Blocking) {
    out = sites_by_blocking_call(syncs);
  } else if (sel.by == SiteSelector::By::Site) {
    out = sites_of_row(r, report, sel.name);
  } else if (sel.by == SiteSelector::By::Api) {
    for (const SyncCall* p : syncs) {
      const SyncCall& c = *p;
      if (c.api != sel.name) continue;
      Site s;
      s.thread = c.thread_id;
      s.start_ns = c.start_ns, s.end_ns = c.start_ns + c.blocked_ns;
      add_call(&s, c);
      out.push_back(std::move(s));
    }
  } else {
    out = sites_of_op(r, syncs, sel.name);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Site& a, const Site& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace trace::replay
