// The CPU rungs added for "how close to the machine": the vectorised fused loop on one and
// on several threads, LibTorch eager with 1 and all threads, and the FLOP count they are
// divided by. Correctness only (speed is measured by bench's Ladder/RungSweep/Peak).
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include "iris/iris_data.h"
#include "train/cpu_rungs.h"
#include "train/flops.h"

namespace {

constexpr int64_t kEpochs = 2000, kEvery = 100;
// float32 against float64 after 2000 epochs, measured on every CPU rung here: losses within
// 3.7e-7 relative, weights within 1.9e-5 (less after 300 epochs, which the padded batches run).
// The bounds leave about 8x and 5x for another CPU; a wrong gradient is off by far more.
constexpr double kLossTolerance = 3e-6, kWeightTolerance = 1e-4;

const iris::ArticleSplit& split() {
  static const auto s = iris::load_article_split(iris::default_data_dir());
  return s;
}
const train::TrainData& data() {
  static const auto d = train::make_train_data(split());
  return d;
}
const train::Reference& reference() {
  static const auto r = train::float64_reference(data(), kEpochs, kEvery, 42);
  return r;
}

void expect_close(const train::LadderResult& r, const train::Reference& ref,
                  const std::string& what) {
  ASSERT_EQ(r.recorded.size(), ref.recorded.size()) << what;
  EXPECT_LT(train::max_loss_error(r.recorded, ref.recorded), kLossTolerance) << what;
  EXPECT_LT(train::max_weight_error(r.final_weights, ref.final_weights), kWeightTolerance) << what;
}

std::vector<float> xs_of(const train::TrainData& d) {
  const auto x = d.x.contiguous();
  return {x.data_ptr<float>(), x.data_ptr<float>() + x.numel()};
}
std::vector<int64_t> ys_of(const train::TrainData& d) {
  const auto y = d.y.contiguous();
  return {y.data_ptr<int64_t>(), y.data_ptr<int64_t>() + y.numel()};
}

}  // namespace

class CpuRungs : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuRungs, MatchesFloat64) {
  const auto& rung = train::cpu_rung(GetParam());
  const int before = at::get_num_threads();
  expect_close(train::run_cpu_rung(rung, data(), kEpochs, kEvery, 42), reference(), rung.name);
  EXPECT_EQ(at::get_num_threads(), before) << "the rung must put LibTorch's thread count back";
}

INSTANTIATE_TEST_SUITE_P(AllCpuRungs, CpuRungs,
                         ::testing::Values("libtorch_eager", "libtorch_eager_1thread",
                                           "libtorch_eager_allthreads", "fused_cpu",
                                           "fused_cpu_allthreads"),
                         [](const auto& info) { return info.param; });

TEST(CpuRungs, UnknownNameListsTheChoices) {
  try {
    train::cpu_rung("fused_gpu");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fused_cpu_allthreads"), std::string::npos) << e.what();
  }
}

// Rows that do not fill the last vector: 7 rows (one block, more padding lanes than rows
// with 8 or 16 lanes) and 1000 synthetic rows (62 x 16 + 8). The padding must add nothing.
// Checked against LibTorch float64 on the same rows.
TEST(FusedCpuThreads, PaddedBatchesMatchFloat64) {
  for (int64_t rows : {7, 1000})
    for (int threads : {1, 3}) {
      const auto d = train::make_train_data(split(), rows);
      const auto ref = train::float64_reference(d, 300, kEvery, 42);
      auto w = train::initial_weights(42);
      const auto r =
          train::fused_cpu_train<float>(w, xs_of(d), ys_of(d), 300, 0.01f, kEvery, threads);
      train::LadderResult lr;
      lr.recorded.assign(r.recorded.begin(), r.recorded.end());
      lr.final_weights = w;
      expect_close(lr, ref, std::to_string(rows) + " rows, threads " + std::to_string(threads));
    }
}

TEST(FusedCpuThreads, ThreadsSumInAFixedOrder) {
  // Two runs on the same threads agree bit for bit (no dependence on timing); more threads
  // than vector blocks (120 rows = 8 blocks of 16) is allowed and capped.
  for (int threads : {2, 64}) {
    auto a = train::initial_weights(42), b = train::initial_weights(42);
    const auto ra =
        train::fused_cpu_train<float>(a, xs_of(data()), ys_of(data()), 500, 0.01f, kEvery, threads);
    const auto rb =
        train::fused_cpu_train<float>(b, xs_of(data()), ys_of(data()), 500, 0.01f, kEvery, threads);
    EXPECT_EQ(ra.recorded, rb.recorded) << threads;
    EXPECT_EQ(a.w1, b.w1) << threads;
    EXPECT_EQ(a.b2, b.b2) << threads;
  }
}

TEST(FusedCpuThreads, RefusesBadInput) {
  auto w = train::initial_weights(42);
  auto ys = ys_of(data());
  EXPECT_THROW(train::fused_cpu_train<float>(w, xs_of(data()), ys, 10, 0.01f, 5, 0),
               std::invalid_argument);
  ys[7] = 3;
  EXPECT_THROW(train::fused_cpu_train<float>(w, xs_of(data()), ys, 10, 0.01f, 5, 1),
               std::invalid_argument);
  EXPECT_THROW(
      train::fused_cpu_train<float>(w, std::vector<float>(5), ys_of(data()), 10, 0.01f, 5, 1),
      std::invalid_argument);
}

TEST(EpochFlops, ArticleShapesCountedByHand) {
  const auto f = train::epoch_flops(120);
  // fc1 120x10x(4 mul + 4 add) + ReLU 1200 + fc2 120x3x(10 + 10)
  EXPECT_EQ(f.forward, 9600 + 1200 + 7200);
  // 13 per row (max 2, shift 3, exp 3, sum 2, log 1, +max -z[y] 2) + mean (119 adds, 1 divide)
  EXPECT_EQ(f.loss, 120 * 13 + 119 + 1);
  // dz 3x120x3, dW2 3x10x120x2, db2 3x119, dh 120x10x5, mask 1200, dW1 10x4x120x2, db1 10x119
  EXPECT_EQ(f.backward, 1080 + 7200 + 357 + 6000 + 1200 + 9600 + 1190);
  EXPECT_EQ(f.update, 2 * 83);
  EXPECT_EQ(f.total(), 18000 + 1680 + 26627 + 166);
}

TEST(EpochFlops, GrowsLinearlyWithRowsAndRefusesBadShapes) {
  const double per_row = train::epoch_flops(1001).total() - train::epoch_flops(1000).total();
  EXPECT_DOUBLE_EQ(train::epoch_flops(1000001).total() - train::epoch_flops(1000000).total(),
                   per_row);
  EXPECT_EQ(per_row, 150 + 14 + 222);  // forward, loss, backward per extra row
  EXPECT_THROW(train::epoch_flops(0), std::invalid_argument);
  EXPECT_THROW(train::epoch_flops(10, 4, 0, 3), std::invalid_argument);
}
