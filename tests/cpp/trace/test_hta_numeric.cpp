// numpy's and pandas' arithmetic as HTA's figures go through it (analyze/hta_numeric.h), to the
// last bit: the expected values were printed by numpy 2.4.6 and pandas 3.1.1 (repr of the
// float64), e.g. numpy.sum(v), DataFrame.groupby(k).v.sum(), Series.describe(), numpy.round.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "trace/analyze/hta_numeric.h"

namespace {

// 0.1 i + 1 / (i + 3), and for n > 100 minus (i % 7) 1e7: sums whose rounding depends on order.
std::vector<double> data(int n) {
  std::vector<double> v;
  for (int k = 0; k < n; ++k) {
    const double i = k;
    v.push_back(0.1 * i + 1.0 / (i + 3.0) - std::fmod(i, 7.0) * 1e7 * (n > 100 ? 1 : 0));
  }
  return v;
}

struct Sums {
  int n;
  double numpy_sum;
  // DataFrame.groupby(k).v.sum() of [NaN, v...]: with a NaN in the column pandas sums in its
  // Cython group_sum (Kahan); HTA's idle gaps always hold one (each stream's first gap).
  double pandas_groupby_sum;
};

TEST(HtaNumeric, PairwiseAndKahanSumsAsNumpyAndPandas) {
  const Sums cases[] = {
      {1, 0.3333333333333333, 0.3333333333333333},
      {7, 3.4289682539682547, 3.428968253968254},
      {8, 4.2289682539682545, 4.2289682539682545},
      {100, 498.70708242930726, 498.70708242930726},
      {129, -3809999170.443775, -3809999170.443775},
      {1000, -29969950044.012535, -29969950044.01253},
  };
  for (const Sums& c : cases) {
    const auto v = data(c.n);
    EXPECT_EQ(trace::pairwise_sum(v.data(), v.size()), c.numpy_sum) << c.n;
    EXPECT_EQ(trace::nan_sum(v), c.numpy_sum) << c.n;
    trace::KahanSum k;
    for (double x : v) k.add(x);
    EXPECT_EQ(k.sum, c.pandas_groupby_sum) << c.n;
  }
}

// np.add.reduceat(v, [0])[0], which pandas' groupby mean sums a group with when the groups are
// in order: the first value plus the pairwise sum of the rest, not numpy.sum(v) (the last
// column shows where they part).
TEST(HtaNumeric, ReduceatSumAsNumpy) {
  const struct {
    int n;
    double reduceat, numpy_sum;
  } cases[] = {{1, 0.3333333333333333, 0.3333333333333333},
               {3, 1.0833333333333333, 1.0833333333333335},
               {9, 5.119877344877344, 5.119877344877345},
               {129, -3809999170.4437747, -3809999170.443775}};
  for (const auto& c : cases) {
    const auto v = data(c.n);
    EXPECT_EQ(trace::reduceat_sum(v.data(), v.size()), c.reduceat) << c.n;
    EXPECT_EQ(trace::pairwise_sum(v.data(), v.size()), c.numpy_sum) << c.n;
  }
}

TEST(HtaNumeric, DescribeAsPandas) {
  const double nan = trace::kHtaNaN;
  // pd.Series([3.5, nan, 1.25, 7.0, -2.0, 1.25, 10/3]).describe()
  auto d = trace::describe({3.5, nan, 1.25, 7.0, -2.0, 1.25, 10.0 / 3});
  EXPECT_EQ(d.count, 6.0);
  EXPECT_EQ(d.mean, 2.388888888888889);
  EXPECT_EQ(d.std, 3.0081678932656124);
  EXPECT_EQ(d.min, -2.0);
  EXPECT_EQ(d.p25, 1.25);
  EXPECT_EQ(d.p50, 2.291666666666667);
  EXPECT_EQ(d.p75, 3.4583333333333335);
  EXPECT_EQ(d.max, 7.0);
  // One value: std NaN (ddof 1); none: only the count.
  d = trace::describe({nan, 5.0});
  EXPECT_EQ(d.count, 1.0);
  EXPECT_EQ(d.mean, 5.0);
  EXPECT_TRUE(std::isnan(d.std));
  EXPECT_EQ(d.p75, 5.0);
  d = trace::describe({nan});
  EXPECT_EQ(d.count, 0.0);
  EXPECT_TRUE(std::isnan(d.mean) && std::isnan(d.min) && std::isnan(d.p50) && std::isnan(d.max));
}

TEST(HtaNumeric, RoundAsNumpy) {
  // numpy.round(x, 2): rint(x * 100) / 100, so 2.675 (267.5 after the product) goes up and
  // 0.285 (28.499999999999996) down, unlike Python's round().
  const std::pair<double, double> cases[] = {
      {0.125, 0.12}, {0.135, 0.14}, {2.675, 2.68}, {1234.5678, 1234.57}, {0.285, 0.28}};
  for (const auto& [x, want] : cases) EXPECT_EQ(trace::numpy_round(x, 2), want) << x;
  EXPECT_TRUE(std::signbit(trace::numpy_round(-0.005, 2)));
  EXPECT_TRUE(std::isnan(trace::numpy_round(trace::kHtaNaN, 2)));
}

TEST(HtaNumeric, IntegerScalarsWrapAndPromoteAsNumpy) {
  const auto a = trace::HtaScalar::of(-120, 8), b = trace::HtaScalar::of(10, 8);
  EXPECT_EQ((a - b).i, 126);  // int8: -130 wraps around
  EXPECT_EQ((a - b).bits, 8);
  const auto c = trace::HtaScalar::of(10, 64);
  EXPECT_EQ((a - c).i, -130);  // int8 with int64: int64
  const auto f = trace::HtaScalar::of(0.5, 0);
  EXPECT_FALSE((a - f).is_int());
  EXPECT_EQ((a - f).d, -120.5);
  EXPECT_TRUE(b <= c);
  EXPECT_FALSE(trace::HtaScalar::of(trace::kHtaNaN, 0) <= c);
  bool wrapped = false;
  EXPECT_EQ(trace::column_op(124, 7, 8, &wrapped), -125);
  EXPECT_TRUE(wrapped);
  EXPECT_EQ(trace::column_sum({1e15, 3, -1}, 64).i, 1000000000000002);
}

TEST(HtaNumeric, StableTsOrderKeepsTiesAndPutsNaNLast) {
  const double nan = trace::kHtaNaN;
  std::vector<size_t> order;
  trace::stable_ts_order({3, nan, 1, 3, 1, nan, 0}, 0, &order);
  EXPECT_EQ(order, (std::vector<size_t>{6, 2, 4, 0, 3, 1, 5}));
}

}  // namespace
