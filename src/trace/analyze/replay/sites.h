// The syncs a what-if removes or keeps ("sites"), chosen by a selector:
//   blocking (default)  every blocking call (sync_causes.h), those under one op instance
//                       together: one `.item()` is one site, though it blocks in a copy and a
//                       stream sync. Removing a site removes those calls and their GPU work.
//   op=NAME             every outermost instance of a host op or range named NAME (a cpu_op such
//                       as aten::item, a user annotation, one of our phases such as `log`),
//                       blocking or not: removing it removes all of its host time, the calls in
//                       it and their GPU work. On a CPU run `.item()` blocks on nothing, and its
//                       own time is what logging less often saves.
//   api=NAME            every blocking call of that API (cudaStreamSynchronize, ...), one by one.
//   site=SITE           the blocking calls of one call site (call_sites.h), each occurrence of
//                       its callee one site; SITE is the row's number in ./attribute's call-site
//                       table (1 = the most blocked), its label as written there, or a part of
//                       the label that only one site's holds. No match, or several:
//                       std::invalid_argument listing the sites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/sync_causes.h"
#include "trace/model/records.h"

namespace trace::replay {

struct SiteSelector {
  enum class By : uint8_t { Blocking, Op, Api, Site };
  By by = By::Blocking;
  std::string name;
  bool operator<(const SiteSelector& o) const { return by != o.by ? by < o.by : name < o.name; }
};

struct Site {
  uint32_t thread = 0;  // thread id
  uint64_t start_ns = 0, end_ns = 0;
  bool region = false;          // remove all of [start, end] on the thread, not only the calls
  std::vector<uint32_t> calls;  // blocking calls in it (indices into RecordSet::api)
  uint64_t blocked_ns = 0;      // host time those calls blocked
  uint64_t queued_ns = 0;       // GPU work that ran while they blocked
};

// Sites in start order. `syncs` is find_syncs(records).
std::vector<Site> find_sites(const RecordSet& records, const SyncReport& syncs,
                             const SiteSelector& selector);

}  // namespace trace::replay
