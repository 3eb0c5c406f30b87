#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "iris/iris_data.h"

namespace {

// A scratch folder per test with files written from strings. (POSIX calls, not
// std::filesystem: libtorch.so exports its own copies of some std::filesystem symbols,
// and remove_all resolved to one of them crashes.)
class IrisFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/iris_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const auto& f : files_) std::remove(f.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ + "/" + name;
    std::ofstream(path) << text;
    files_.push_back(path);
    return path;
  }
  // Expects load_csv to throw a DataError whose message contains every fragment.
  void expect_error(const std::string& path, std::initializer_list<std::string> fragments,
                    int64_t rows = -1) {
    try {
      iris::load_csv(path, rows);
      FAIL() << "no error for " << path;
    } catch (const iris::DataError& e) {
      for (const auto& f : fragments)
        EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
  std::string dir_;
  std::vector<std::string> files_;
};

const std::string kHeader = std::string(iris::kCsvHeader) + "\n";

}  // namespace

TEST(IrisData, ArticleSplitHas120And30DistinctRowsOfAllClasses) {
  const auto split = iris::load_article_split(iris::default_data_dir());
  ASSERT_EQ(split.train.rows(), 120);
  ASSERT_EQ(split.test.rows(), 30);
  // train_test_split(test_size=0.2, random_state=42) puts row 22 (class 0) first.
  EXPECT_DOUBLE_EQ(split.train.features[0][0], 4.6);
  EXPECT_EQ(split.train.labels[0], 0);
  int per_class[3] = {};
  for (auto l : split.train.labels) ++per_class[l];
  EXPECT_EQ(per_class[0] + per_class[1] + per_class[2], 120);
  for (int c : per_class) EXPECT_GT(c, 30);
}

TEST(IrisData, MinMaxScalerIsFittedOnTrainingRowsOnly) {
  const auto split = iris::load_article_split(iris::default_data_dir());
  const auto scaler = iris::MinMaxScaler::fit(split.train);
  const auto train = scaler.transform(split.train);
  for (int f = 0; f < iris::kFeatures; ++f) {
    double lo = 1e9, hi = -1e9;
    for (const auto& r : train.features) lo = std::min(lo, r[f]), hi = std::max(hi, r[f]);
    EXPECT_NEAR(lo, 0.0, 1e-12);
    EXPECT_NEAR(hi, 1.0, 1e-12);
  }
  // Test rows use the training min/range, so they may leave [0, 1]; here, one does.
  const auto test = scaler.transform(split.test);
  bool outside = false;
  for (const auto& r : test.features)
    for (double v : r) outside |= v < 0.0 || v > 1.0;
  EXPECT_TRUE(outside)
      << "expected at least one test value outside [0,1] (scaler fitted on train only)";
}

TEST(IrisData, ConstantFeatureGetsScaleOne) {
  iris::Dataset d;
  d.features = {{1, 2, 3, 4}, {1, 5, 3, 8}};
  d.labels = {0, 1};
  const auto s = iris::MinMaxScaler::fit(d);
  EXPECT_EQ(s.range[0], 1.0);
  EXPECT_EQ(s.transform(d).features[1][0], 0.0);
}

TEST_F(IrisFiles, MissingFileNamesThePath) {
  expect_error(dir_ + "/nope.csv", {"nope.csv", "cannot open"});
}

TEST_F(IrisFiles, WrongHeaderIsRejected) {
  expect_error(write("a.csv", "a,b,c\n"), {"a.csv:1", "expected the header"});
}

TEST_F(IrisFiles, EmptyFileIsRejected) {
  expect_error(write("e.csv", ""), {"e.csv:1", "empty file"});
}

TEST_F(IrisFiles, WrongColumnCountNamesTheLine) {
  expect_error(write("c.csv", kHeader + "0,5.1,3.5,1.4,0.2,0\n1,4.9,3.0,1.4,0\n"),
               {"c.csv:3", "expected 6", "got 5"});
}

TEST_F(IrisFiles, NonNumberNamesLineAndColumn) {
  expect_error(write("n.csv", kHeader + "0,5.1,abc,1.4,0.2,0\n"),
               {"n.csv:2", "column 3 (sepal_width)", "'abc'"});
  expect_error(write("m.csv", kHeader + "0,5.1,3.5,,0.2,0\n"),
               {"m.csv:2", "petal_length", "finite number"});
  expect_error(write("i.csv", kHeader + "0,5.1,3.5,inf,0.2,0\n"), {"i.csv:2", "finite number"});
}

TEST_F(IrisFiles, LabelOutOfRangeIsRejected) {
  expect_error(write("l.csv", kHeader + "0,5.1,3.5,1.4,0.2,3\n"),
               {"l.csv:2", "label", "[0, 2]", "'3'"});
  expect_error(write("f.csv", kHeader + "0,5.1,3.5,1.4,0.2,1.5\n"), {"f.csv:2", "label"});
}

TEST_F(IrisFiles, RowIndexOutOfRangeIsRejected) {
  expect_error(write("r.csv", kHeader + "150,5.1,3.5,1.4,0.2,0\n"), {"r.csv:2", "column 1 (row)"});
}

TEST_F(IrisFiles, RowCountIsChecked) {
  expect_error(write("k.csv", kHeader + "0,5.1,3.5,1.4,0.2,0\n"),
               {"k.csv", "expected 120 data rows, got 1"}, 120);
}

TEST_F(IrisFiles, SplitThatOverlapsIsRejected) {
  std::string train = kHeader, test = kHeader;
  for (int i = 0; i < 120; ++i)
    train += std::to_string(i) + ",5.1,3.5,1.4,0.2," + std::to_string(i % 3) + "\n";
  for (int i = 119; i < 149; ++i) test += std::to_string(i) + ",5.1,3.5,1.4,0.2,0\n";
  write("iris_train.csv", train);
  write("iris_test.csv", test);
  try {
    iris::load_article_split(dir_);
    FAIL() << "overlap not detected";
  } catch (const iris::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("row 119"), std::string::npos) << e.what();
  }
}

TEST_F(IrisFiles, CrLfLineEndingsAreAccepted) {
  const auto d = iris::load_csv(
      write("w.csv", std::string(iris::kCsvHeader) + "\r\n0,5.1,3.5,1.4,0.2,2\r\n"), 1);
  EXPECT_EQ(d.labels[0], 2);
  EXPECT_DOUBLE_EQ(d.features[0][3], 0.2);
}
