// RungSweep: every rung's cost against the work. The ladder's rungs (CPU: LibTorch eager
// with its default, 1 and all threads, the fused loop on 1 and all threads; CUDA: LibTorch
// eager, CUDA graph and the hand-written kernels) each train from 120 to 10^6 Iris-like
// rows, so the analysis can fit  us/epoch = fixed + rows x per_row  per rung and say from
// which batch each rung's fixed cost stops mattering.
//   ./bench --benchmark_filter=RungSweep --rung_sweep_batches=120,10000 --rung_sweep_epochs=20
// Epochs per row: rung_sweep_epochs x 10^4 / rows, within [rung_sweep_epochs, 20000], so
// small batches run long enough to time and large ones stay affordable (counter `epochs`).
// One loss is kept, at the last epoch (every rung supports that; the loss is a counter so a
// diverging run is visible). The hand-written CUDA kernels hold the rows in one block's
// shared memory: above their limit (cuda_kernels::kMaxRows) those rows skip, saying so, before
// anything runs (also without a GPU, so CI sees the same rows skip as the GPU run).
#include <algorithm>

#include "bench_env.h"
#include "bench_util.h"
#include "cuda/fused_mlp_types.h"
#include "train/cpu_rungs.h"
#include "train/flops.h"
#include "train/ladder.h"

namespace bench {

int64_t rung_sweep_epochs(int64_t sweep_epochs, int64_t rows) {
  const int64_t scaled =
      static_cast<int64_t>(static_cast<double>(sweep_epochs) * 1e4 / static_cast<double>(rows));
  return std::min<int64_t>(20000, std::max(sweep_epochs, scaled));
}

static void BM_RungSweep(benchmark::State& state, BenchEnvPtr env, bool cuda, train::Rung rung,
                         train::CpuRung cpu) {
  try {
    if (!within_run_budget(state)) return;
    const int64_t rows = state.range(0);
    if (cuda && (rung == train::Rung::FusedStepKernel || rung == train::Rung::PersistentKernel) &&
        rows > cuda_kernels::kMaxRows) {
      state.SkipWithError(("skipped: the hand-written kernels hold at most " +
                           std::to_string(cuda_kernels::kMaxRows) +
                           " rows (one block's shared memory), not " + std::to_string(rows))
                              .c_str());
      return;
    }
    if (cuda && !require_cuda(state)) return;
    const int64_t epochs = rung_sweep_epochs(env->options.rung_sweep_epochs, rows);
    const auto data = train::make_train_data(env->split, rows);
    const auto run = [&](int64_t n, uint64_t seed) {
      return cuda ? train::run_rung(rung, true, data, n, n, seed)
                  : train::run_cpu_rung(cpu, data, n, n, seed);
    };
    run(std::min<int64_t>(epochs, 10),
        env->options.seed + 1);  // warm-up: caches, pools, CUDA graphs
    train::LadderResult result;
    for (auto _ : state) {
      result = run(epochs, env->options.seed);
      state.SetIterationTime(result.seconds);
    }
    const double us = result.seconds * 1e6 / static_cast<double>(epochs);
    const double flops = train::epoch_flops(rows).total();
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["epochs"] = static_cast<double>(epochs);
    state.counters["us_per_epoch"] = us;
    state.counters["ns_per_row"] = us * 1e3 / static_cast<double>(rows);
    state.counters["flops_per_epoch"] = flops;
    state.counters["gflops"] = flops / us / 1e3;
    state.counters["cpu_threads"] = cuda ? 0 : train::threads_used(cpu);
    state.counters["final_loss"] = result.recorded.empty() ? 0.0 : result.recorded.back();
    state.counters["cuda"] = cuda ? 1 : 0;
    state.SetLabel(std::string(cuda ? "cuda " : "cpu ") +
                   (cuda ? train::rung_name(rung) : cpu.name));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_rung_sweep(const BenchEnvPtr& env) {
  for (const auto& device : env->options.devices) {
    const bool cuda = device == "cuda";
    const auto add = [&](const std::string& name, train::Rung rung, const train::CpuRung& cpu) {
      auto* b = benchmark::RegisterBenchmark(("RungSweep/" + device + "-" + name).c_str(),
                                             BM_RungSweep, env, cuda, rung, cpu);
      for (int64_t rows : env->options.rung_sweep_batches) b->Arg(rows);
      b->ArgName("batch")->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
    };
    if (cuda) {
      for (auto rung : {train::Rung::LibtorchEager, train::Rung::CudaGraph,
                        train::Rung::FusedStepKernel, train::Rung::PersistentKernel})
        add(train::rung_name(rung), rung, {});
    } else {
      for (const auto& cpu : train::cpu_rungs()) add(cpu.name, train::Rung::FusedCpu, cpu);
    }
  }
}

}  // namespace bench
