#include <gtest/gtest.h>

#include "iris/iris_data.h"
#include "train/trainer.h"

namespace {
const train::TrainData& article_data() {
  static const auto data =
      train::make_train_data(iris::load_article_split(iris::default_data_dir()));
  return data;
}
bool same_parameters(train::Trainer& a, train::Trainer& b) {
  const auto pa = a.model()->parameters(), pb = b.model()->parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    if (!torch::equal(pa[i], pb[i])) return false;
  return true;
}
}  // namespace

TEST(Trainer, DataHasTheArticleShapesAndScaling) {
  const auto& d = article_data();
  EXPECT_EQ(d.x.sizes(), (std::vector<int64_t>{120, 4}));
  EXPECT_EQ(d.x.scalar_type(), torch::kFloat32);
  EXPECT_EQ(d.y.scalar_type(), torch::kInt64);
  EXPECT_EQ(d.x_test.size(0), 30);
  EXPECT_FLOAT_EQ(d.x.min().item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(d.x.max().item<float>(), 1.0f);
  const auto big = train::make_train_data(iris::load_article_split(iris::default_data_dir()), 1000);
  EXPECT_EQ(big.x.size(0), 1000);
  EXPECT_TRUE(torch::equal(big.x.slice(0, 0, 120), d.x));
}

// The article's CPU run reaches loss 0.0633 after 20000 epochs; ours must converge too.
TEST(Trainer, ConvergesIn20000EpochsOnCpu) {
  train::Trainer trainer(article_data(), torch::kCPU, 42);
  const auto r = trainer.run(20000, train::LoggingPolicy{0, false});
  EXPECT_LT(r.final_loss, 0.1f);
  EXPECT_GE(trainer.test_accuracy(), 0.9);
  EXPECT_GT(r.seconds, 0.0);
}

TEST(Trainer, DeterministicForASeed) {
  train::Trainer a(article_data(), torch::kCPU, 7), b(article_data(), torch::kCPU, 7),
      c(article_data(), torch::kCPU, 8);
  EXPECT_TRUE(same_parameters(a, b));
  EXPECT_FALSE(same_parameters(a, c));
  const auto ra = a.run(300, train::LoggingPolicy{50, true});
  const auto rb = b.run(300, train::LoggingPolicy{50, true});
  EXPECT_EQ(ra.recorded, rb.recorded);
  EXPECT_EQ(ra.final_loss, rb.final_loss);
  EXPECT_TRUE(same_parameters(a, b));
}

TEST(Trainer, LoggingDoesNotChangeTheTrajectory) {
  train::Trainer a(article_data(), torch::kCPU, 3), b(article_data(), torch::kCPU, 3);
  const auto ra = a.run(250, train::LoggingPolicy{1, true});
  const auto rb = b.run(250, train::LoggingPolicy{0, false});
  EXPECT_EQ(ra.final_loss, rb.final_loss);
  EXPECT_EQ(ra.recorded.back(), ra.final_loss);  // the last record is the last epoch's loss
}

// The loop's own count of .item() calls equals the policy's formula for every pattern.
TEST(Trainer, ItemCallsFollowThePolicy) {
  const int64_t epochs = 450;
  for (int64_t interval : {0, 1, 2, 7, 100, 200, 1000}) {
    for (bool print100 : {false, true}) {
      const train::LoggingPolicy p{interval, print100};
      train::Trainer t(article_data(), torch::kCPU, 1);
      const auto r = t.run(epochs, p);
      EXPECT_EQ(r.item_calls, p.expected_item_calls(epochs)) << p.describe();
      EXPECT_EQ(static_cast<int64_t>(r.recorded.size()), p.expected_records(epochs))
          << p.describe();
    }
  }
}

TEST(Trainer, ShortRunsOfOneTrainingLogAsOneLongRun) {
  // Five runs of 200 epochs numbered on from each other make the calls of one run of 1000:
  // an interval longer than a run logs in the run that reaches it.
  for (int64_t interval : {1, 100, 500, 1000}) {
    for (bool print100 : {false, true}) {
      const train::LoggingPolicy p{interval, print100};
      train::Trainer t(article_data(), torch::kCPU, 1);
      int64_t calls = 0;
      for (int64_t first = 1; first <= 1000; first += 200)
        calls += t.run(200, p, nullptr, first).item_calls;
      EXPECT_EQ(calls, p.expected_item_calls(1000)) << p.describe();
    }
  }
}

TEST(Trainer, RejectsBadArguments) {
  train::Trainer t(article_data(), torch::kCPU, 1);
  EXPECT_THROW(t.run(0, train::LoggingPolicy{}), std::invalid_argument);
  EXPECT_THROW(t.run(10, train::LoggingPolicy{}, nullptr, 0), std::invalid_argument);
  EXPECT_THROW(t.run(10, train::LoggingPolicy{-1, false}), std::invalid_argument);
}
