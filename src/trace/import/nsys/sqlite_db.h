// A read-only SQLite database of someone else's (an Nsight Systems export), opened so that
// nothing in it can run code or write: Debian's libsqlite3 with the defensive settings SQLite
// recommends for untrusted files (https://sqlite.org/security.html). Every error is an
// InputError naming the file; the values of a row are read through typed accessors that say
// which table, row and column held a value of the wrong type.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "trace/import/byte_source.h"  // InputError

struct sqlite3;
struct sqlite3_stmt;

namespace trace {

class SqliteDb {
 public:
  // A file on disk, opened read-only and immutable (no locks, no journal, no writes); `name`
  // is what errors call it (the path unless given).
  static SqliteDb open_file(const std::string& path, const std::string& name = "");
  // A database held in memory (a decompressed .sqlite.gz, the fuzz target); `name` is what
  // errors call it.
  static SqliteDb open_bytes(std::string bytes, const std::string& name);

  SqliteDb(SqliteDb&&) noexcept;
  ~SqliteDb();

  const std::string& name() const { return name_; }
  bool has_table(const std::string& table) const;  // a table (not a view) of that name
  std::set<std::string> columns(const std::string& table) const;
  [[noreturn]] void fail(const std::string& what) const;  // throws InputError "NAME: what"

  class Rows;
  Rows query(const std::string& sql, const std::string& table) const;

 private:
  SqliteDb(sqlite3* db, std::string name, std::unique_ptr<std::string> bytes);
  void harden();
  sqlite3* db_ = nullptr;
  std::string name_;
  std::unique_ptr<std::string> bytes_;  // the in-memory image, alive as long as the handle
};

// The rows of one SELECT; column i of the current row through the accessors. `table` names
// the table in errors; the first selected column is its rowid, named in errors too.
class SqliteDb::Rows {
 public:
  Rows(Rows&&) noexcept;
  ~Rows();
  bool next();  // false after the last row; throws InputError on a damaged file
  int64_t rowid() const;
  // An INTEGER, or nullopt for NULL; any other type throws, naming the column.
  std::optional<int64_t> opt_int(int i, const char* column) const;
  int64_t req_int(int i, const char* column) const;  // NULL throws too
  // TEXT (or a BLOB's bytes), or nullopt for NULL; a number throws.
  std::optional<std::string_view> opt_text(int i, const char* column) const;
  // Throws InputError "NAME: table T, row R: column C <what>".
  [[noreturn]] void bad(const char* column, const std::string& what) const;

 private:
  friend class SqliteDb;
  Rows(const SqliteDb* db, sqlite3_stmt* st, std::string table)
      : db_(db), st_(st), table_(std::move(table)) {}
  const SqliteDb* db_;
  sqlite3_stmt* st_;
  std::string table_;
};

}  // namespace trace
