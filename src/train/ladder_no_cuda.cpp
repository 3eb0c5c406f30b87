// Built instead of ladder_cuda.cpp when the CUDA toolkit is absent.
#include <stdexcept>

#include "train/ladder.h"

namespace train {

LadderResult run_cuda_rung(Rung rung, const TrainData&, int64_t, int64_t, uint64_t) {
  throw std::runtime_error(std::string("rung ") + rung_name(rung) +
                           " needs a build with the CUDA toolkit");
}

}  // namespace train
