// KernelLaunch: what one kernel launch costs, on its own.
//   host_launch       host time of cudaLaunchKernel for an empty kernel, no sync in the
//                     measured span (launch throughput; host clock)
//   gpu_back_to_back  GPU time per empty kernel when dependent kernels queue back to back
//                     on one stream (CUDA events)
//   graph_node        GPU time per empty-kernel node of a replayed CUDA graph (CUDA events)
// us_per_op is per launch/kernel/node; manual time is the batch. Batches of 256 stay below the launch queue's depth, so
// the host never blocks on a full queue inside the measured span.
#include "bench_env.h"
#include "cuda/cuda_raii.h"
#include "cuda/primitives.h"
#include "bench_util.h"

namespace bench {
namespace {
constexpr int kBatch = 256;
}

static void BM_KernelLaunch(benchmark::State& state, std::string what) {
  if (!require_cuda(state)) return;
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
      for (auto _ : state) {
        start.record(s);
        for (int i = 0; i < kBatch; ++i) cuda_kernels::launch_empty(s);
        stop.record(s);
        CUDA_CHECK(cudaEventSynchronize(stop.get()));
        timer.record(state, stop.ms_since(start) / 1e3);
      }
      state.SetLabel("CUDA events, per kernel");
    } else {
      cuda_util::Graph graph;
      graph.begin_capture(s);
      for (int i = 0; i < kBatch; ++i) cuda_kernels::launch_empty(s);
      graph.end_capture(s);
      state.counters["graph_nodes"] = static_cast<double>(graph.nodes());
      graph.launch(s);  // first replay uploads the graph
      CUDA_CHECK(cudaStreamSynchronize(s));
      for (auto _ : state) {
        start.record(s);
        graph.launch(s);
        stop.record(s);
        CUDA_CHECK(cudaEventSynchronize(stop.get()));
        timer.record(state, stop.ms_since(start) / 1e3);
      }
      state.SetLabel("CUDA events, per graph node");
    }
    timer.finish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_kernel_launch(const BenchEnvPtr&) {
  for (const char* what : {"host_launch", "gpu_back_to_back", "graph_node"})
    benchmark::RegisterBenchmark((std::string("KernelLaunch/") + what).c_str(), BM_KernelLaunch, std::string(what))
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
