// Sync: what waiting for the GPU costs, on its own and with work queued.
//   stream_idle              cudaStreamSynchronize on an idle stream (host clock)
//   event_sync               cudaEventRecord + cudaEventSynchronize on an idle stream
//   after_queued/k:K         K spin kernels of 10 us queued, then cudaStreamSynchronize:
//                            time from the first launch to the sync's return; counter
//                            gpu_work_us = K x 10, so time - gpu_work_us is the overhead
//   wake/blocking:B          one 100 us spin kernel, then cudaEventSynchronize on an event
//                            made with the default flags (B=0: the host spins) or with
//                            cudaEventBlockingSync (B=1: it sleeps); time - 100 us = wake-up
//   item_idle                LibTorch .item() of a 1-element CUDA tensor, GPU idle
//   item_after_queued/k:K    K tiny LibTorch ops queued, then .item()
// All host clock: the cost the CPU pays.
#include <torch/torch.h>

#include "bench_env.h"
#include "bench_util.h"
#include "cuda/cuda_raii.h"
#include "cuda/primitives.h"

namespace bench {
namespace {
constexpr uint64_t kSpinNs = 10000;
constexpr uint64_t kWakeSpinNs = 100000;
}  // namespace

static void BM_Sync(benchmark::State& state, std::string what) {
  if (!within_run_budget(state) || !require_cuda(state)) return;
  try {
    cuda_util::Stream stream;
    const auto s = stream.get();
    cuda_kernels::launch_spin(s, 1000);
    CUDA_CHECK(cudaStreamSynchronize(s));
    PerOpTimer timer(1);
    if (what == "stream_idle") {
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        CUDA_CHECK(cudaStreamSynchronize(s));
        timer.record(state, seconds_between(t0, HostClock::now()));
      }
    } else if (what == "event_sync") {
      cuda_util::Event e;
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        e.record(s);
        CUDA_CHECK(cudaEventSynchronize(e.get()));
        timer.record(state, seconds_between(t0, HostClock::now()));
      }
    } else if (what == "after_queued") {
      const int k = static_cast<int>(state.range(0));
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        for (int i = 0; i < k; ++i) cuda_kernels::launch_spin(s, kSpinNs);
        CUDA_CHECK(cudaStreamSynchronize(s));
        timer.record(state, seconds_between(t0, HostClock::now()));
      }
      state.counters["gpu_work_us"] = k * kSpinNs / 1e3;
    } else if (what == "wake") {
      cuda_util::Event e(state.range(0) ? cudaEventBlockingSync : cudaEventDefault);
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        cuda_kernels::launch_spin(s, kWakeSpinNs);
        e.record(s);
        CUDA_CHECK(cudaEventSynchronize(e.get()));
        timer.record(state, seconds_between(t0, HostClock::now()));
      }
      state.counters["gpu_work_us"] = kWakeSpinNs / 1e3;
    } else {  // item_idle, item_after_queued: LibTorch on its current stream
      auto x = torch::ones({1}, torch::dtype(torch::kFloat32).device(torch::kCUDA));
      const int k = what == "item_after_queued" ? static_cast<int>(state.range(0)) : 0;
      x.item<float>();
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        for (int i = 0; i < k; ++i) x.add_(1.0f);
        benchmark::DoNotOptimize(x.item<float>());
        timer.record(state, seconds_between(t0, HostClock::now()));
      }
      state.counters["queued_ops"] = k;
    }
    state.SetLabel("host clock");
    timer.finish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_sync(const BenchEnvPtr&) {
  const auto reg = [](const std::string& what) {
    return benchmark::RegisterBenchmark(("Sync/" + what).c_str(), BM_Sync, what)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  };
  reg("stream_idle");
  reg("event_sync");
  reg("after_queued")->ArgName("k")->Arg(0)->Arg(1)->Arg(4)->Arg(16)->Arg(64);
  reg("wake")->ArgName("blocking")->Arg(0)->Arg(1);
  reg("item_idle");
  reg("item_after_queued")->ArgName("k")->Arg(1)->Arg(4)->Arg(16)->Arg(64);
}

}  // namespace bench
