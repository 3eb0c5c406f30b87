#include "trace/analyze/hta_rows.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>

// File references below are to HolisticTraceAnalysis 0.5.0 (pip holistictraceanalysis==0.5.0).
namespace trace {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// hta/utils/utils.py, get_kernel_type(name) == COMPUTATION.
bool compute_name(std::string_view n) {
  if (starts_with(n, "nccl") && n.find("Kernel", 4) != std::string_view::npos) return false;
  if (starts_with(n, "Memcpy") || starts_with(n, "Memset") || starts_with(n, "dma")) return false;
  return !contains(n, "Memcpy") && !contains(n, "Sync");
}

// traceinsight 0.6.1, hta/utils/utils.py get_kernel_type(name) == COMPUTATION: not
// CommunicateKernelGroupingPattern, not MemoryKernelGroupingPattern, and not one of
// ComputeKernelGroupingPattern's exclusions (hta/common/types.py; re.match: from the start).
bool compute_name_06(std::string_view n) {
  const auto starts = [&](std::initializer_list<std::string_view> ps) {
    for (std::string_view p : ps)
      if (starts_with(n, p)) return true;
    return false;
  };
  if (starts({"nccl", "hip", "hccl"}) || contains(n, "ncclKernel")) return false;  // comm
  if (starts({"Memcpy", "Memset", "dma"})) return false;                           // memory
  if (contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "dma") || contains(n, "Sync"))
    return false;
  if (starts_with(n, "cuda") && n.find("LaunchKernel", 4) != std::string_view::npos) return false;
  return !starts({"Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe",
                  "cpum_exe_subgraph", "collective_subgraph_execution"});
}

// straggler.py, get_iter_nbr: N in re.match(r"ProfilerStep\s*#\s*(\d+)", name), else -1 (an N
// past int32 too: no real step number is).
int32_t step_iteration(std::string_view n) {
  const auto skip_space = [&](size_t i) {
    while (i < n.size() && std::string_view(" \t\n\r\f\v").find(n[i]) != std::string_view::npos)
      ++i;
    return i;
  };
  const std::string_view p = "ProfilerStep";
  if (!starts_with(n, p)) return -1;
  size_t i = skip_space(p.size());
  if (i >= n.size() || n[i] != '#') return -1;
  i = skip_space(i + 1);
  int64_t v = 0;
  size_t digits = 0;
  for (; i < n.size() && n[i] >= '0' && n[i] <= '9' && digits < 10; ++i, ++digits)
    v = v * 10 + (n[i] - '0');
  return digits && v <= INT32_MAX ? static_cast<int32_t>(v) : -1;
}

// The flags HTA's code derives from an event's name (hta/common/trace_filter.py,
// cuda_kernel_analysis.py, trace.py).
uint16_t name_flags(std::string_view n) {
  uint16_t f = 0;
  if (compute_name(n)) f |= HtaEvent::kComputeName;
  if (n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" ||
      n == "runFunction - job_prep_and_submit_for_execution")
    f |= HtaEvent::kLaunchName;
  if (n == "cudaMemcpyAsync" || n == "cudaMemsetAsync") f |= HtaEvent::kMemAsyncName;
  if (n == "Event Sync" || n == "Context Sync") f |= HtaEvent::kDeviceSyncName;
  if (contains(n, "ProfilerStep")) f |= HtaEvent::kStepName;
  if (starts_with(n, "ProfilerStep")) f |= HtaEvent::kStepPrefixName;
  const std::string_view step = "ProfilerStep#";  // ProfilerStepGroupingPattern
  if (starts_with(n, step) && n.size() > step.size() && n[step.size()] >= '0' &&
      n[step.size()] <= '9')
    f |= HtaEvent::kStep06Name;
  if (compute_name_06(n)) f |= HtaEvent::kCompute06Name;
  if (starts_with(n, "nccl") && n.find("Kernel", 4) != std::string_view::npos)
    f |= HtaEvent::kComm05Name;
  if (starts_with(n, "nccl") || starts_with(n, "hip") || starts_with(n, "hccl") ||
      contains(n, "ncclKernel"))
    f |= HtaEvent::kComm06Name;
  // trace_symbol_table.py, get_runtime_launch_events_query: the calls that enqueue.
  for (const char* q :
       {"cudaMemsetAsync", "cudaMemcpyAsync", "cudaLaunchKernel", "cudaLaunchKernelExC",
        "cuLaunchKernel", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
        "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream"})
    if (n == q) f |= HtaEvent::kQueueLaunchName | HtaEvent::kQueueLaunch06Name;
  if (n == "cuLaunchKernelEx") f |= HtaEvent::kQueueLaunch06Name;
  return f;
}

// hta/configs/event_args_yaml: the categories HTA's idle breakdown counts as kernels.
bool kernel_category(std::string_view c) {
  return c == "kernel" || c == "Kernel" || c == "gpu_memcpy" || c == "Memcpy" ||
         c == "gpu_memset" || c == "Memset" || c == "mtia_ccp_events";
}

HtaEvents from_listing(const EventListing& l) {
  HtaEvents out;
  out.missing_ts = l.ts_missing, out.float_ts = l.ts_missing || l.ts_fractional;
  out.missing_dur = l.dur_missing, out.float_dur = l.dur_missing || l.dur_fractional;
  out.pid_kinds = l.pid_kinds, out.tid_kinds = l.tid_kinds, out.listing_strings = &l.strings;
  // Flags once per distinct string, not per event.
  std::vector<uint16_t> as_name(l.strings.size()), as_category(l.strings.size());
  std::vector<int32_t> as_iter(l.strings.size());
  std::vector<bool> is_trace(l.strings.size());
  for (size_t i = 0; i < l.strings.size(); ++i) {
    as_name[i] = name_flags(l.strings[i]);
    as_iter[i] = step_iteration(l.strings[i]);
    as_category[i] = kernel_category(l.strings[i]) ? HtaEvent::kKernelCat : 0;
    if (l.strings[i] == "cpu_op") as_category[i] |= HtaEvent::kCpuOpCat;
    is_trace[i] = l.strings[i] == "Trace";
  }
  out.rows.reserve(l.events.size());
  std::vector<bool> seen_cat(l.strings.size()), seen_name(l.strings.size());
  for (const ListedEvent& e : l.events) {
    // trace_parser.py: events with "dur" and "cat", except cat "Trace".
    if (e.category == ListedEvent::kNone || is_trace[e.category]) continue;
    if (!seen_cat[e.category]) seen_cat[e.category] = true, out.cat_order.push_back(e.category);
    if (e.name == ListedEvent::kNone && out.name_missing_at < 0)
      out.name_missing_at = static_cast<int64_t>(out.name_order.size());
    if (e.name != ListedEvent::kNone && !seen_name[e.name])
      seen_name[e.name] = true, out.name_order.push_back(e.name);
    HtaEvent h;
    h.index = static_cast<int64_t>(e.index), h.ts_us = e.ts_us, h.dur_us = e.dur_us;
    h.stream = e.stream, h.correlation = e.correlation;
    h.pid = e.pid, h.tid = e.tid, h.name = e.name, h.memory_bw_gbps = e.memory_bw_gbps;
    h.flags = as_category[e.category];
    if (e.name != ListedEvent::kNone) {  // no name: not a computation kernel, nor anything else
      h.flags |= as_name[e.name];
      h.step_iter = as_iter[e.name];
      if (h.flags & HtaEvent::kStepName) out.step_names.insert(l.strings[e.name]);
      if (h.flags & HtaEvent::kStep06Name) out.step_names_06.insert(l.strings[e.name]);
    }
    out.rows.push_back(h);
  }
  return out;
}

// The rows a Kineto trace of these records would give HTA: Kineto writes each CUPTI record
// as one event (kernel, gpu_memcpy, gpu_memset, cuda_runtime / cuda_driver, cuda_sync) and
// each host range as a cpu_op or user_annotation, in microseconds.
HtaEvents from_records(const RecordSet& r) {
  HtaEvents out;
  // Kineto writes integer pids and tids: the GPU rows' device and stream, the host rows' thread.
  out.pid_kinds = out.tid_kinds = 1u << ListedId::kInt;
  const auto id = [](uint32_t v) { return v == 0 ? int64_t{-1} : int64_t{v}; };  // 0: none
  const auto stream = [](uint32_t s) { return s == kNoStream ? int64_t{-1} : int64_t{s}; };
  const auto add = [&](uint64_t start, uint64_t end, int64_t stream_id, int64_t corr,
                       uint16_t flags) {
    HtaEvent h;
    h.index = static_cast<int64_t>(out.rows.size());
    h.ts_us = static_cast<double>(start) / 1000.0;
    h.dur_us = static_cast<double>(end - start) / 1000.0;
    h.stream = stream_id, h.correlation = corr, h.flags = flags;
    out.float_ts |= start % 1000 != 0, out.float_dur |= (end - start) % 1000 != 0;
    out.rows.push_back(h);
  };
  const auto ids = [&](int64_t pid, int64_t tid) {
    ListedId p, t;
    p.kind = t.kind = ListedId::kInt, p.i = pid, t.i = tid;
    out.rows.back().pid = p, out.rows.back().tid = t;
  };
  std::unordered_map<std::string, uint32_t> name_at;
  const auto name = [&](const std::string& n) {
    const auto [it, added] = name_at.try_emplace(n, static_cast<uint32_t>(out.own_strings.size()));
    if (added) out.own_strings.push_back(n);
    out.rows.back().name = it->second;
  };
  const auto host = [&](const auto& x) {
    const uint16_t f = name_flags(x.name);
    if (f & HtaEvent::kStepName) out.step_names.insert(x.name);
    if (f & HtaEvent::kStep06Name) out.step_names_06.insert(x.name);
    add(x.start_ns, x.end_ns, -1, -1, f);
    ids(0, x.thread_id), name(x.name);
    out.rows.back().step_iter = step_iteration(x.name);
  };
  for (const auto& a : r.api) {
    add(a.start_ns, a.end_ns, -1, id(a.correlation_id), name_flags(a.name));
    ids(0, a.thread_id), name(a.name);
  }
  for (const auto& k : r.kernels) {
    add(k.start_ns, k.end_ns, stream(k.stream_id), id(k.correlation_id),
        HtaEvent::kKernelCat |
            (name_flags(k.name) & (HtaEvent::kComputeName | HtaEvent::kCompute06Name |
                                   HtaEvent::kComm05Name | HtaEvent::kComm06Name)));
    ids(k.device_id, k.stream_id), name(k.name);
  }
  // Kineto names copies "Memcpy ..." and sets "Memset ...": never computation.
  for (const auto& m : r.memcpys) {
    add(m.start_ns, m.end_ns, stream(m.stream_id), id(m.correlation_id), HtaEvent::kKernelCat);
    ids(m.device_id, m.stream_id), name("Memcpy");  // the kind and memories left out
    // Kineto's bandwidth: bytes over the duration (1 byte per ns is 1 GB/s).
    if (m.end_ns > m.start_ns)
      out.rows.back().memory_bw_gbps =
          static_cast<double>(m.bytes) / static_cast<double>(m.end_ns - m.start_ns);
  }
  for (const auto& m : r.memsets) {
    add(m.start_ns, m.end_ns, stream(m.stream_id), id(m.correlation_id), HtaEvent::kKernelCat);
    ids(m.device_id, m.stream_id), name("Memset (Device)");
    if (m.end_ns > m.start_ns)
      out.rows.back().memory_bw_gbps =
          static_cast<double>(m.bytes) / static_cast<double>(m.end_ns - m.start_ns);
  }
  for (const auto& y : r.syncs) {
    // Kineto's names for these: "Event Sync", "Context Sync".
    const bool device = y.kind == SyncKind::Event || y.kind == SyncKind::Context;
    add(y.start_ns, y.end_ns, stream(y.stream_id), id(y.correlation_id),
        device ? HtaEvent::kDeviceSyncName : 0);
    ids(0, y.stream_id);
  }
  for (const auto& c : r.cpu_ops) host(c);
  for (const auto& a : r.annotations)
    if (!a.gpu) host(a);  // a GPU annotation has no correlation to place it by
  return out;
}

}  // namespace

HtaEvents hta_events(const ImportedTrace& trace) {
  return trace.listing.listed ? from_listing(trace.listing) : from_records(trace.records);
}

}  // namespace trace
