// Which tables and columns of an Nsight Systems SQLite export the reader uses, checked before
// a row is read: a file that lacks one exits with the table or column named. Exports differ
// by version (the metadata table was renamed, columns come and go, tables are left out when
// nothing of their kind was recorded); the five real exports in tests/data/nsys (schema 2.9
// to 3.25) are the versions this is known to read.
#pragma once

#include <initializer_list>
#include <string>

#include "trace/import/nsys/sqlite_db.h"

namespace trace::nsys {

struct ExportInfo {
  std::string product;  // EXPORT_PRODUCT_VERSION, e.g. "2022.2.1.31"
  std::string schema;   // EXPORT_SCHEMA_VERSION, e.g. "2.9.1"
};

// Throws InputError unless the database has Nsight Systems' StringIds and metadata tables.
ExportInfo check_export(const SqliteDb& db);

struct Column {
  const char* name;
  bool required;
};

// "SELECT rowid, <columns> FROM <table> [WHERE ...]", NULL standing for an optional column the
// table lacks; throws InputError naming a required column it lacks.
std::string select_sql(const SqliteDb& db, const char* table, std::initializer_list<Column> columns,
                       const char* where = "");

}  // namespace trace::nsys
