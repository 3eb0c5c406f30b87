#include "train/cpu_rungs.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace train {

int all_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::vector<CpuRung> cpu_rungs() {
  return {{"libtorch_eager", false, 0},
          {"libtorch_eager_1thread", false, 1},
          {"libtorch_eager_allthreads", false, all_threads()},
          {"fused_cpu", true, 1},
          {"fused_cpu_allthreads", true, all_threads()}};
}

const CpuRung& cpu_rung(const std::string& name) {
  static const auto rungs = cpu_rungs();
  std::string names;
  for (const auto& r : rungs) {
    if (r.name == name) return r;
    names += (names.empty() ? "" : ", ") + r.name;
  }
  throw std::invalid_argument("unknown CPU rung '" + name + "'; expected one of " + names);
}

int threads_used(const CpuRung& rung) {
  return rung.threads > 0 ? rung.threads : at::get_num_threads();
}

namespace {
// Sets LibTorch's intra-op thread count for one run and puts the old one back.
class TorchThreads {
 public:
  explicit TorchThreads(int n) : saved_(at::get_num_threads()) {
    if (n > 0) at::set_num_threads(n);
  }
  ~TorchThreads() { at::set_num_threads(saved_); }

 private:
  int saved_;
};
}  // namespace

LadderResult run_cpu_rung(const CpuRung& rung, const TrainData& data, int64_t epochs,
                          int64_t record_every, uint64_t seed) {
  if (!rung.fused) {
    TorchThreads threads(rung.threads);
    return run_rung(Rung::LibtorchEager, false, data, epochs, record_every, seed);
  }
  return run_fused_cpu(data, epochs, record_every, seed, rung.threads);
}

}  // namespace train
