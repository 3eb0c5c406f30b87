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
void chain() {
  volatile double seed = 1.0;
  double x = seed;
  for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  seed = x;
}

double quietest = 0;
}  // namespace

double noise_probe_us() {
  // After a pause, so that our own OpenMP threads, which spin a while after their work, have
  // gone to sleep; on every core at once, so that a process on any of them makes the slowest
  // chain late; the best of three, so that one interruption is not taken for a busy core.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> others;
    for (unsigned i = 1; i < cores; ++i) others.emplace_back(chain);
    chain();
    for (auto& t : others) t.join();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (round == 0 || us < best) best = us;
  }
  if (quietest == 0 || best < quietest) quietest = best;
  return best;
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
