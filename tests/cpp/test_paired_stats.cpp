// The Paired rows' interval estimates (benchmarks/paired_stats.h): against scipy's figures for a
// fixed sample, and by their coverage on many drawn samples.
#include <gtest/gtest.h>

#include <random>

#include "paired_stats.h"

TEST(PairedStats, StudentsQuantileAsScipyGivesIt) {
  // scipy.stats.t.ppf(0.975, df)
  EXPECT_NEAR(bench::t975(1), 12.7062, 1e-3);
  EXPECT_NEAR(bench::t975(5), 2.5706, 1e-3);
  EXPECT_NEAR(bench::t975(29), 2.0452, 1e-3);
  EXPECT_NEAR(bench::t975(30), 2.0423, 1e-3);
  EXPECT_NEAR(bench::t975(40), 2.0211, 1e-3);
  EXPECT_NEAR(bench::t975(100), 1.9840, 1e-3);
  EXPECT_NEAR(bench::t975(1000), 1.9623, 1e-3);
}

TEST(PairedStats, TrimmedMeanAndYuensIntervalOnAnOutlier) {
  // One stalled run (10.0) among ten: the plain mean moves to 3.745 with an interval 3.2 wide;
  // the 20 % trimmed mean stays on the typical run. Figures from scipy (trim_mean, t.ppf) and
  // the winsorized variance.
  const std::vector<double> x = {3.1, 2.9, 3.4, 10.0, 3.0, 2.8, 3.3, 3.2, 2.7, 3.05};
  const auto t = bench::mean_interval(x);
  EXPECT_NEAR(t.mean, 3.091667, 1e-6);
  EXPECT_NEAR(t.lo, 2.851325, 1e-5);
  EXPECT_NEAR(t.hi, 3.332008, 1e-5);
  const auto plain = bench::mean_interval(x, 0);
  EXPECT_NEAR(plain.mean, 3.745, 1e-9);
  EXPECT_NEAR(plain.lo, 2.165224, 1e-5);
  EXPECT_NEAR(plain.hi, 5.324776, 1e-5);
  EXPECT_EQ(bench::mean_interval({4.0}).lo, 4.0);  // one sample: no interval
  EXPECT_EQ(bench::mean_interval({}).n, 0u);
}

TEST(PairedStats, TheIntervalsCoverNinetyFivePercent) {
  // 4000 samples of 30 from a normal and from a heavy-tailed law around 10: the 95 % intervals,
  // trimmed and plain, hold the centre in 93-97 % of them.
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(10, 2);
  std::student_t_distribution<double> heavy(3);
  int covered_trim = 0, covered_plain = 0, covered_heavy = 0;
  const int draws = 4000;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> a, b;
    for (int i = 0; i < 30; ++i) a.push_back(normal(rng)), b.push_back(10 + heavy(rng));
    const auto t = bench::mean_interval(a), p = bench::mean_interval(a, 0),
               h = bench::mean_interval(b);
    covered_trim += t.lo <= 10 && 10 <= t.hi;
    covered_plain += p.lo <= 10 && 10 <= p.hi;
    covered_heavy += h.lo <= 10 && 10 <= h.hi;
  }
  for (int c : {covered_trim, covered_plain, covered_heavy}) {
    EXPECT_GT(c, 0.93 * draws);
    EXPECT_LT(c, 0.97 * draws);
  }
}

TEST(PairedStats, PairedDifferencesCancelASharedDrift) {
  // Two configurations 1.0 apart, both drifting by the same large amount from round to round:
  // their separate intervals are wide, the paired difference's is tight.
  std::vector<double> a, b;
  std::mt19937 rng(3);
  std::normal_distribution<double> drift(0, 20), own(0, 0.1);
  for (int r = 0; r < 40; ++r) {
    const double d = drift(rng);
    a.push_back(100 + d + own(rng)), b.push_back(101 + d + own(rng));
  }
  EXPECT_GT(bench::mean_interval(a).half_width(), 5);
  const auto diff = bench::mean_interval(bench::differences(a, b));
  EXPECT_LT(diff.half_width(), 0.1);
  EXPECT_NEAR(diff.mean, 1.0, 0.1);
}
