// Memcpy: device-to-host and host-to-device copies from 4 bytes to 256 MiB, pageable vs
// pinned host memory, synchronous (cudaMemcpy) vs asynchronous (cudaMemcpyAsync +
// cudaStreamSynchronize). Host clock around copy + completion: the latency a caller pays;
// bytes_per_second gives the bandwidth.
//   Memcpy/DtoH-pinned-async/bytes:4 is what one loss.item() copies.
#include <cstring>

#include "bench_env.h"
#include "bench_util.h"
#include "cuda/cuda_raii.h"

namespace bench {

static void BM_Memcpy(benchmark::State& state, bool to_host, bool pinned, bool async) {
  if (!within_run_budget(state) || !require_cuda(state)) return;
  try {
    const auto bytes = static_cast<size_t>(state.range(0));
    cuda_util::Stream stream;
    cuda_util::DeviceBuffer dev(bytes);
    cuda_util::HostBuffer host(bytes, pinned);
    std::memset(host.get(), 1, bytes);  // touch every page before timing
    CUDA_CHECK(cudaMemset(dev.get(), 0, bytes));
    void* dst = to_host ? host.get() : dev.get();
    const void* src = to_host ? dev.get() : host.get();
    const auto kind = to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    PerOpTimer timer(1);
    for (auto _ : state) {
      const auto t0 = HostClock::now();
      if (async) {
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()));
        CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      } else {
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
      }
      timer.record(state, seconds_between(t0, HostClock::now()));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
    state.SetLabel("host clock");
    timer.finish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_memcpy(const BenchEnvPtr&) {
  for (bool to_host : {true, false})
    for (bool pinned : {false, true})
      for (bool async : {false, true}) {
        const std::string name = std::string("Memcpy/") + (to_host ? "DtoH" : "HtoD") +
                                 (pinned ? "-pinned" : "-pageable") + (async ? "-async" : "-sync");
        benchmark::RegisterBenchmark(name.c_str(), BM_Memcpy, to_host, pinned, async)
            ->ArgName("bytes")
            ->Arg(4)
            ->Arg(1 << 10)
            ->Arg(64 << 10)
            ->Arg(1 << 20)
            ->Arg(16 << 20)
            ->Arg(256 << 20)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
}

}  // namespace bench
