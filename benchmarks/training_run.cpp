#include "training_run.h"

#include <exception>

#include "bench_util.h"
#include "machine_noise.h"
#include "traced_pass.h"
#include "train/trainer.h"

namespace bench {

void run_training_benchmark(benchmark::State& state, const BenchEnv& env,
                            const TrainingRunSpec& spec) {
  try {
    if (!within_run_budget(state)) return;
    if (spec.device == "cuda" && !require_cuda(state)) return;
    const torch::Device device(spec.device == "cuda" ? torch::kCUDA : torch::kCPU);
    const auto data = train::make_train_data(env.split, spec.batch);
    if (spec.warmup_epochs > 0) {
      // A separate model, so the timed run starts from the seeded weights; this pays for
      // CUDA context and cuBLAS set-up, the caching allocator's first allocations and
      // cold CPU caches outside the clock.
      train::Trainer warm(data, device, env.options.seed + 1);
      warm.run(spec.warmup_epochs, spec.policy);
    }
    train::Trainer trainer(data, device, env.options.seed);
    train::RunResult result;
    std::FILE* echo = env.options.echo_log ? stderr : nullptr;
    const ProcSnapshot before = proc_snapshot();
    std::vector<double> probes = {noise_probe_us()};
    for (auto _ : state) {
      result = trainer.run(spec.epochs, spec.policy, echo);
      state.SetIterationTime(result.seconds);
    }
    probes.push_back(noise_probe_us());
    add_noise_counters(state, before, proc_snapshot(), probes);
    state.SetLabel(spec.device + ": " + spec.policy.describe());
    state.counters["epochs"] = static_cast<double>(result.epochs);
    state.counters["item_calls"] = static_cast<double>(result.item_calls);
    state.counters["records"] = static_cast<double>(result.recorded.size());
    state.counters["us_per_epoch"] = result.seconds * 1e6 / static_cast<double>(result.epochs);
    state.counters["final_loss"] = result.final_loss;
    state.counters["test_accuracy"] = trainer.test_accuracy();
    state.counters["interval"] = static_cast<double>(spec.policy.interval);
    state.counters["print100"] = spec.policy.print100 ? 1 : 0;
    state.counters["batch"] = static_cast<double>(spec.batch);
    state.counters["cuda"] = spec.device == "cuda" ? 1 : 0;
    if (env.options.trace_epochs > 0)
      run_traced_pass(state, env, spec, data, state.counters["us_per_epoch"]);
  } catch (const std::exception& e) {
    // Never exit() here: the JSON of the rows already run must still be written whole.
    state.SkipWithError(e.what());
  }
}

}  // namespace bench
