#include <gtest/gtest.h>

#include <cmath>

#include "iris/iris_data.h"
#include "iris/synthetic.h"

namespace {
const iris::Dataset& train_raw() {
  static const auto split = iris::load_article_split(iris::default_data_dir());
  return split.train;
}
}  // namespace

TEST(Synthetic, SmallBatchesAreTheFirstRealRows) {
  const auto b = iris::iris_like_batch(train_raw(), 120);
  EXPECT_EQ(b.features, train_raw().features);
  EXPECT_EQ(iris::iris_like_batch(train_raw(), 7).rows(), 7);
}

TEST(Synthetic, DeterministicForASeedAndDifferentAcrossSeeds) {
  const auto a = iris::iris_like_batch(train_raw(), 5000);
  const auto b = iris::iris_like_batch(train_raw(), 5000);
  const auto c = iris::iris_like_batch(train_raw(), 5000, 7);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.features, c.features);
  // The real rows stay first.
  for (int64_t r = 0; r < 120; ++r) EXPECT_EQ(a.features[r], train_raw().features[r]);
}

TEST(Synthetic, PerClassMomentsFollowTheRealRows) {
  const int64_t n = 60000;
  const auto b = iris::iris_like_batch(train_raw(), n);
  ASSERT_EQ(b.rows(), n);
  for (int c = 0; c < iris::kClasses; ++c) {
    double real = 0, synth = 0;
    int64_t nr = 0, ns = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (b.labels[r] != c) continue;
      (r < 120 ? real : synth) += b.features[r][2];
      ++(r < 120 ? nr : ns);
    }
    EXPECT_NEAR(synth / ns, real / nr, 0.02) << "class " << c << " petal length mean";
    EXPECT_NEAR(static_cast<double>(ns), (n - 120) / 3.0, 1.0);
  }
}

TEST(Synthetic, RejectsNonPositiveRows) {
  EXPECT_THROW(iris::iris_like_batch(train_raw(), 0), std::invalid_argument);
  EXPECT_THROW(iris::iris_like_batch(train_raw(), -5), std::invalid_argument);
}
