// Hand-built record streams with known answers, shared by the attribution and trace tests.
#pragma once

#include "trace/model/records.h"

namespace testdata {

inline trace::ApiRecord api(const char* name, uint64_t s, uint64_t e, uint32_t corr,
                            bool driver = false, uint32_t thread = 7) {
  return {s, e, corr, thread, trace::classify_api(name), driver, name};
}
inline trace::KernelRecord kernel(uint64_t s, uint64_t e, uint32_t corr, uint32_t stream = 7,
                                  const char* name = "k") {
  return {s, e, corr, 0, stream, name};
}
inline trace::HostRange range(const char* name, uint64_t s, uint64_t e, uint16_t depth,
                              uint32_t thread = 7) {
  return {s, e, thread, depth, name};
}

// One epoch [0, 1000] ns: forward launches two kernels, a D2H copy + stream sync (an
// .item()) waits for them, then a log range with no kernels.
//   launch A [10,20] corr 1 -> kernel [100,300]      (queued before the GPU was busy)
//   launch B [20,30] corr 2 -> kernel [305,505]      (queued; 5 ns gap: kernel wait)
//   memcpy   [600,610] corr 3 -> DtoH pinned [700,710] (GPU idle 505..700 while the copy
//                                                       was queued at 600: 95 host wait
//                                                       + ... see the test)
//   sync     [610,720] cudaStreamSynchronize
//   launch C [800,810] corr 4 -> kernel [900,950]     (queued after the GPU went idle)
inline trace::RecordSet one_epoch() {
  trace::RecordSet r;
  r.step_phase = "epoch";  // as bench names its step (capture/bench_names.h)
  r.ranges = {range("epoch", 0, 1000, 0), range("forward", 5, 40, 1), range("item", 590, 730, 1),
              range("log", 760, 790, 1), range("step", 795, 815, 1)};
  r.api = {api("cudaLaunchKernel", 10, 20, 1), api("cudaLaunchKernel", 20, 30, 2),
           api("cudaMemcpyAsync", 600, 610, 3), api("cudaStreamSynchronize", 610, 720, 0),
           api("cudaLaunchKernel", 800, 810, 4)};
  r.kernels = {kernel(100, 300, 1), kernel(305, 505, 2), kernel(900, 950, 4)};
  r.memcpys = {{700, 710, 3, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pinned}};
  return r;
}

}  // namespace testdata
