// Records from arbitrary bytes, for the replay's fuzz target and its sanitizer test: any field
// any value (times out of order, kernels before their launch, syncs that return before what they
// wait for, correlation ids shared or dangling, a cuda_sync row naming any stream), so the graph
// builder meets every inconsistency a broken or hostile trace can hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/model/records.h"

namespace testdata {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool more() const { return i_ < n_; }
  uint32_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  uint32_t small(uint32_t k) { return u8() % k; }
  uint64_t time() {  // up to ~0.6 ms
    const uint64_t hi = u8(), mid = u8(), lo = u8();
    return (hi << 16 | mid << 8 | lo) * 37;
  }

 private:
  const uint8_t* p_;
  size_t n_, i_ = 0;
};

inline trace::RecordSet garbage_records(const uint8_t* data, size_t size) {
  static const char* kCalls[] = {
      "cudaLaunchKernel", "cudaGraphLaunch",       "cudaMemcpyAsync",       "cudaMemcpy",
      "cudaMemsetAsync",  "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
      "cudaEventRecord",  "cudaStreamWaitEvent",   "cuLaunchKernel",        "cudaEventQuery"};
  ByteReader b(data, size);
  trace::RecordSet r;
  while (b.more()) {
    const uint32_t what = b.small(8);
    const uint64_t s = b.time(), d = b.time() / (1 + b.small(64));
    const uint32_t corr = b.small(12), thread = b.small(3), stream = 7 + b.small(3);
    switch (what) {
      case 0:
      case 1: {
        const char* name = kCalls[b.small(sizeof kCalls / sizeof *kCalls)];
        const bool driver = name[0] == 'c' && name[1] == 'u' && name[2] != 'd';
        r.api.push_back({s, s + d, corr, thread, trace::classify_api(name), driver, name});
        break;
      }
      case 2:
        r.kernels.push_back({s, s + d, corr, 0, stream, "k"});
        break;
      case 3:
        r.memcpys.push_back({s, s + d, corr, 0, stream, 4, trace::CopyKind::DtoH,
                             trace::MemoryKind::Device,
                             b.small(2) ? trace::MemoryKind::Pageable : trace::MemoryKind::Pinned});
        break;
      case 4:
        r.memsets.push_back({s, s + d, corr, 0, stream, 4});
        break;
      case 5: {
        trace::SyncRecord y{s, s + d, corr, b.small(2) ? stream : trace::kNoStream,
                            static_cast<trace::SyncKind>(b.small(5))};
        y.wait_stream = b.small(2) ? 7 + b.small(3) : trace::kNoStream;
        y.wait_record_correlation = b.small(12);
        r.syncs.push_back(y);
        break;
      }
      case 6:
        r.cpu_ops.push_back({s, s + d, thread, b.small(2) ? "aten::item" : "aten::mm"});
        break;
      default: {
        const std::string name = "ProfilerStep#" + std::to_string(b.small(4));
        r.annotations.push_back({s, s + d, thread, false, name});
        r.steps.push_back({s, s + d, name});
      }
    }
  }
  return r;
}

}  // namespace testdata
