// How quiet the machine was while a row ran: CPU time stolen by the hypervisor and the load
// average from /proc before and after, and a fixed noise probe (a short constant workload, timed)
// that says whether another process shared the cores. Why: on a
// shared VM a whole run can be 40 % slow; a reader of the JSON should see which rows ran so.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct ProcSnapshot {
  uint64_t steal = 0, total = 0;  // /proc/stat's aggregate cpu line, in clock ticks
  double load1 = -1;              // /proc/loadavg's 1-minute figure; -1 when unreadable
};
ProcSnapshot proc_snapshot();

// The probe: a dependent floating-point chain of fixed length (about a tenth of a millisecond
// on a quiet core) on every core at once, after a 2 ms pause, best of three: the slowest chain's
// wall time in microseconds. The process keeps its fastest probe as the quiet baseline, so a
// process that runs wholly under contention is not flagged by it (its load and steal say so).
double noise_probe_us();
double quietest_probe_us();

// A probe this much slower than the quietest one, or this much steal, marks a disturbed row.
constexpr double kDisturbedProbeRatio = 1.25;
constexpr double kDisturbedStealShare = 0.05;

// Counters: steal_share, load1_before, load1_after, probe_us (median of `probes`),
// probe_ratio (that over the quietest), disturbed (0 or 1).
void add_noise_counters(benchmark::State& state, const ProcSnapshot& before,
                        const ProcSnapshot& after, std::vector<double> probes);

}  // namespace bench
