#include "trace/model/records.h"

#include <algorithm>
#include <unordered_map>

#include "trace/model/sorted_order.h"

namespace trace {

const std::string& kernel_name(const RecordSet& r, const KernelRecord& k) {
  if (k.name_id && k.name_id <= r.kernel_names.size()) return r.kernel_names[k.name_id - 1];
  return k.name;
}

const char* to_string(ApiKind k) {
  switch (k) {
    case ApiKind::Launch:
      return "launch";
    case ApiKind::Sync:
      return "sync";
    case ApiKind::Memcpy:
      return "memcpy";
    case ApiKind::Memset:
      return "memset";
    default:
      return "other";
  }
}
const char* to_string(CopyKind k) {
  switch (k) {
    case CopyKind::HtoD:
      return "HtoD";
    case CopyKind::DtoH:
      return "DtoH";
    case CopyKind::DtoD:
      return "DtoD";
    case CopyKind::HtoH:
      return "HtoH";
    default:
      return "other";
  }
}
const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::Pageable:
      return "pageable";
    case MemoryKind::Pinned:
      return "pinned";
    case MemoryKind::Device:
      return "device";
    default:
      return "other";
  }
}
const char* to_string(SyncKind k) {
  switch (k) {
    case SyncKind::Stream:
      return "stream";
    case SyncKind::Event:
      return "event";
    case SyncKind::Context:
      return "context";
    case SyncKind::StreamWaitEvent:
      return "stream_wait_event";
    default:
      return "other";
  }
}

ApiKind classify_api(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("LaunchKernel") || has("LaunchCooperativeKernel") || has("GraphLaunch") ||
      has("LaunchHostFunc"))
    return ApiKind::Launch;
  if (has("Synchronize")) return ApiKind::Sync;
  if (has("Memcpy")) return ApiKind::Memcpy;
  if (has("Memset")) return ApiKind::Memset;
  return ApiKind::Other;
}

std::pair<uint64_t, uint64_t> record_span(const RecordSet& r) {
  uint64_t lo = UINT64_MAX, hi = 0;
  const auto see = [&](const auto& list) {
    for (const auto& x : list) lo = std::min(lo, x.start_ns), hi = std::max(hi, x.end_ns);
  };
  see(r.api), see(r.kernels), see(r.memcpys), see(r.memsets), see(r.syncs);
  see(r.ranges), see(r.cpu_ops), see(r.annotations), see(r.steps);
  return {lo, hi};
}

CallOrder order_calls(const std::vector<ApiRecord>& api) {
  CallOrder o;
  o.by_start = sorted_order(api.size(), [&](size_t i) {
    return std::make_pair(api[i].start_ns, uint64_t{api[i].driver});
  });
  o.nested_driver.assign(api.size(), false);
  std::unordered_map<uint32_t, std::vector<uint64_t>>
      open_runtime_ends;  // per thread, innermost last
  for (uint32_t i : o.by_start) {
    const ApiRecord& x = api[i];
    auto& open = open_runtime_ends[x.thread_id];
    while (!open.empty() && open.back() < x.start_ns) open.pop_back();
    if (x.driver)
      o.nested_driver[i] = !open.empty() && open.back() >= x.end_ns;
    else
      open.push_back(x.end_ns);
  }
  return o;
}

}  // namespace trace
