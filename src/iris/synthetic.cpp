#include "iris/synthetic.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace iris {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and its output is fixed by its seed.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1]: never 0, so log() below is finite.
  double uniform() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  double normal() {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    return r * std::cos(2.0 * M_PI * uniform());
  }
};

}  // namespace

Dataset iris_like_batch(const Dataset& train_raw, int64_t rows, uint64_t seed) {
  if (rows < 1) throw std::invalid_argument("batch rows must be >= 1, got " + std::to_string(rows));
  Dataset out;
  const int64_t real = std::min(rows, train_raw.rows());
  out.features.assign(train_raw.features.begin(), train_raw.features.begin() + real);
  out.labels.assign(train_raw.labels.begin(), train_raw.labels.begin() + real);
  if (rows == real) return out;

  std::array<std::array<double, kFeatures>, kClasses> mean{}, stddev{};
  std::array<int64_t, kClasses> count{};
  for (int64_t r = 0; r < train_raw.rows(); ++r) {
    const auto c = train_raw.labels[r];
    ++count[c];
    for (int f = 0; f < kFeatures; ++f) mean[c][f] += train_raw.features[r][f];
  }
  for (int c = 0; c < kClasses; ++c) {
    if (count[c] < 2)
      throw std::invalid_argument("iris_like_batch: class " + std::to_string(c) +
                                  " has fewer than 2 training rows");
    for (int f = 0; f < kFeatures; ++f) mean[c][f] /= static_cast<double>(count[c]);
  }
  for (int64_t r = 0; r < train_raw.rows(); ++r) {
    const auto c = train_raw.labels[r];
    for (int f = 0; f < kFeatures; ++f) {
      const double d = train_raw.features[r][f] - mean[c][f];
      stddev[c][f] += d * d;
    }
  }
  for (int c = 0; c < kClasses; ++c)
    for (int f = 0; f < kFeatures; ++f)
      stddev[c][f] = std::sqrt(stddev[c][f] / static_cast<double>(count[c] - 1));

  SplitMix64 rng{seed};
  out.features.reserve(rows);
  out.labels.reserve(rows);
  for (int64_t i = 0; i < rows - real; ++i) {
    const int c = static_cast<int>(i % kClasses);
    std::array<double, kFeatures> row{};
    for (int f = 0; f < kFeatures; ++f) row[f] = mean[c][f] + stddev[c][f] * rng.normal();
    out.features.push_back(row);
    out.labels.push_back(c);
  }
  return out;
}

}  // namespace iris
