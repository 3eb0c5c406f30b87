#include "iris/iris_data.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace iris {
namespace {

[[noreturn]] void fail(const std::string& path, int64_t line, const std::string& what) {
  std::ostringstream msg;
  msg << path;
  if (line > 0) msg << ":" << line;
  msg << ": " << what;
  throw DataError(msg.str());
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

const char* const kColumnNames[] = {"row",          "sepal_length", "sepal_width",
                                    "petal_length", "petal_width",  "label"};

double parse_number(const std::string& path, int64_t line, int column, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || errno == ERANGE || !std::isfinite(value)) {
    fail(path, line,
         std::string("column ") + std::to_string(column + 1) + " (" + kColumnNames[column] +
             "): expected a finite number, got '" + text + "'");
  }
  return value;
}

int64_t parse_integer(const std::string& path, int64_t line, int column, const std::string& text,
                      int64_t lo, int64_t hi) {
  const double value = parse_number(path, line, column, text);
  if (value != std::floor(value) || value < lo || value > hi) {
    fail(path, line,
         std::string("column ") + std::to_string(column + 1) + " (" + kColumnNames[column] +
             "): expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
             "], got '" + text + "'");
  }
  return static_cast<int64_t>(value);
}

Dataset load_with_rows(const std::string& path, int64_t expected_rows,
                       std::vector<int64_t>* row_ids) {
  std::ifstream in(path);
  if (!in) fail(path, 0, "cannot open (expected an Iris CSV written by data/make_split.py)");
  std::string line;
  int64_t line_no = 0;
  if (!std::getline(in, line))
    fail(path, 1, "empty file: expected the header '" + std::string(kCsvHeader) + "'");
  ++line_no;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != kCsvHeader)
    fail(path, 1, "expected the header '" + std::string(kCsvHeader) + "', got '" + line + "'");

  Dataset data;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = split_commas(line);
    if (cells.size() != 6) {
      fail(path, line_no,
           "expected 6 comma-separated columns (" + std::string(kCsvHeader) + "), got " +
               std::to_string(cells.size()));
    }
    row_ids->push_back(parse_integer(path, line_no, 0, cells[0], 0, kAllRows - 1));
    std::array<double, kFeatures> feats{};
    for (int f = 0; f < kFeatures; ++f) feats[f] = parse_number(path, line_no, f + 1, cells[f + 1]);
    data.features.push_back(feats);
    data.labels.push_back(parse_integer(path, line_no, 5, cells[5], 0, kClasses - 1));
  }
  if (expected_rows >= 0 && data.rows() != expected_rows) {
    fail(path, 0,
         "expected " + std::to_string(expected_rows) + " data rows, got " +
             std::to_string(data.rows()));
  }
  return data;
}

}  // namespace

Dataset load_csv(const std::string& path, int64_t expected_rows) {
  std::vector<int64_t> ids;
  return load_with_rows(path, expected_rows, &ids);
}

ArticleSplit load_article_split(const std::string& data_dir) {
  std::vector<int64_t> train_ids, test_ids;
  const std::string train_path = data_dir + "/iris_train.csv";
  const std::string test_path = data_dir + "/iris_test.csv";
  ArticleSplit split{load_with_rows(train_path, kTrainRows, &train_ids),
                     load_with_rows(test_path, kTestRows, &test_ids)};
  std::set<int64_t> seen(train_ids.begin(), train_ids.end());
  if (static_cast<int64_t>(seen.size()) != kTrainRows)
    fail(train_path, 0, "row indices repeat: expected 120 distinct rows");
  for (int64_t id : test_ids) {
    if (!seen.insert(id).second) {
      fail(test_path, 0,
           "row " + std::to_string(id) + " is also in " + train_path +
               " (or repeated): the split must be disjoint");
    }
  }
  return split;
}

MinMaxScaler MinMaxScaler::fit(const Dataset& data) {
  if (data.rows() == 0) throw DataError("MinMaxScaler::fit: no rows");
  MinMaxScaler s;
  for (int f = 0; f < kFeatures; ++f) {
    double lo = data.features[0][f], hi = lo;
    for (const auto& row : data.features) {
      lo = std::min(lo, row[f]);
      hi = std::max(hi, row[f]);
    }
    s.min[f] = lo;
    s.range[f] = hi > lo ? hi - lo : 1.0;
  }
  return s;
}

Dataset MinMaxScaler::transform(const Dataset& data) const {
  Dataset out = data;
  for (auto& row : out.features)
    for (int f = 0; f < kFeatures; ++f) row[f] = (row[f] - min[f]) / range[f];
  return out;
}

std::string default_data_dir() {
  if (const char* env = std::getenv("IRIS_DATA_DIR"); env && *env) return env;
  return std::string(IRIS_SOURCE_DIR) + "/data";
}

}  // namespace iris
