#include "capture/cupti_session.h"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "capture/cupti_records.h"

namespace trace {
namespace {

void check(CUptiResult r, const char* call, const char* file, int line) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + (msg ? msg : "unknown CUPTI error"));
}
#define CUPTI_CHECK(call) check((call), #call, __FILE__, __LINE__)

// Why these kinds: RUNTIME and DRIVER give the host side of every launch, copy and sync
// (torch and cuBLAS use both APIs); CONCURRENT_KERNEL keeps overlapping kernels apart
// instead of serialising them as KERNEL would; MEMCPY gives direction and pageable vs
// pinned; SYNCHRONIZATION records what each sync call waited for.
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kAlignment = 8;  // CUPTI requires 8-byte aligned buffers

// Completed buffers wait here until stop(): the callback only queues them.
struct BufferQueue {
  std::mutex mutex;
  std::vector<std::pair<uint8_t*, size_t>> full;
  uint64_t dropped = 0;
};
BufferQueue& queue() {
  static BufferQueue q;
  return q;
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // 0: CUPTI drops records and counts them
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                                  size_t valid) {
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::lock_guard<std::mutex> lock(queue().mutex);
  queue().full.emplace_back(buffer, valid);
  queue().dropped += dropped;
}

// Set by stop() once every record is in hand: the next runtime or driver API call to
// return detaches CUPTI from the process (cuptiFinalize), as CUPTI's header recommends, so
// the timed rows that run after a traced pass in the same process run without CUPTI loaded.
// Unsubscribing alone leaves CUPTI attached, and Kineto tears it down after every session
// (the default on CUDA 12.6+) because of slowdowns seen after profiling.
std::atomic<bool> g_detach_requested{false};
std::atomic<bool> g_detached{false};

// We subscribe to hold CUPTI's single subscriber slot (if another tool, Nsight Systems,
// holds it, subscribing fails and we step aside instead of corrupting its trace) and to
// reach an API exit site for the detach. The domain is enabled only for the detach.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (!g_detach_requested.load()) return;
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  if (g_detach_requested.exchange(false)) {  // one thread finalizes, whichever gets here first
    cuptiFinalize();
    g_detached = true;
  }
}

}  // namespace

CuptiSession::CuptiSession() {
  if (std::getenv("NSYS_PROFILING_SESSION_ID") || std::getenv("CUDA_INJECTION64_PATH")) {
    throw TracerUnavailable(
        "a CUDA profiler is injected (Nsight Systems?): the CUPTI tracer steps aside");
  }
  CUpti_SubscriberHandle sub = nullptr;
  const CUptiResult r =
      cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    throw TracerUnavailable(
        "another CUPTI client is attached (Nsight Systems?): the CUPTI tracer steps aside");
  }
  CUPTI_CHECK(r);
  subscriber_ = sub;
  try {
    // Record system thread ids (gettid) so API records match our host ranges' threads.
    CUPTI_CHECK(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
    CUPTI_CHECK(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed));
    active_ = true;
    for (auto kind : kKinds) CUPTI_CHECK(cuptiActivityEnable(kind));
  } catch (...) {
    for (auto kind : kKinds) cuptiActivityDisable(kind);
    cuptiUnsubscribe(sub);
    subscriber_ = nullptr;
    active_ = false;
    throw;
  }
}

CuptiSession::~CuptiSession() {
  if (active_) {
    for (auto kind : kKinds) cuptiActivityDisable(kind);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  std::vector<std::pair<uint8_t*, size_t>> left;
  {
    std::lock_guard<std::mutex> lock(queue().mutex);
    left.swap(queue().full);
    queue().dropped = 0;
  }
  for (auto& b : left) std::free(b.first);
  if (subscriber_) cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
}

void CuptiSession::stop(RecordSet& out) {
  // Disable first, then flush: a record made between a flush and the disable would stay in
  // CUPTI's active buffer and never reach us. The traced loop has drained the device.
  active_ = false;
  for (auto kind : kKinds) CUPTI_CHECK(cuptiActivityDisable(kind));
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::vector<std::pair<uint8_t*, size_t>> buffers;
  uint64_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(queue().mutex);
    buffers.swap(queue().full);
    std::swap(dropped, queue().dropped);
  }
  std::map<std::pair<bool, uint32_t>, std::string> names;
  const ApiNameFn api_name = [&](bool driver, uint32_t cbid) {
    auto [it, fresh] = names.try_emplace({driver, cbid});
    if (fresh) {
      const char* name = nullptr;
      cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid,
                           &name);
      it->second = name ? name : (driver ? "driver#" : "runtime#") + std::to_string(cbid);
    }
    return it->second;
  };
  for (auto& [buffer, valid] : buffers) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
      append_cupti_record(record, api_name, out);
    std::free(buffer);
  }
  out.dropped_records += dropped;
  out.clock = "cupti";
  detach();
}

void CuptiSession::detach() {
  auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
  g_detached = false;
  g_detach_requested = true;
  CUPTI_CHECK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
  int device = 0;
  cudaGetDevice(&device);  // any runtime call: its exit site runs the detach on this thread
  // Another thread's call may have taken the detach and still be inside cuptiFinalize.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!g_detached.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!g_detached.load()) {
    g_detach_requested = false;
    throw std::runtime_error(
        "CUPTI did not detach within 5 s of the traced pass (cuptiFinalize never ran)");
  }
  subscriber_ = nullptr;  // cuptiFinalize released the subscriber with everything else
}

uint64_t CuptiSession::timestamp_ns() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

}  // namespace trace
