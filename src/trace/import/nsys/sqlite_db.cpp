#include "trace/import/nsys/sqlite_db.h"

#include <sqlite3.h>

namespace trace {

namespace {

// file: URI of a path, so that ?immutable=1 can follow it (RFC 3986 unreserved characters
// and '/' as they are, everything else percent-encoded).
std::string file_uri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == '/')
      uri += static_cast<char>(c);
    else
      uri += '%', uri += hex[c >> 4], uri += hex[c & 15];
  }
  return uri + "?immutable=1";
}

const char* type_word(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "an integer";
    case SQLITE_FLOAT:
      return "a real number";
    case SQLITE_TEXT:
      return "text";
    case SQLITE_BLOB:
      return "a blob";
    default:
      return "NULL";
  }
}

}  // namespace

SqliteDb::SqliteDb(sqlite3* db, std::string name, std::unique_ptr<std::string> bytes)
    : db_(db), name_(std::move(name)), bytes_(std::move(bytes)) {}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : db_(o.db_), name_(std::move(o.name_)), bytes_(std::move(o.bytes_)) {
  o.db_ = nullptr;
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
}

void SqliteDb::fail(const std::string& what) const { throw InputError(name_ + ": " + what); }

// Nothing in the file may run: no triggers or views (a "table" we read must be a table), no
// functions from the schema, no writes; page cells checked as they are read.
void SqliteDb::harden() {
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_exec(db_, "PRAGMA cell_size_check=ON; PRAGMA query_only=ON;", nullptr, nullptr, nullptr);
  // Reading the schema is the first thing that fails on a file that is no database.
  char* err = nullptr;
  if (sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err) !=
      SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    fail("not a readable SQLite database (" + msg + ")");
  }
}

SqliteDb SqliteDb::open_file(const std::string& path, const std::string& name) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(file_uri(path).c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  SqliteDb out(db, name.empty() ? path : name, nullptr);
  if (rc != SQLITE_OK)
    out.fail(std::string("cannot open as SQLite (") + (db ? sqlite3_errmsg(db) : "out of memory") +
             ")");
  out.harden();
  return out;
}

SqliteDb SqliteDb::open_bytes(std::string bytes, const std::string& name) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr);
  SqliteDb out(db, name, std::make_unique<std::string>(std::move(bytes)));
  if (rc != SQLITE_OK) out.fail("cannot open an in-memory SQLite database");
  std::string& b = *out.bytes_;
  // READONLY: SQLite reads the image in place and never resizes or writes it.
  if (sqlite3_deserialize(db, "main", reinterpret_cast<unsigned char*>(b.data()),
                          static_cast<sqlite3_int64>(b.size()),
                          static_cast<sqlite3_int64>(b.size()),
                          SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
    out.fail(std::string("not a readable SQLite database (") + sqlite3_errmsg(db) + ")");
  out.harden();
  return out;
}

bool SqliteDb::has_table(const std::string& table) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1,
                         &st, nullptr) != SQLITE_OK)
    fail(std::string("cannot read its schema (") + sqlite3_errmsg(db_) + ")");
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    fail(std::string("cannot read its schema (") + sqlite3_errmsg(db_) + ")");
  return rc == SQLITE_ROW;
}

std::set<std::string> SqliteDb::columns(const std::string& table) const {
  std::set<std::string> out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM pragma_table_info(?1)", -1, &st, nullptr) !=
      SQLITE_OK)
    fail("cannot read the columns of table " + table + " (" + sqlite3_errmsg(db_) + ")");
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (const unsigned char* n = sqlite3_column_text(st, 0))
      out.insert(reinterpret_cast<const char*>(n));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    fail("cannot read the columns of table " + table + " (" + sqlite3_errmsg(db_) + ")");
  return out;
}

SqliteDb::Rows SqliteDb::query(const std::string& sql, const std::string& table) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    fail("cannot read table " + table + " (" + sqlite3_errmsg(db_) + ")");
  return Rows(this, st, table);
}

SqliteDb::Rows::Rows(Rows&& o) noexcept : db_(o.db_), st_(o.st_), table_(std::move(o.table_)) {
  o.st_ = nullptr;
}

SqliteDb::Rows::~Rows() {
  if (st_) sqlite3_finalize(st_);
}

bool SqliteDb::Rows::next() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("table " + table_ + " cannot be read (" + sqlite3_errmsg(sqlite3_db_handle(st_)) + ")");
}

int64_t SqliteDb::Rows::rowid() const { return sqlite3_column_int64(st_, 0); }

void SqliteDb::Rows::bad(const char* column, const std::string& what) const {
  db_->fail("table " + table_ + ", row " + std::to_string(rowid()) + ": column " + column + " " +
            what);
}

std::optional<int64_t> SqliteDb::Rows::opt_int(int i, const char* column) const {
  const int type = sqlite3_column_type(st_, i);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type != SQLITE_INTEGER)
    bad(column, std::string("holds ") + type_word(type) + ", expected an integer");
  return sqlite3_column_int64(st_, i);
}

int64_t SqliteDb::Rows::req_int(int i, const char* column) const {
  const auto v = opt_int(i, column);
  if (!v) bad(column, "is NULL, expected an integer");
  return *v;
}

std::optional<std::string_view> SqliteDb::Rows::opt_text(int i, const char* column) const {
  const int type = sqlite3_column_type(st_, i);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type == SQLITE_BLOB) {
    const void* p = sqlite3_column_blob(st_, i);  // NULL for an empty blob
    return p ? std::string_view(static_cast<const char*>(p),
                                static_cast<size_t>(sqlite3_column_bytes(st_, i)))
             : std::string_view();
  }
  if (type != SQLITE_TEXT) bad(column, std::string("holds ") + type_word(type) + ", expected text");
  const unsigned char* p = sqlite3_column_text(st_, i);
  return std::string_view(reinterpret_cast<const char*>(p),
                          static_cast<size_t>(sqlite3_column_bytes(st_, i)));
}

}  // namespace trace
