// Iris as the article uses it: 150 rows, 4 features, 3 classes, split 120/30 by
// scikit-learn's train_test_split(test_size=0.2, random_state=42) (data/make_split.py),
// min-max scaled with the scaler fitted on the training rows only.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace iris {

inline constexpr int kFeatures = 4;
inline constexpr int kClasses = 3;
inline constexpr int64_t kTrainRows = 120;
inline constexpr int64_t kTestRows = 30;
inline constexpr int64_t kAllRows = 150;
// The exact header data/make_split.py writes; anything else is rejected.
inline constexpr const char* kCsvHeader =
    "row,sepal_length,sepal_width,petal_length,petal_width,label";

// A bad data file: the message names the path, the line and what was expected.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Rows in float64 (the article scales float64 data and converts to float32 after).
struct Dataset {
  std::vector<std::array<double, kFeatures>> features;
  std::vector<int64_t> labels;
  int64_t rows() const { return static_cast<int64_t>(labels.size()); }
};

// Reads one CSV in the format of data/make_split.py. Checks the header, 6 columns per
// line, finite numbers, a `row` index in [0, 150), labels in {0,1,2}, and (when
// expected_rows >= 0) the row count. Throws DataError.
Dataset load_csv(const std::string& path, int64_t expected_rows = -1);

struct ArticleSplit {
  Dataset train;  // 120 rows
  Dataset test;   // 30 rows
};
// Loads data_dir/iris_train.csv and data_dir/iris_test.csv and checks that together they
// are 150 distinct rows of Iris.
ArticleSplit load_article_split(const std::string& data_dir);

// sklearn.preprocessing.MinMaxScaler: x' = (x - min) / (max - min), per feature; a
// constant feature gets scale 1 (as scikit-learn does) instead of a division by zero.
struct MinMaxScaler {
  std::array<double, kFeatures> min{};
  std::array<double, kFeatures> range{};
  static MinMaxScaler fit(const Dataset& data);
  Dataset transform(const Dataset& data) const;
};

// The default data folder: the repository's data/ (compiled in), or $IRIS_DATA_DIR.
std::string default_data_dir();

}  // namespace iris
