// Paired: the quantities the analysis fits, measured so that they conclude on a noisy machine.
// Whole 20000-epoch runs of one configuration after another spread 15-40 % on a shared VM, and
// slow periods last seconds: they hit whole runs. Here the configurations a quantity compares
// run in short runs, back to back, in rounds (each round every configuration once, the order
// rotated and reversed from round to round), in one process; the per-round differences cancel
// the drift, and rounds go on until every estimate's 95 % interval is within its target, or the
// row's time cap (docs/experiment.md, "Measurements that conclude").
//   Paired/<device>-item      interval 1 against never (print100 0): one .item() per epoch
//   Paired/<device>-replay    interval 1 against --paired_intervals (the replay's points)
//   Paired/<device>-held_out  the held-out interval with the every-100 print against never
//                             with it
//   Paired/<device>-batch     never-logging epochs at --paired_batches (the held-out batch and
//                             its neighbours)
// Each short run continues its configuration's training and its epoch count, so an interval
// longer than a run logs in every few runs, at the configuration's own rate over the rounds.
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bench_env.h"
#include "bench_util.h"
#include "machine_noise.h"
#include "paired_stats.h"
#include "train/trainer.h"

namespace bench {

namespace {

struct Config {
  int64_t interval = 0;
  bool print100 = false;
  int64_t batch = 120;
};

struct Group {
  std::string name;
  int64_t epochs = 0;
  std::vector<Config> configs;
  bool diff_target = true;  // the differences have an absolute target (not the batch group)
  bool mean_target = true;  // the means have a relative one (the replay and held-out groups'
                            // verdicts rest on their differences, which must conclude)
};

std::vector<Group> groups(const BenchOptions& o) {
  const int64_t b0 = o.batches.empty() ? 120 : o.batches.front();
  std::vector<Group> out;
  out.push_back({"item", o.paired_epochs, {{1, false, b0}, {0, false, b0}}, true, true});
  Group replay{"replay", o.paired_epochs, {{1, false, b0}}, true, false};
  for (int64_t i : o.paired_intervals) replay.configs.push_back({i, false, b0});
  out.push_back(replay);
  out.push_back(
      {"held_out", o.paired_epochs, {{o.held_out_interval, true, b0}, {0, true, b0}}, true, true});
  Group batch{"batch", o.paired_batch_epochs, {}, false, true};
  for (int64_t b : o.paired_batches) batch.configs.push_back({0, false, b});
  out.push_back(batch);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One trainer per configuration, each warmed up (untimed: the first epochs pay for allocations,
// caches and the CUDA context). Held by pointer: a trainer keeps a reference to its data.
struct Runners {
  std::vector<std::unique_ptr<train::TrainData>> data;
  std::vector<std::unique_ptr<train::Trainer>> trainers;
  std::vector<train::LoggingPolicy> policies;
};
Runners make_runners(const BenchEnv& env, const Group& g, const torch::Device& dev) {
  const BenchOptions& o = env.options;
  Runners run;
  for (size_t i = 0; i < g.configs.size(); ++i) {
    run.data.push_back(
        std::make_unique<train::TrainData>(train::make_train_data(env.split, g.configs[i].batch)));
    run.policies.push_back({g.configs[i].interval, g.configs[i].print100});
    run.trainers.push_back(std::make_unique<train::Trainer>(*run.data[i], dev, o.seed));
    if (o.warmup_epochs > 0) run.trainers[i]->run(o.warmup_epochs, run.policies[i]);
  }
  return run;
}

// Per configuration: its mean us per epoch with its 95 % interval and what it ran; per pair:
// their difference's mean and interval.
void add_config_counters(benchmark::State& state, const Group& g,
                         const std::vector<std::vector<double>>& us,
                         const std::vector<int64_t>& calls,
                         const std::vector<int64_t>& next_epoch) {
  auto& ctr = state.counters;
  const size_t k = g.configs.size();
  for (size_t i = 0; i < k; ++i) {
    const Interval c = mean_interval(us[i]);
    const std::string p = "c" + std::to_string(i) + "_";
    ctr[p + "us_per_epoch"] = c.mean, ctr[p + "lo"] = c.lo, ctr[p + "hi"] = c.hi;
    ctr[p + "interval"] = static_cast<double>(g.configs[i].interval);
    ctr[p + "print100"] = g.configs[i].print100 ? 1 : 0;
    ctr[p + "batch"] = static_cast<double>(g.configs[i].batch);
    ctr[p + "item_calls_per_epoch"] =
        static_cast<double>(calls[i]) / static_cast<double>(next_epoch[i] - 1);
    for (size_t j = i + 1; j < k; ++j) {
      const Interval d = mean_interval(differences(us[i], us[j]));
      const std::string q = "d" + std::to_string(i) + "_" + std::to_string(j) + "_";
      ctr[q + "us"] = d.mean, ctr[q + "lo"] = d.lo, ctr[q + "hi"] = d.hi;
    }
  }
}

void BM_Paired(benchmark::State& state, BenchEnvPtr env, std::string device, Group g) {
  try {
    if (!within_run_budget(state)) return;
    if (device == "cuda" && !require_cuda(state)) return;
    const BenchOptions& o = env->options;
    const torch::Device dev(device == "cuda" ? torch::kCUDA : torch::kCPU);
    const size_t k = g.configs.size();
    Runners run = make_runners(*env, g, dev);
    std::vector<std::vector<double>> us(k);  // per configuration, per round: us per epoch
    std::vector<int64_t> next_epoch(k, 1), calls(k, 0);  // the epoch count goes on across runs
    std::vector<double> probes;
    const auto met = [&] {
      if (g.mean_target)
        for (const auto& x : us) {
          const Interval c = mean_interval(x);
          if (c.half_width() > o.paired_rel_target * c.mean) return false;
        }
      if (g.diff_target)
        for (size_t a = 0; a < k; ++a)
          for (size_t b = a + 1; b < k; ++b)
            if (mean_interval(differences(us[a], us[b])).half_width() > o.paired_diff_us)
              return false;
      return true;
    };
    const ProcSnapshot before = proc_snapshot();
    probes.push_back(noise_probe_us());
    const auto t0 = std::chrono::steady_clock::now();
    double timed = 0;
    size_t rounds = 0;
    bool reached = false;
    for (auto _ : state) {
      while (true) {
        // Round r starts at configuration r mod k and goes forward on even rounds, backward on
        // odd ones: every configuration runs early and late, after each of the others.
        const size_t start = rounds % k;
        for (size_t j = 0; j < k; ++j) {
          const size_t i = rounds % 2 == 0 ? (start + j) % k : (start + k - j) % k;
          const train::RunResult r =
              run.trainers[i]->run(g.epochs, run.policies[i], nullptr, next_epoch[i]);
          next_epoch[i] += g.epochs;
          us[i].push_back(r.seconds * 1e6 / static_cast<double>(g.epochs));
          calls[i] += r.item_calls;
          timed += r.seconds;
        }
        probes.push_back(noise_probe_us());
        ++rounds;
        if (rounds < static_cast<size_t>(o.paired_min_rounds)) continue;
        if ((reached = met())) break;
        if (seconds_since(t0) >= o.paired_max_s) break;
      }
      state.SetIterationTime(timed);
    }
    add_config_counters(state, g, us, calls, next_epoch);
    auto& ctr = state.counters;
    ctr["configs"] = static_cast<double>(k);
    ctr["rounds"] = static_cast<double>(rounds);
    ctr["epochs_per_run"] = static_cast<double>(g.epochs);
    ctr["trim"] = kTrim;
    ctr["target_met"] = reached ? 1 : 0;
    ctr["rel_target"] = g.mean_target ? o.paired_rel_target : 0;
    ctr["diff_target_us"] = g.diff_target ? o.paired_diff_us : 0;
    ctr["elapsed_s"] = seconds_since(t0);
    ctr["cuda"] = device == "cuda" ? 1 : 0;
    add_noise_counters(state, before, proc_snapshot(), probes);
    state.SetLabel(device + ": " + g.name + ", " + std::to_string(k) + " configurations, " +
                   std::to_string(rounds) + " rounds, target " + (reached ? "met" : "NOT met"));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());  // the rows already run still write their JSON
  }
}

}  // namespace

void register_paired(const BenchEnvPtr& env) {
  for (const auto& device : env->options.devices)
    for (const Group& g : groups(env->options))
      benchmark::RegisterBenchmark(("Paired/" + device + "-" + g.name).c_str(), BM_Paired, env,
                                   device, g)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
}

}  // namespace bench
