// libFuzzer target for the Nsight Systems reader's own parsing: what it does with the values
// it reads. SQLite's parser of the file is its authors' to fuzz; here the input chooses the
// shape of an export (which tables, which columns) and every cell of it (its type, and a value
// drawn to hit the reader's cases: event classes and types, nested and inverted times, shared
// ids, missing strings, bytes that are not UTF-8, numbers of every size), builds it with
// SQLite, and runs the reader, the attribution and the writers on it. A first byte of 0 instead
// hands the rest to SQLite as a database image (seeded with a real export), for the reader's
// handling of a damaged file. Bad input must end in trace::InputError, never a crash, a hang
// or a sanitizer report.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "capture/bench_names.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/nsys/nsys_import.h"

namespace {

enum class Kind { Time, Small, Class, NvtxType, Tid, StringId, Text, Any };

struct Table {
  const char* name;
  std::vector<std::pair<const char*, Kind>> columns;
};

const std::vector<Table>& tables() {
  static const std::vector<Table> t = {
      {"CUPTI_ACTIVITY_KIND_RUNTIME",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"eventClass", Kind::Class},
        {"globalTid", Kind::Tid},
        {"correlationId", Kind::Small},
        {"nameId", Kind::StringId}}},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"deviceId", Kind::Small},
        {"streamId", Kind::Small},
        {"correlationId", Kind::Small},
        {"globalPid", Kind::Tid},
        {"demangledName", Kind::StringId}}},
      {"CUPTI_ACTIVITY_KIND_MEMCPY",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"deviceId", Kind::Small},
        {"streamId", Kind::Small},
        {"correlationId", Kind::Small},
        {"globalPid", Kind::Tid},
        {"bytes", Kind::Any},
        {"copyKind", Kind::Small},
        {"srcKind", Kind::Small},
        {"dstKind", Kind::Small}}},
      {"CUPTI_ACTIVITY_KIND_MEMSET",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"deviceId", Kind::Small},
        {"streamId", Kind::Small},
        {"correlationId", Kind::Small},
        {"globalPid", Kind::Tid},
        {"bytes", Kind::Any}}},
      {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"deviceId", Kind::Small},
        {"streamId", Kind::Small},
        {"correlationId", Kind::Small},
        {"globalPid", Kind::Tid}}},
      {"NVTX_EVENTS",
       {{"start", Kind::Time},
        {"end", Kind::Time},
        {"eventType", Kind::NvtxType},
        {"text", Kind::Text},
        {"textId", Kind::StringId},
        {"globalTid", Kind::Tid},
        {"domainId", Kind::Small}}},
      {"COMPOSITE_EVENTS", {{"id", Kind::Small}, {"start", Kind::Time}, {"globalTid", Kind::Tid}}},
      {"SAMPLING_CALLCHAINS",
       {{"id", Kind::Small},
        {"symbol", Kind::StringId},
        {"module", Kind::StringId},
        {"stackDepth", Kind::Small}}},
  };
  return t;
}

const char* kNames[] = {"iris",
                        "epoch",
                        "forward",
                        "item",
                        "cudaMemcpy_v3020",
                        "cudaStreamSynchronize_v3020",
                        "cudaLaunchKernel",
                        "cuCtxSynchronize",
                        "aten::item, op_id = 1",
                        "ProfilerStep#1",
                        "MPI",
                        "/app/saxpy",
                        "/lib64/libc-2.31.so",
                        "[vdso]"};
constexpr int kNameCount = sizeof kNames / sizeof kNames[0];

// One cell, of the type and value the input chooses.
void bind(FuzzedDataProvider& in, sqlite3_stmt* st, int i, Kind kind) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      sqlite3_bind_null(st, i);
      return;
    case 1:
      sqlite3_bind_double(st, i, in.ConsumeFloatingPoint<double>());
      return;
    case 2: {
      const std::string b = in.ConsumeRandomLengthString(16);
      sqlite3_bind_blob(st, i, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
      return;
    }
    case 3:
      sqlite3_bind_int64(st, i, in.ConsumeIntegral<int64_t>());
      return;
    default:
      break;
  }
  int64_t v = 0;
  switch (kind) {
    case Kind::Time:
      v = in.ConsumeIntegralInRange<int64_t>(-50, 1000);
      break;
    case Kind::Small:
      v = in.ConsumeIntegralInRange<int64_t>(-2, 6);
      break;
    case Kind::Class:
      v = in.PickValueInArray({0, 1, 67, 2});
      break;
    case Kind::NvtxType:
      v = in.PickValueInArray({34, 59, 60, 70, 71, 75, 39});
      break;
    case Kind::Tid:
      v = (in.ConsumeIntegralInRange<int64_t>(1, 3) << 24) |
          in.ConsumeIntegralInRange<int64_t>(1, 3);
      break;
    case Kind::StringId:
      v = in.ConsumeIntegralInRange<int64_t>(0, kNameCount + 1);
      break;
    case Kind::Text: {
      const std::string t = in.ConsumeBool() ? std::string(in.PickValueInArray(kNames))
                                             : in.ConsumeRandomLengthString(24);
      sqlite3_bind_text(st, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
      return;
    }
    case Kind::Any:
      v = in.ConsumeIntegral<int64_t>();
      break;
  }
  sqlite3_bind_int64(st, i, v);
}

// The database the input describes, as the bytes of a file.
std::string build(FuzzedDataProvider& in) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  std::string sql = "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);";
  if (in.ConsumeIntegralInRange<int>(0, 15) != 0)
    sql += "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);";
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO StringIds VALUES (?1, ?2)", -1, &st, nullptr);
  for (int id = 0; st && id < kNameCount + 1; ++id) {
    if (in.ConsumeBool()) continue;  // a missing string
    sqlite3_bind_int(st, 1, id);
    const std::string v =
        in.ConsumeBool() ? std::string(kNames[id % kNameCount]) : in.ConsumeRandomLengthString(24);
    sqlite3_bind_text(st, 2, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  for (const Table& t : tables()) {
    if (in.ConsumeBool()) continue;
    std::vector<Kind> kinds;
    std::string create = std::string("CREATE TABLE ") + t.name + " (",
                insert = std::string("INSERT INTO ") + t.name + " VALUES (";
    for (const auto& [column, kind] : t.columns) {
      if (in.ConsumeIntegralInRange<int>(0, 20) == 0) continue;  // a column left out
      create += std::string(kinds.empty() ? "" : ", ") + column;
      insert += std::string(kinds.empty() ? "" : ", ") + "?";
      kinds.push_back(kind);
    }
    if (kinds.empty()) continue;
    sqlite3_exec(db, (create + ")").c_str(), nullptr, nullptr, nullptr);
    sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &st, nullptr);
    const int rows = in.ConsumeIntegralInRange<int>(0, 40);
    for (int r = 0; st && r < rows; ++r) {
      for (size_t c = 0; c < kinds.size(); ++c) bind(in, st, static_cast<int>(c + 1), kinds[c]);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
  }
  sqlite3_int64 size = 0;
  unsigned char* p = sqlite3_serialize(db, "main", &size, 0);
  std::string out =
      p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(size)) : std::string();
  sqlite3_free(p);
  sqlite3_close(db);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::string bytes;
    if (size > 0 && data[0] == 0) {
      bytes.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
    } else {
      FuzzedDataProvider in(data, size);
      bytes = build(in);
    }
    const uint64_t n = bytes.size();
    const auto db = trace::SqliteDb::open_bytes(std::move(bytes), "fuzz input");
    trace::NsysOptions options;  // bench's names, as ./attribute reads every export
    options.step_phase = bench::kStepPhase;
    options.phase_domain = bench::kPhaseDomain;
    trace::ImportedTrace t = trace::import_nsys_sqlite(db, n, options);
    const auto report = trace::build_report(t);
    trace::JsonOut out;
    trace::write_report_json(out, report);
    (void)trace::report_table(report);
    if (trace::use_step_ranges(&t, "epoch") > 0) (void)trace::report_table(trace::build_report(t));
  } catch (const trace::InputError&) {
  }
  return 0;
}
