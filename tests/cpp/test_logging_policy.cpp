#include <gtest/gtest.h>

#include "train/logging_policy.h"

using train::LoggingPolicy;

TEST(LoggingPolicy, ClosedFormMatchesEpochByEpochCount) {
  for (int64_t interval : {0, 1, 2, 3, 7, 100, 200, 333, 1000, 2000, 5000}) {
    for (bool print100 : {false, true}) {
      for (int64_t epochs : {1, 99, 100, 101, 1999, 2000, 20000}) {
        const LoggingPolicy p{interval, print100};
        int64_t sum = 0;
        for (int64_t e = 1; e <= epochs; ++e) sum += p.item_calls_at(e);
        EXPECT_EQ(p.expected_item_calls(epochs), sum) << p.describe() << " epochs=" << epochs;
      }
    }
  }
}

// The article's runs, as counted in ../shared/ARTICLE.md.
TEST(LoggingPolicy, ArticleItemCounts) {
  EXPECT_EQ((LoggingPolicy{1, true}.expected_item_calls(20000)), 20200);  // CPU and GPU runs
  EXPECT_EQ((LoggingPolicy{0, true}.expected_item_calls(20000)), 200);    // "no recording"
  EXPECT_EQ((LoggingPolicy{100, true}.expected_item_calls(20000)), 600);  // the table's rows
  EXPECT_EQ((LoggingPolicy{200, true}.expected_item_calls(20000)), 400);
  EXPECT_EQ((LoggingPolicy{1000, true}.expected_item_calls(20000)), 240);
  EXPECT_EQ((LoggingPolicy{2000, true}.expected_item_calls(20000)), 220);
  EXPECT_EQ((LoggingPolicy{200, false}.expected_item_calls(20000)), 200);
  EXPECT_EQ((LoggingPolicy{0, false}.expected_item_calls(20000)), 0);
  EXPECT_EQ((LoggingPolicy{200, true}.expected_records(20000)), 100);
}

TEST(LoggingPolicy, NegativeIntervalIsRejectedByName) {
  try {
    LoggingPolicy{-3, true}.validate();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("interval must be >= 0"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("-3"), std::string::npos);
  }
}

TEST(LoggingPolicy, Describe) {
  EXPECT_EQ((LoggingPolicy{200, true}.describe()),
            "record every 200 (append+print) + print every 100");
  EXPECT_EQ((LoggingPolicy{1, false}.describe()), "append every epoch");
  EXPECT_EQ((LoggingPolicy{0, false}.describe()), "never record");
}
