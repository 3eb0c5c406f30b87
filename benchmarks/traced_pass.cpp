#include "traced_pass.h"

#include <algorithm>
#include <cstdio>

#include "bench_util.h"
#include "capture/bench_names.h"
#include "capture/cupti_session.h"
#include "capture/trace_session.h"
#include "trace/analyze/attribution.h"
#include "trace/analyze/launch_queue.h"
#include "trace/analyze/range_queue.h"
#include "trace/export/chrome_trace.h"
#include "trace/export/write_file.h"
#include "training_run.h"

namespace bench {

std::string trace_file_name(const TrainingRunSpec& spec) {
  return spec.family + "_" + spec.device + "_interval-" + std::to_string(spec.policy.interval) +
         "_print100-" + (spec.policy.print100 ? "1" : "0") + "_batch-" +
         std::to_string(spec.batch) + ".trace.json";
}

namespace {

// Start of the epoch `index` (0-based, in start order) among the records' epoch ranges.
uint64_t epoch_start(const trace::RecordSet& records, size_t index) {
  std::vector<uint64_t> starts;
  for (const auto& r : records.ranges)
    if (r.name == bench::kStepPhase) starts.push_back(r.start_ns);
  std::sort(starts.begin(), starts.end());
  return starts.empty() ? 0 : starts[std::min(index, starts.size() - 1)];
}

// Per-epoch figures in us. GPU figures only for CUDA rows: a CPU row has no GPU timeline.
void add_counters(benchmark::State& state, const trace::Attribution& a, bool cuda) {
  const auto us = [&](uint64_t ns) { return a.per_step(static_cast<double>(ns)) / 1e3; };
  const auto per_epoch = [&](uint64_t n) { return a.per_step(static_cast<double>(n)); };
  auto& c = state.counters;
  c["attr_epochs"] = static_cast<double>(a.steps);
  c["attr_window_us"] = us(a.window_ns);
  for (const auto& [name, p] : a.phases) {
    if (name == bench::kStepPhase) continue;
    c["phase_" + name + "_us"] = us(p.host_ns);
    if (cuda) c["phase_" + name + "_kernels"] = per_epoch(p.kernels);
  }
  if (auto it = a.phases.find("item"); it != a.phases.end() && it->second.count > 0)
    c["item_us_per_call"] =
        static_cast<double>(it->second.host_ns) / static_cast<double>(it->second.count) / 1e3;
  if (!cuda) return;
  c["attr_launches"] = per_epoch(a.launches);
  c["attr_launch_api_us"] = us(a.launch_api_ns);
  c["attr_kernels"] = per_epoch(a.kernels);
  c["attr_kernel_us"] = us(a.kernel_ns);
  c["attr_kernels_outside_phases"] = per_epoch(a.kernels_outside_phases);
  c["attr_gpu_busy_us"] = us(a.gpu_busy_ns);
  c["attr_memcpys"] = per_epoch(a.memcpys);
  c["attr_memcpy_us"] = us(a.memcpy_gpu_ns);
  c["attr_sync_api_us"] = us(a.sync_api_ns);
  c["attr_blocking_copy_us"] = us(a.blocking_copy_ns);
  c["attr_memcpy_api_us"] = us(a.memcpy_api_ns);
  c["attr_blocked_us"] = us(a.blocked_ns);
  c["attr_idle_host_wait_us"] = us(a.idle_host_wait_ns);
  c["attr_idle_kernel_wait_us"] = us(a.idle_kernel_wait_ns);
  c["attr_idle_other_us"] = us(a.idle_other_ns);
  c["attr_launch_delay_p50_us"] = a.launch_delay.p50 / 1e3;
  c["attr_launch_delay_p90_us"] = a.launch_delay.p90 / 1e3;
  c["attr_dropped_records"] = static_cast<double>(a.dropped_records);
}

// The launch queue per epoch (range_queue.h): which regime the loop ran in. The CPU has no
// launch queue (each op runs on the calling thread): attr_launch_queue = 0 says so.
void add_queue_counters(benchmark::State& state, const trace::RecordSet& records, bool cuda) {
  auto& c = state.counters;
  c["attr_launch_queue"] = cuda ? 1 : 0;
  if (!cuda) return;
  const trace::RangeQueueSummary q = trace::summarize_queue(records, bench::kStepPhase);
  c["attr_queue_empty_share"] = q.empty_share_median;
  c["attr_queue_depth_p50"] = q.depth_p50_median;
  c["attr_queue_depth_p90"] = q.depth_p90_median;
  c["attr_queue_depth_max"] = q.depth_max;
  c["attr_queue_full_calls"] = static_cast<double>(q.full_queue_calls);
  const auto share = [&](trace::Regime r) {
    return q.ranges ? static_cast<double>(q.by_regime[static_cast<size_t>(r)]) /
                          static_cast<double>(q.ranges)
                    : 0.0;
  };
  c["attr_queue_launch_bound_share"] = share(trace::Regime::LaunchBound);
  c["attr_queue_gpu_bound_share"] = share(trace::Regime::GpuBound);
  c["attr_queue_mixed_share"] = share(trace::Regime::Mixed);
}

}  // namespace

void run_traced_pass(benchmark::State& state, const BenchEnv& env, const TrainingRunSpec& spec,
                     const train::TrainData& data, double untraced_us_per_epoch) {
  const auto& o = env.options;
  const torch::Device device(spec.device == "cuda" ? torch::kCUDA : torch::kCPU);
  train::Trainer trainer(data, device, o.seed);
  trace::RecordSet records;
  train::RunResult run;
  // Starting and stopping the tracer are timed on their own: enabling CUPTI's activity kinds
  // (concurrent kernels above all) can stall for seconds the first time in a process, and
  // stopping flushes, parses and detaches; the GPU script sizes its traced passes from these.
  double start_s = 0, stop_s = 0;
  try {
    const auto t0 = HostClock::now();
    trace::TraceSession session(device.is_cuda());
    start_s = seconds_between(t0, HostClock::now());
    run = trainer.run(o.trace_epochs, spec.policy);
    const auto t1 = HostClock::now();
    records = session.stop();
    stop_s = seconds_between(t1, HostClock::now());
  } catch (const trace::TracerUnavailable& e) {
    // Steps aside (e.g. under nsys): the timed row stands, without attribution.
    static bool told = false;
    if (!told) std::fprintf(stderr, "bench: traced pass skipped: %s\n", e.what());
    told = true;
    state.counters["attr_epochs"] = 0;
    return;
  } catch (const std::exception& e) {
    // The tracer itself failed (a CUPTI error): said loudly on every row, but the timed
    // measurement above it is still good, so the row keeps it (trace_failed = 1).
    std::fprintf(stderr, "bench: traced pass FAILED for %s: %s\n", trace_file_name(spec).c_str(),
                 e.what());
    state.counters["attr_epochs"] = 0;
    state.counters["trace_failed"] = 1;
    return;
  }
  state.counters["trace_start_s"] = start_s;
  state.counters["trace_stop_s"] = stop_s;
  const auto attribution = trace::attribute(records);
  add_counters(state, attribution, device.is_cuda());
  add_queue_counters(state, records, device.is_cuda());
  const double traced = run.seconds * 1e6 / static_cast<double>(run.epochs);
  state.counters["traced_us_per_epoch"] = traced;
  state.counters["trace_overhead"] =
      untraced_us_per_epoch > 0 ? traced / untraced_us_per_epoch : 0.0;
  if (!o.trace_dir.empty()) {
    const uint64_t from =
        epoch_start(records, static_cast<size_t>(o.trace_epochs - o.trace_file_epochs));
    trace::write_file_atomically(o.trace_dir + "/" + trace_file_name(spec),
                                 trace::chrome_trace_json(records, from, 0));
  }
}

}  // namespace bench
