#include "machine_noise.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace bench {

ProcSnapshot proc_snapshot() {
  ProcSnapshot s;
  std::ifstream stat("/proc/stat");
  std::string cpu;
  if (stat >> cpu && cpu == "cpu") {
    // user nice system idle iowait irq softirq steal ...
    uint64_t v[8] = {};
    for (auto& x : v) stat >> x;
    for (auto x : v) s.total += x;
    s.steal = v[7];
  }
  std::ifstream load("/proc/loadavg");
  if (!(load >> s.load1)) s.load1 = -1;
  return s;
}

namespace {
double quietest = 0;
}

namespace {
void chain() {
  volatile double seed = 1.0;
  double x = seed;
  for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  seed = x;
}
}  // namespace

double noise_probe_us() {
  // On every core at once: another process on any of them (which slows a multi-threaded
  // training run most, its threads waiting for each other) makes the slowest chain late.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> others;
  for (unsigned i = 1; i < cores; ++i) others.emplace_back(chain);
  chain();
  for (auto& t : others) t.join();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  if (quietest == 0 || us < quietest) quietest = us;
  return us;
}

double quietest_probe_us() { return quietest; }

void add_noise_counters(benchmark::State& state, const ProcSnapshot& before,
                        const ProcSnapshot& after, std::vector<double> probes) {
  auto& c = state.counters;
  const uint64_t total = after.total - before.total;
  const double steal =
      total ? static_cast<double>(after.steal - before.steal) / static_cast<double>(total) : 0;
  c["steal_share"] = steal;
  c["load1_before"] = before.load1;
  c["load1_after"] = after.load1;
  double probe = 0;
  if (!probes.empty()) {
    std::nth_element(probes.begin(), probes.begin() + static_cast<long>(probes.size() / 2),
                     probes.end());
    probe = probes[probes.size() / 2];
  }
  const double ratio = quietest > 0 ? probe / quietest : 1;
  c["probe_us"] = probe;
  c["probe_ratio"] = ratio;
  c["disturbed"] = ratio > kDisturbedProbeRatio || steal > kDisturbedStealShare ? 1 : 0;
}

}  // namespace bench
