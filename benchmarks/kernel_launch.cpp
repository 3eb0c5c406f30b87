// KernelLaunch: what one kernel launch costs, on its own.
//   host_launch       host time of cudaLaunchKernel for an empty kernel, no sync in the
//                     measured span (launch throughput; host clock)
//   gpu_back_to_back  GPU time per empty kernel when dependent kernels queue back to back
//                     on one stream (CUDA events)
//   graph_node        GPU time per empty-kernel node of a replayed CUDA graph (CUDA events)
// us_per_op is per launch/kernel/node; manual time is the batch. Batches of 256 stay below the
// launch queue's depth, so the host never blocks on a full queue inside the measured span. The two
// GPU-time rows first queue a 2 ms spin kernel (the gate) and record the start event behind it: the
// host queues the whole batch while the GPU is held, so the events time the GPU running queued
// kernels back to back, not the host launching them (an empty kernel runs faster than the host can
// launch one). `gate_missed` is the fraction of iterations in which the GPU had passed the start
// event before the batch was queued: such times are host-bound.
#include "bench_env.h"
#include "bench_util.h"
#include "cuda/cuda_raii.h"
#include "cuda/primitives.h"

namespace bench {
namespace {
constexpr int kBatch = 256;
constexpr uint64_t kGateNs = 2'000'000;  // 256 launches take well under 2 ms on a host

// Holds the GPU with the gate, then records `start` behind it; returns after the caller's
// work is queued whether the GPU had already reached `start` (the gate was too short).
template <typename QueueWork>
bool gated(cudaStream_t s, cuda_util::Event& start, cuda_util::Event& stop, QueueWork queue_work) {
  cuda_kernels::launch_spin(s, kGateNs);
  start.record(s);
  queue_work();
  stop.record(s);
  const bool missed = start.reached();
  CUDA_CHECK(cudaEventSynchronize(stop.get()));
  return missed;
}
}  // namespace

static void BM_KernelLaunch(benchmark::State& state, std::string what) {
  if (!within_run_budget(state) || !require_cuda(state)) return;
  try {
    cuda_util::Stream stream;
    const auto s = stream.get();
    for (int i = 0; i < 32; ++i) cuda_kernels::launch_empty(s);  // module load, first-launch costs
    CUDA_CHECK(cudaStreamSynchronize(s));
    cuda_util::Event start, stop;
    PerOpTimer timer(kBatch);
    if (what == "host_launch") {
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        for (int i = 0; i < kBatch; ++i) cuda_kernels::launch_empty(s);
        timer.record(state, seconds_between(t0, HostClock::now()));
        CUDA_CHECK(cudaStreamSynchronize(s));  // drain outside the measured span
      }
      state.SetLabel("host clock, per launch");
    } else if (what == "gpu_back_to_back") {
      int missed = 0;
      for (auto _ : state) {
        missed += gated(s, start, stop, [&] {
          for (int i = 0; i < kBatch; ++i) cuda_kernels::launch_empty(s);
        });
        timer.record(state, stop.ms_since(start) / 1e3);
      }
      state.counters["gate_missed"] =
          benchmark::Counter(missed, benchmark::Counter::kAvgIterations);
      state.SetLabel("CUDA events, per kernel");
    } else {
      cuda_util::Graph graph;
      graph.begin_capture(s);
      for (int i = 0; i < kBatch; ++i) cuda_kernels::launch_empty(s);
      graph.end_capture(s);
      state.counters["graph_nodes"] = static_cast<double>(graph.nodes());
      graph.launch(s);  // first replay uploads the graph
      CUDA_CHECK(cudaStreamSynchronize(s));
      int missed = 0;
      for (auto _ : state) {
        missed += gated(s, start, stop, [&] { graph.launch(s); });
        timer.record(state, stop.ms_since(start) / 1e3);
      }
      state.counters["gate_missed"] =
          benchmark::Counter(missed, benchmark::Counter::kAvgIterations);
      state.SetLabel("CUDA events, per graph node");
    }
    timer.finish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_kernel_launch(const BenchEnvPtr&) {
  for (const char* what : {"host_launch", "gpu_back_to_back", "graph_node"})
    benchmark::RegisterBenchmark((std::string("KernelLaunch/") + what).c_str(), BM_KernelLaunch,
                                 std::string(what))
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
