// Every table ./attribute writes, declared once: the objects of its --json documents and the
// Python package's DataFrames, each field with its kind, unit and one-line meaning. The
// writers fill them (report_json, replay_json, frames); the declarations are what the package
// checks a document against (iris_trace.schema), the DataFrames' columns (frames.cpp) and the
// field reference (docs/output-fields.md, generated). A test writes every document mode on
// every test trace and fails on any field a writer adds, drops or reorders without its
// declaration, naming the field (tests/python/test_output_schema.py).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/export/column_table.h"

namespace trace::schema {

enum class Kind : uint8_t {
  Number,   // a finite number (written as an integer when it is one)
  Count,    // a whole number >= 0
  Int,      // a whole number (a rank may be negative)
  Flag,     // true or false
  Text,     // a string
  Words,    // one of the words in `of`, separated by '|'
  Object,   // an object: the table named in `of`
  Array,    // an array of objects: the table named in `of`
  Map,      // an object whose keys are names or numbers, each value the table named in `of`
  Numbers,  // an array of numbers
  Counts,   // an array of whole numbers >= 0
  Texts,    // an array of strings
  Either,   // one of two shapes: "array:TABLE|object:TABLE" in `of`
};

const char* to_string(Kind k);

struct Field {
  std::string key;
  Kind kind;
  std::string unit;       // "us", "bytes", "share" (0..1), "" for none
  std::string meaning;    // one line; "" for the meaning of `same_as`
  std::string of;         // Words, Object, Array, Map, Either: see Kind
  std::string same_as;    // "table.key": the same quantity, declared there
  bool optional = false;  // may be absent (written only when it applies)
  bool nullable = false;  // may be null (a frame's text column: a missing value)
};

struct Table {
  std::string name;
  std::string meaning;
  std::vector<Field> fields;
  bool frame = false;  // a Python DataFrame (frames.h) rather than a JSON object
};

// Every table, in the order the reference lists them.
const std::vector<Table>& tables();

// The table called `name`; throws std::logic_error when there is none.
const Table& table(std::string_view name);

// A field's meaning, following `same_as` references ("table.key") to where it is written.
std::string meaning_of(const Table& t, const Field& f);

// A frame's empty table with its declared columns (so a frame without rows has them all).
ColumnTable empty_frame(const Table& t);

// Throws std::logic_error naming the table and column when a filled frame's columns differ from
// its declaration (an undeclared column, or one in another place).
void check_frame(const Table& t, const ColumnTable& filled);

}  // namespace trace::schema
