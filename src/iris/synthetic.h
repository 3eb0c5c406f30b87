// Batches of any size for the batch-size sweep, so the same training loop runs from the
// article's 120 rows up to 1,000,000.
#pragma once

#include <cstdint>

#include "iris/iris_data.h"

namespace iris {

inline constexpr uint64_t kSyntheticSeed = 20250501;

// Iris-like rows, deterministic for (train_raw, rows, seed) on every platform:
// - rows <= train_raw.rows(): the first `rows` real training rows;
// - above that: all real rows, then synthetic ones. Synthetic row i has class i % 3 and
//   each feature drawn from a normal distribution with that class's mean and standard
//   deviation over the real training rows (unscaled units: scale afterwards with the
//   scaler fitted on the real rows). Normals come from SplitMix64 + Box-Muller rather than
//   std::normal_distribution, whose output differs between standard libraries.
// Throws std::invalid_argument for rows < 1 or an empty class in train_raw.
Dataset iris_like_batch(const Dataset& train_raw, int64_t rows, uint64_t seed = kSyntheticSeed);

}  // namespace iris
