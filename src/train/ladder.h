// The overhead-removal ladder: one problem (the article's 20000 full-batch epochs on Iris,
// the loss kept every `record_every` epochs), many implementations, from LibTorch eager
// with .item() down to one persistent CUDA kernel. Each rung starts from the same seeded
// weights and must give the same losses and final weights (tests/cpp/test_ladder.cpp).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "train/fused_cpu.h"
#include "train/trainer.h"

namespace train {

enum class Rung {
  LibtorchEager,     // Trainer::run, losses by .item() (append + print, 2 syncs per record)
  DeviceLog,         // CUDA: losses stay on the device, one copy after the last epoch
  PinnedEvent,       // CUDA: non-blocking copies into pinned memory, one event sync at the end
  CudaGraph,         // CUDA: forward+loss+backward+step captured once, replayed per epoch
  FusedStepKernel,   // CUDA: one hand-written kernel per epoch
  PersistentKernel,  // CUDA: one kernel runs every epoch
  FusedCpu,          // CPU: the step hand-written over plain arrays
};

const char* rung_name(Rung rung);         // "libtorch_eager", ...
bool rung_runs_on(Rung rung, bool cuda);  // which devices a rung exists for
std::vector<Rung> all_rungs();

struct LadderResult {
  double seconds = 0;           // the epochs' wall time, device drained
  std::vector<float> recorded;  // loss every record_every epochs
  MlpWeights<float> final_weights;
  int64_t host_syncs = 0;  // waits for the device inside the timed loop
};

// Seeded initial weights, exactly as Trainer builds them (same seed -> same weights).
MlpWeights<float> initial_weights(uint64_t seed);
MlpWeights<float> weights_of(IrisMLP& model);  // copied to the host
void set_weights(IrisMLP& model, const MlpWeights<float>& w);

// Runs one rung. Throws std::invalid_argument for a rung on a device it does not exist on,
// std::runtime_error when a CUDA rung is asked for in a build without CUDA.
LadderResult run_rung(Rung rung, bool cuda, const TrainData& data, int64_t epochs,
                      int64_t record_every, uint64_t seed);

// The fused CPU loop (fused_cpu.h) on `threads` threads, timed like every rung.
LadderResult run_fused_cpu(const TrainData& data, int64_t epochs, int64_t record_every,
                           uint64_t seed, int threads);

// The reference: LibTorch on the CPU in float64, same data and initial weights.
struct Reference {
  std::vector<double> recorded;
  MlpWeights<double> final_weights;
};
Reference float64_reference(const TrainData& data, int64_t epochs, int64_t record_every,
                            uint64_t seed);

// Largest |a - b| / max(|b|, floor) over the recorded losses (floor 1e-3), and over all final
// weights (floor 1e-2); infinite for a NaN or infinity and for a count that differs.
double max_loss_error(const std::vector<float>& losses, const std::vector<double>& ref);
double max_weight_error(const MlpWeights<float>& w, const MlpWeights<double>& ref);

}  // namespace train
