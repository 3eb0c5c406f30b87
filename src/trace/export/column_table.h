// A column-wise table: numbers as contiguous vectors, text as codes into a list of distinct
// strings. The Python package turns each column into one NumPy array (a categorical for text)
// without one object per row; its columns come from the table's declaration
// (output_schema.h), so a frame has every declared column even when it has no row.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace trace {

struct Column {
  enum class Kind : uint8_t { F64, I64, Bool, Text };
  std::string name;
  Kind kind = Kind::F64;
  std::vector<double> f64;
  std::vector<int64_t> i64;
  std::vector<uint8_t> flags;
  std::vector<int32_t> codes;  // Text: index into categories, -1 for a missing value
  std::vector<std::string> categories;
  std::unordered_map<std::string, int32_t> code_of;
};

class ColumnTable {
 public:
  // Columns are made on first use, in that order; every row sets every column.
  void f64(const std::string& name, double v) { col(name, Column::Kind::F64).f64.push_back(v); }
  void i64(const std::string& name, int64_t v) { col(name, Column::Kind::I64).i64.push_back(v); }
  void flag(const std::string& name, bool v) { col(name, Column::Kind::Bool).flags.push_back(v); }
  void text(const std::string& name, const std::string& v) {
    Column& c = col(name, Column::Kind::Text);
    auto [it, added] = c.code_of.emplace(v, static_cast<int32_t>(c.categories.size()));
    if (added) c.categories.push_back(v);
    c.codes.push_back(it->second);
  }
  void missing_text(const std::string& name) { col(name, Column::Kind::Text).codes.push_back(-1); }
  // Declares a column that may get no row, so that the table still has it.
  void declare(const std::string& name, Column::Kind kind) { col(name, kind); }

  std::deque<Column>& columns() { return cols_; }
  const std::deque<Column>& columns() const { return cols_; }

 private:
  Column& col(const std::string& name, Column::Kind kind) {
    auto [it, added] = index_.emplace(name, cols_.size());
    if (added) cols_.push_back(Column{name, kind, {}, {}, {}, {}, {}, {}});
    return cols_[it->second];
  }
  std::deque<Column> cols_;  // in the order first used
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace trace
