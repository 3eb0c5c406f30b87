// Hand-made Nsight Systems exports for the tests: SQL run on an empty in-memory database,
// serialized to the bytes of a .sqlite file. kMinimalSchema is the part every export has
// (StringIds and the metadata table); the tests add the tables they need, with the columns of
// the real exports (schema 3.x) or the ones they mean to leave out.
#pragma once

#include <sqlite3.h>

#include <stdexcept>
#include <string>

#include "capture/bench_names.h"
#include "trace/import/nsys/nsys_import.h"

namespace tracetest {

inline const char* kMinimalSchema =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'), "
    "('EXPORT_PRODUCT_VERSION', '2026.2.1.210');";

inline const char* kRuntimeTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "eventClass INTEGER NOT NULL,"
    " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT "
    "NULL, callchainId INTEGER);";
inline const char* kKernelTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid "
    "INTEGER,"
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);";
inline const char* kMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid "
    "INTEGER,"
    " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);";
inline const char* kSyncTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT "
    "NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
    "correlationId INTEGER,"
    " globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);";
inline const char* kNvtxTable =
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
    "rangeId INTEGER,"
    " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId "
    "INTEGER,"
    " domainId INTEGER);";

// globalTid of thread `tid` in process `pid`, as Nsight Systems packs it.
inline long long gtid(long long pid, long long tid) { return (1ll << 48) | (pid << 24) | tid; }

// The bytes of a database made by running `sql` (several statements) on an empty one.
inline std::string sqlite_bytes(const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "?";
    sqlite3_free(err);
    sqlite3_close(db);
    throw std::runtime_error("test SQL failed: " + msg);
  }
  sqlite3_int64 size = 0;
  unsigned char* p = sqlite3_serialize(db, "main", &size, 0);
  std::string out(reinterpret_cast<const char*>(p), static_cast<size_t>(size));
  sqlite3_free(p);
  sqlite3_close(db);
  return out;
}

inline trace::ImportedTrace import_sql(const std::string& sql,
                                       const std::string& name = "test.sqlite",
                                       const trace::NsysOptions& options = {}) {
  std::string bytes = sqlite_bytes(sql);
  const auto size = bytes.size();
  const auto db = trace::SqliteDb::open_bytes(std::move(bytes), name);
  return trace::import_nsys_sqlite(db, size, options);
}

// An export of bench under nsys, read as tools/attribute.cpp reads it: bench's NVTX domain and
// step phase (capture/bench_names.h), which the library does not know.
inline trace::ImportedTrace import_bench_sql(const std::string& sql) {
  trace::NsysOptions o;
  o.step_phase = bench::kStepPhase;
  o.phase_domain = bench::kPhaseDomain;
  return import_sql(sql, "bench.sqlite", o);
}

// The InputError message for importing the database `sql` makes, or "" when it imports.
inline std::string import_sql_error(const std::string& sql) {
  try {
    import_sql(sql, "bad.sqlite");
  } catch (const trace::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tracetest
