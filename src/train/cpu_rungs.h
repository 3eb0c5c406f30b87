// The CPU rungs beyond train::Rung's one-thread view: LibTorch eager with its thread pool
// pinned to 1 thread or to every hardware thread, and the fused loop on one thread or
// split over all of them. Used by bench's Ladder and RungSweep families and checked
// against LibTorch float64 in tests/cpp/test_cpu_rungs.cpp.
#pragma once

#include <string>
#include <vector>

#include "train/ladder.h"

namespace train {

struct CpuRung {
  std::string name;  // "libtorch_eager", "libtorch_eager_1thread", "fused_cpu_allthreads", ...
  bool fused;        // hand-written loop (else LibTorch eager)
  int threads;       // 0: LibTorch's own default; else exactly this many
};

// Every CPU rung, in the order the report lists them. "allthreads" is
// std::thread::hardware_concurrency() (at least 1).
std::vector<CpuRung> cpu_rungs();
const CpuRung& cpu_rung(
    const std::string& name);  // throws std::invalid_argument naming the choices
int all_threads();
int threads_used(const CpuRung& rung);  // what the run actually uses (LibTorch's default resolved)

// Runs the rung on the CPU like run_rung does (same seed, same result fields); LibTorch's
// thread count is restored afterwards.
LadderResult run_cpu_rung(const CpuRung& rung, const TrainData& data, int64_t epochs,
                          int64_t record_every, uint64_t seed);

}  // namespace train
