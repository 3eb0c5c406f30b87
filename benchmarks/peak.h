// The core's arithmetic limit, measured: chains of fused multiply-adds on vectors that
// never leave the registers, in the widest vector ISA this build targets (peak.cpp is
// compiled with -march=${IRIS_CPU_ARCH}, like the fused CPU loop).
#pragma once

#include <string>

namespace bench {

struct PeakResult {
  double gflops = 0;   // FLOP/s / 1e9, an FMA counted as 2
  double seconds = 0;  // wall time of the measurement
  int threads = 1;
};

// Runs the FMA loop on `threads` std::threads at once for about `seconds` of wall time and
// returns the rate over all of them. float64 = false: float32 lanes.
PeakResult measure_fma_peak(bool float64, int threads, double seconds);
std::string peak_isa();  // "avx512 (16 float32 lanes)", ...

}  // namespace bench
