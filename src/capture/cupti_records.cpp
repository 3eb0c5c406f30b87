#include "capture/cupti_records.h"

namespace trace {

CopyKind copy_kind_from_cupti(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return CopyKind::HtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return CopyKind::DtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return CopyKind::DtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return CopyKind::HtoH;
    default:
      return CopyKind::Other;
  }
}

MemoryKind memory_kind_from_cupti(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return MemoryKind::Pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return MemoryKind::Pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return MemoryKind::Device;
    default:
      return MemoryKind::Other;
  }
}

bool append_cupti_record(const CUpti_Activity* record, const ApiNameFn& api_name, RecordSet& out) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      out.kernels.push_back(
          {k->start, k->end, k->correlationId, k->deviceId, k->streamId, k->name ? k->name : "?"});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      out.memcpys.push_back({m->start, m->end, m->correlationId, m->deviceId, m->streamId, m->bytes,
                             copy_kind_from_cupti(m->copyKind), memory_kind_from_cupti(m->srcKind),
                             memory_kind_from_cupti(m->dstKind)});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      out.memsets.push_back(
          {m->start, m->end, m->correlationId, m->deviceId, m->streamId, m->bytes});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      SyncKind kind = SyncKind::Other;
      switch (s->type) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
          kind = SyncKind::Stream;
          break;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
          kind = SyncKind::Event;
          break;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
          kind = SyncKind::Context;
          break;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
          kind = SyncKind::StreamWaitEvent;
          break;
        default:
          break;
      }
      out.syncs.push_back({s->start, s->end, s->correlationId, s->streamId, kind});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
      std::string name = api_name(driver, a->cbid);
      const ApiKind kind = classify_api(name);
      out.api.push_back(
          {a->start, a->end, a->correlationId, a->threadId, kind, driver, std::move(name)});
      return true;
    }
    default:
      return false;
  }
}

}  // namespace trace
