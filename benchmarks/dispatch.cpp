// Dispatch: what LibTorch costs the host per operation, on the CPU and on CUDA.
//   <device>-add         one `a + a` on a 1-element tensor (host clock, per op; on CUDA the
//                        ops are queued, not waited for: the launch path's host cost)
//   <device>-backward    forward + backward of a 2-op graph on 1-element tensors
//   <device>-train_step  one epoch of the article's loop (Trainer::run, never logging,
//                        16 epochs per iteration so the final drain is amortised), with
//                        counters aten_ops_per_step (every ATen operator call, nested ones
//                        included: RecordFunction records with an operator name, so not
//                        autograd's evaluate_function records), aten_top_ops_per_step (the
//                        outermost calls only; train/aten_op_counter.h) and, on CUDA,
//                        kernels_per_step (CUPTI, traced pass)
#include <torch/torch.h>

#include <utility>

#include "bench_env.h"
#include "bench_util.h"
#include "capture/cupti_session.h"
#include "capture/trace_session.h"
#include "trace/analyze/attribution.h"
#include "train/aten_op_counter.h"
#include "train/trainer.h"

namespace bench {
namespace {

constexpr int kOpsPerIteration = 100;
constexpr int64_t kEpochsPerIteration = 16;

// ATen operator calls of one training epoch (all, and the outermost only), including the
// backward ops LibTorch runs on its autograd thread on CUDA (train::AtenOpCounter says why that
// needs care).
std::pair<int64_t, int64_t> count_aten_ops(train::Trainer& trainer) {
  train::AtenOpCounter counter;
  trainer.run(1, train::LoggingPolicy{0, false});
  return {counter.count(), counter.top_level()};
}

void drain(const torch::Device& d) {
  if (d.is_cuda()) torch::cuda::synchronize();
}

}  // namespace

static void BM_Dispatch(benchmark::State& state, BenchEnvPtr env, std::string device,
                        std::string what) {
  if (!within_run_budget(state)) return;
  if (device == "cuda" && !require_cuda(state)) return;
  try {
    const torch::Device dev(device == "cuda" ? torch::kCUDA : torch::kCPU);
    PerOpTimer timer(what == "add"          ? kOpsPerIteration
                     : what == "train_step" ? static_cast<int>(kEpochsPerIteration)
                                            : 1);
    if (what == "add") {
      auto a = torch::ones({1}, torch::dtype(torch::kFloat32).device(dev));
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        for (int i = 0; i < kOpsPerIteration; ++i) benchmark::DoNotOptimize(a + a);
        timer.record(state, seconds_between(t0, HostClock::now()));
        drain(dev);  // outside the measured span
      }
      state.SetLabel("host clock, per op");
    } else if (what == "backward") {
      auto w = torch::ones({1}, torch::dtype(torch::kFloat32).device(dev).requires_grad(true));
      auto x = torch::full({1}, 2.0f, torch::dtype(torch::kFloat32).device(dev));
      for (auto _ : state) {
        const auto t0 = HostClock::now();
        (w * x).sum().backward();
        timer.record(state, seconds_between(t0, HostClock::now()));
        drain(dev);
      }
      state.SetLabel("host clock, per forward+backward");
    } else {
      const auto data = train::make_train_data(env->split);
      train::Trainer trainer(data, dev, env->options.seed);
      trainer.run(kEpochsPerIteration, train::LoggingPolicy{0, false});  // warm-up
      const auto [ops, top] = count_aten_ops(trainer);
      state.counters["aten_ops_per_step"] = static_cast<double>(ops);
      state.counters["aten_top_ops_per_step"] = static_cast<double>(top);
      std::string label = "wall clock, per epoch (device drained every 16)";
      if (dev.is_cuda()) {
        try {
          trace::TraceSession session(true);
          trainer.run(10, train::LoggingPolicy{0, false});
          const auto a = trace::attribute(session.stop());
          state.counters["kernels_per_step"] = a.per_step(static_cast<double>(a.kernels));
        } catch (
            const std::exception& e) {  // stepped aside, or a CUPTI error: the timing still stands
          label += std::string("; kernels not counted: ") + e.what();
        }
      }
      for (auto _ : state) {
        const auto r = trainer.run(kEpochsPerIteration, train::LoggingPolicy{0, false});
        timer.record(state, r.seconds);
      }
      state.SetLabel(label);
    }
    timer.finish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void register_dispatch(const BenchEnvPtr& env) {
  for (const auto& device : env->options.devices)
    for (const char* what : {"add", "backward", "train_step"})
      benchmark::RegisterBenchmark(("Dispatch/" + device + "-" + what).c_str(), BM_Dispatch, env,
                                   device, std::string(what))
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
