#include "trace/analyze/blocking_calls.h"

namespace trace {

Blocking blocking_kind(const ApiRecord& call, const MemcpyRecord* copy) {
  if (call.kind == ApiKind::Sync) return Blocking::Sync;
  if (call.kind != ApiKind::Memcpy) return Blocking::No;
  if (call.name.find("Async") == std::string::npos)
    return copy && copy->kind == CopyKind::DtoD ? Blocking::No : Blocking::CopyNotAsync;
  if (copy && (copy->src == MemoryKind::Pageable || copy->dst == MemoryKind::Pageable))
    return Blocking::CopyPageable;
  return Blocking::No;
}

bool waits_for_queued_gpu_work(Blocking b, const MemcpyRecord* copy) {
  if (b == Blocking::CopyPageable) return copy && copy->dst == MemoryKind::Pageable;
  return b != Blocking::No;
}

const char* blocking_label(Blocking b) {
  switch (b) {
    case Blocking::Sync:
      return "sync";
    case Blocking::CopyNotAsync:
    case Blocking::CopyPageable:
      return "blocking copy";
    default:
      return "";
  }
}

const char* blocking_reason(Blocking b) {
  switch (b) {
    case Blocking::CopyNotAsync:
      return "not Async";
    case Blocking::CopyPageable:
      return "pageable";
    default:
      return "";
  }
}

std::unordered_map<uint32_t, uint32_t> copies_by_correlation(const RecordSet& r) {
  std::unordered_map<uint32_t, uint32_t> out;
  for (uint32_t i = 0; i < r.memcpys.size(); ++i) out.emplace(r.memcpys[i].correlation_id, i);
  return out;
}

}  // namespace trace
