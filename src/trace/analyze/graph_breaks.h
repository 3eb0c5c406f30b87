// torch.compile's graph breaks, as a trace shows them. Dynamo compiles a function into one graph
// until something it cannot trace, such as a value read to the host (`.item()`, a
// data-dependent shape): there it breaks the graph, runs that eagerly and resumes in a new
// compiled region. Each region is a `Torch-Compiled Region: F/C` range in a torch.profiler
// trace, entered through a `TorchDynamo Cache Lookup` (the guards); a resumed region runs
// inside the one it broke out of.
//
// A break is a blocking call (sync_causes.h; the calls of one op occurrence together) or, in a
// trace with no GPU work, an op that would block on a GPU (call_sites.h kWouldSyncOps), made
//   inside a region, with a region starting after it inside the same one (Dynamo resumed after
//   it), or
//   between two regions of one step (the program read a value between two compiled calls).
// What merging the regions would save, beyond the sync itself: the entry of the region after
// it, from the start of its cache lookup to the first op the region runs (its guards, Dynamo's
// and AOTAutograd's wrappers); the kernels a merged graph may fuse are not counted. Docs:
// docs/trace-tool.md, "Graph breaks".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analyze/call_sites.h"
#include "trace/analyze/sync_causes.h"
#include "trace/model/records.h"

namespace trace {

struct GraphBreak {
  uint32_t thread = 0;
  uint64_t start_ns = 0, end_ns = 0;  // the blocking calls' (or the op's) span
  std::vector<uint32_t> calls;        // blocking calls: indices into SyncReport::calls
  int32_t would_sync = -1;            // else the op: an index into RecordSet::cpu_ops
  bool inside = false;                // inside a region that resumes after it; else between two
  std::string before, after;          // the region it is in (or the one before it), and the next
  int step = -1;                      // index into RecordSet::steps, -1 if none
  int64_t entry_ns = 0;               // the next region's entry (above)
  uint64_t entry_start_ns = 0, entry_end_ns = 0;
};

// Breaks of one place in the code: the call site (with stacks), else the op and where it is.
struct GraphBreakRow {
  std::string where;          // the site's label (call_sites.h), or "aten::item, inside a region"
  std::string before, after;  // the regions around its first break
  bool inside = false;
  uint64_t breaks = 0, steps = 0;
  int64_t entry_ns = 0;           // summed over its breaks
  int64_t entry_median_ns = 0;    // the median over its breaks
  std::vector<uint32_t> members;  // indices into GraphBreakReport::breaks
};

struct GraphBreakReport {
  uint64_t regions = 0;             // `Torch-Compiled Region` ranges in the trace
  std::vector<GraphBreak> breaks;   // in time order
  std::vector<GraphBreakRow> rows;  // by summed entry, largest first (labelled: label_graph_breaks)
};

constexpr const char* kCompiledRegion = "Torch-Compiled Region";

// The breaks of a trace; `syncs` is find_syncs(records).
GraphBreakReport find_graph_breaks(const RecordSet& records, const SyncReport& syncs);

// Groups the breaks by call site (`sites`: find_call_sites on the same records and syncs), or by
// op without stacks, into report->rows.
void label_graph_breaks(const RecordSet& records, const SyncReport& syncs, const SiteReport& sites,
                        GraphBreakReport* report);

}  // namespace trace
