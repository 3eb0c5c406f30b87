// The Nsight Systems SQLite reader on hand-made exports with known answers: what each table
// becomes, the ids it must not confuse, the values it must survive, and the errors that name
// the file, table, row and column. The real exports are in test_nsys_agreement.cpp.
#include <gtest/gtest.h>

#include <fstream>

#include "nsys_test_db.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/steps_from_ranges.h"
#include "trace/import/nsys/nsys_values.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

using tracetest::gtid;
using tracetest::import_sql;
using tracetest::import_sql_error;
using tracetest::kMinimalSchema;

namespace {

std::string with(std::initializer_list<std::string> parts) {
  std::string s = kMinimalSchema;
  for (const auto& p : parts) s += p;
  return s;
}

std::string insert_api(long long start, long long end, int cls, long long global_tid,
                       long long corr, int name_id) {
  return "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(start) + "," +
         std::to_string(end) + "," + std::to_string(cls) + "," + std::to_string(global_tid) + "," +
         std::to_string(corr) + "," + std::to_string(name_id) + ",0,NULL);";
}

std::string insert_nvtx(long long start, const std::string& end, int type, const std::string& text,
                        long long global_tid, int domain, const std::string& text_id = "NULL") {
  return "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(start) + "," + end + "," +
         std::to_string(type) + ",NULL,NULL,NULL," + text + "," + std::to_string(global_tid) +
         ",NULL," + text_id + "," + std::to_string(domain) + ");";
}

}  // namespace

TEST(NsysValues, ApiNameLosesOnlyTheEntryPointVersion) {
  EXPECT_EQ(trace::nsys::api_name("cudaStreamSynchronize_v3020"), "cudaStreamSynchronize");
  EXPECT_EQ(trace::nsys::api_name("cudaLaunchKernelExC_v11060"), "cudaLaunchKernelExC");
  EXPECT_EQ(trace::nsys::api_name("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(trace::nsys::api_name("my_vector"), "my_vector");  // "_v" not followed by digits only
  EXPECT_EQ(trace::nsys::api_name("x_v"), "x_v");
  EXPECT_EQ(trace::nsys::api_name("_v12"), "_v12");
}

TEST(NsysValues, OpNameIsTheAtenOpWithoutPyTorchsFields) {
  EXPECT_EQ(trace::nsys::op_name("aten::view, op_id = 314290"), "aten::view");
  EXPECT_EQ(trace::nsys::op_name("aten::mm, seq = 12, sizes = [[2, 3], [3, 4]]"), "aten::mm");
  EXPECT_EQ(trace::nsys::op_name("iris:epoch"), "iris:epoch");
  EXPECT_EQ(trace::nsys::op_name("a, b"), "a, b");
}

TEST(NsysValues, Utf8ReplacesEachInvalidByte) {
  EXPECT_EQ(trace::nsys::utf8("Gei\xdf"), "Gei\xEF\xBF\xBD");            // Latin-1 sharp s
  EXPECT_EQ(trace::nsys::utf8("\xC3\x9F ok"), "\xC3\x9F ok");            // UTF-8 sharp s
  EXPECT_EQ(trace::nsys::utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
  EXPECT_EQ(trace::nsys::utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(trace::nsys::utf8("\xED\xA0\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");                     // a surrogate
  EXPECT_EQ(trace::nsys::utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(trace::nsys::utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(NsysValues, GlobalTidPacksProcessAndThread) {
  EXPECT_EQ(trace::nsys::pid_of(gtid(1230493, 1230494)), 1230493u);
  EXPECT_EQ(trace::nsys::tid_of(gtid(1230493, 1230494)), 1230494u);
  EXPECT_EQ(trace::nsys::tid_of(-1), 0xFFFFFFu);
}

TEST(NsysImport, EachTableBecomesItsRecords) {
  const auto t = import_sql(with({
      tracetest::kRuntimeTable,
      tracetest::kKernelTable,
      tracetest::kMemcpyTable,
      tracetest::kSyncTable,
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMemcpyAsync_v3020'),"
      " (3, 'cudaStreamSynchronize_v3020'), (4, 'void k<float>(int)'), (5, 'k'), (6, "
      "'cuLaunchKernel');",
      insert_api(100, 130, 0, gtid(7, 8), 11, 1),
      insert_api(140, 150, 1, gtid(7, 8), 12, 6),
      insert_api(200, 260, 0, gtid(7, 8), 13, 2),
      insert_api(260, 300, 0, gtid(7, 8), 14, 3),
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (135, 190, 0, 1, 7, 11, " +
          std::to_string(gtid(7, 0)) + ", 4, 5);",
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (191, 195, 0, 1, 7, 12, " +
          std::to_string(gtid(7, 0)) + ", 4, 5);",
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (250, 255, 0, 1, 7, 13, " +
          std::to_string(gtid(7, 0)) + ", 4, 2, 2, 0);",
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (261, 299, 0, 1, 7, 14, " +
          std::to_string(gtid(7, 0)) + ", 2, 0);",
  }));
  const auto& r = t.records;
  EXPECT_EQ(t.format, "SQLite");
  EXPECT_EQ(r.clock, "nsys");
  EXPECT_EQ(t.producer, "Nsight Systems 2026.2.1.210, export schema 3.25.0");
  ASSERT_EQ(r.api.size(), 4u);
  EXPECT_EQ(r.api[0].name, "cudaLaunchKernel");
  EXPECT_EQ(r.api[0].kind, trace::ApiKind::Launch);
  EXPECT_FALSE(r.api[0].driver);
  EXPECT_EQ(r.api[0].thread_id, 8u);
  EXPECT_TRUE(r.api[1].driver);
  EXPECT_EQ(r.api[2].kind, trace::ApiKind::Memcpy);
  EXPECT_EQ(r.api[3].kind, trace::ApiKind::Sync);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "void k<float>(int)");  // demangledName, as Kineto names kernels
  EXPECT_EQ(r.kernels[0].correlation_id, r.api[0].correlation_id);
  EXPECT_EQ(r.kernels[1].correlation_id, r.api[1].correlation_id);
  EXPECT_EQ(r.kernels[0].stream_id, 7u);
  ASSERT_EQ(r.memcpys.size(), 1u);
  EXPECT_EQ(r.memcpys[0].kind, trace::CopyKind::DtoH);
  EXPECT_EQ(r.memcpys[0].src, trace::MemoryKind::Device);
  EXPECT_EQ(r.memcpys[0].dst, trace::MemoryKind::Pageable);
  EXPECT_EQ(r.memcpys[0].bytes, 4u);
  ASSERT_EQ(r.syncs.size(), 1u);
  EXPECT_EQ(r.syncs[0].kind, trace::SyncKind::Stream);  // from its call, whatever syncType says
  EXPECT_EQ(t.unmatched_correlations, 0u);
  EXPECT_EQ(t.launches_without_gpu, 0u);
  EXPECT_EQ(t.events, 4u + 2 + 1 + 1);

  // Syncs outside every NVTX range are named by their call; a copy to pageable memory blocks.
  const auto rep = trace::build_report(t);
  ASSERT_EQ(rep.syncs.calls.size(), 2u);
  EXPECT_EQ(rep.syncs.calls[0].op, "cudaMemcpyAsync");
  EXPECT_EQ(rep.syncs.calls[1].op, "cudaStreamSynchronize");
  EXPECT_EQ(rep.total.a.launches, 2u);
}

TEST(NsysImport, BacktraceCopiesOfCallsCountOnce) {
  // nsys --cudabacktrace records the call again (eventClass 67), unsuffixed and a little wider.
  const auto t = import_sql(with(
      {tracetest::kRuntimeTable,
       "INSERT INTO StringIds VALUES (1, 'cudaMemcpy'), (2, 'cudaMemcpy_v3020');",
       insert_api(100, 200, 67, gtid(1, 1), 5, 1), insert_api(101, 199, 0, gtid(1, 1), 5, 2)}));
  ASSERT_EQ(t.records.api.size(), 1u);
  EXPECT_EQ(t.records.api[0].start_ns, 101u);
  ASSERT_FALSE(t.warnings.empty());
  EXPECT_NE(t.warnings[0].find("1 CUDA API calls recorded a second time"), std::string::npos);
  EXPECT_EQ(trace::build_report(t).syncs.calls.size(), 1u);
}

TEST(NsysImport, CpuSamplesNameTheProgramsOwnFunction) {
  // Samples every 100 ns on one thread: 3 in the program's loop (under libc at depth 0 for the
  // second), 1 inside libcuda with no frame of the program, then the loop again.
  const std::string schema =
      "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, cpu "
      "INTEGER, threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL);"
      "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module "
      "INTEGER NOT NULL, kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry "
      "INTEGER, originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER NOT NULL, "
      "symbolName TEXT, PRIMARY KEY (id, stackDepth));"
      "INSERT INTO StringIds VALUES (1, 'main'), (2, '/app/saxpy'), (3, 'memcpy'), "
      "(4, '/lib64/libc-2.31.so'), (5, '0x7fd9'), (6, '/usr/lib64/libcuda.so.525'), "
      "(7, 'check'), (8, '[vdso]');";
  std::string rows;
  const long long t = gtid(1, 1);
  const std::vector<std::vector<std::pair<int, int>>> stacks = {
      {{1, 2}}, {{3, 4}, {1, 2}}, {{7, 2}, {1, 2}}, {{5, 6}, {5, 8}}, {{1, 2}}};
  for (size_t i = 0; i < stacks.size(); ++i) {
    rows += "INSERT INTO COMPOSITE_EVENTS VALUES (" + std::to_string(i + 1) + "," +
            std::to_string(1000 + 100 * i) + ",0,1," + std::to_string(t) + ",1);";
    for (size_t d = 0; d < stacks[i].size(); ++d)
      rows += "INSERT INTO SAMPLING_CALLCHAINS VALUES (" + std::to_string(i + 1) + "," +
              std::to_string(stacks[i][d].first) + "," + std::to_string(stacks[i][d].second) +
              ",0,0,0,0,0,0," + std::to_string(d) + ",NULL);";
  }
  const auto r = import_sql(with({tracetest::kRuntimeTable, schema, rows})).records;
  ASSERT_EQ(r.sampled.size(), 3u);
  EXPECT_EQ(r.sampled[0].name, "main");  // samples 1-2: main, then main under libc's memcpy
  EXPECT_EQ(r.sampled[0].start_ns, 1000u);
  EXPECT_EQ(r.sampled[0].end_ns, 1200u);
  EXPECT_EQ(r.sampled[1].name, "check");  // the innermost frame of the program
  EXPECT_EQ(r.sampled[2].name, "main");   // after a sample with no frame of the program
  EXPECT_EQ(r.sampled[2].start_ns, 1400u);
  EXPECT_EQ(r.sampled[2].end_ns, 1500u);  // the last: one median interval
}

TEST(NsysImport, ProcessesKeepTheirCorrelationIdsAndThreadsApart) {
  // Two processes (two GPUs of one job) number their correlations alike, and two machines (or
  // containers) can reuse a thread id.
  const std::string pid1 = std::to_string(gtid(100, 0)), pid2 = std::to_string(gtid(200, 0));
  const auto t = import_sql(with({
      tracetest::kRuntimeTable,
      tracetest::kKernelTable,
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'k');",
      insert_api(0, 10, 0, gtid(100, 5), 1, 1),
      insert_api(0, 30, 0, gtid(200, 5), 1, 1),
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (20, 25, 1, 1, 7, 1, " + pid2 + ", 2, 2);",
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (12, 14, 0, 1, 7, 1, " + pid1 + ", 2, 2);",
  }));
  const auto& r = t.records;
  ASSERT_EQ(r.api.size(), 2u);
  EXPECT_NE(r.api[0].correlation_id, r.api[1].correlation_id);
  EXPECT_EQ(r.kernels[0].correlation_id, r.api[1].correlation_id);  // process 200's
  EXPECT_EQ(r.kernels[1].correlation_id, r.api[0].correlation_id);
  EXPECT_EQ(r.api[0].thread_id, 5u);
  EXPECT_NE(r.api[1].thread_id, 5u);
  bool told = false;
  for (const auto& w : t.warnings) told |= w.find("share a thread id") != std::string::npos;
  EXPECT_TRUE(told);
}

TEST(NsysImport, NvtxRangesAreOpsAnnotationsAndOurPhases) {
  const long long main = gtid(9, 9), other = gtid(9, 10);
  const auto t = tracetest::import_bench_sql(with({
      tracetest::kNvtxTable,
      "INSERT INTO StringIds VALUES (1, 'forward'), (2, 'epoch');",
      insert_nvtx(-5, "NULL", 75, "'iris'", main, 1),  // our domain, created before the session
      insert_nvtx(1, "NULL", 75, "'MPI'", main, 2),
      insert_nvtx(10, "100", 59, "NULL", main, 1, "2"),  // iris:epoch, a registered string
      insert_nvtx(20, "60", 59, "NULL", main, 1, "1"),   // iris:forward
      insert_nvtx(30, "40", 59, "'aten::mm, seq = 3'", main, 0),
      insert_nvtx(110, "200", 59, "NULL", main, 1, "2"),          // a second epoch
      insert_nvtx(50, "90", 60, "'MPI_Recv'", other, 2),          // a start/end range
      insert_nvtx(70, "NULL", 59, "'ProfilerStep#4'", other, 0),  // never ended
      insert_nvtx(80, "NULL", 34, "'a mark'", main, 0),
  }));
  const auto& r = t.records;
  ASSERT_EQ(r.cpu_ops.size(), 5u);
  EXPECT_EQ(r.cpu_ops[0].name, "iris:epoch");
  EXPECT_EQ(r.cpu_ops[0].start_ns, 10u);  // a domain made before the session moves no time
  EXPECT_EQ(r.cpu_ops[2].name, "aten::mm");
  EXPECT_EQ(r.cpu_ops[4].name, "ProfilerStep#4");
  EXPECT_EQ(r.cpu_ops[4].end_ns, 200u);  // the last NVTX time, as nsys stats takes it
  ASSERT_EQ(r.annotations.size(), 1u);
  EXPECT_EQ(r.annotations[0].name, "MPI:MPI_Recv");
  EXPECT_NE(r.annotations[0].thread_id, r.cpu_ops[0].thread_id);
  ASSERT_EQ(r.ranges.size(), 3u);  // iris only, named without the domain, nested by depth
  EXPECT_EQ(r.ranges[0].name, "epoch");
  EXPECT_EQ(r.ranges[0].depth, 0u);
  EXPECT_EQ(r.ranges[1].name, "forward");
  EXPECT_EQ(r.ranges[1].depth, 1u);
  EXPECT_EQ(r.ranges[2].depth, 0u);
  // A ProfilerStep#N range is a step, as in a Kineto trace; our epochs step only without them.
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].name, "ProfilerStep#4");
  EXPECT_EQ(t.ignored_events, 1u);
  std::string all;
  for (const auto& w : t.warnings) all += w + "\n";
  EXPECT_NE(all.find("1 NVTX ranges never end"), std::string::npos) << all;
  EXPECT_EQ(all.find("times moved"), std::string::npos) << all;
}

TEST(NsysImport, TimesBeforeTheSessionMoveEverythingAlike) {
  const long long main = gtid(9, 9);
  const auto t = import_sql(with(
      {tracetest::kNvtxTable, tracetest::kRuntimeTable, "INSERT INTO StringIds VALUES (1, 'f');",
       insert_nvtx(-5, "20", 59, "'opened early'", main, 0), insert_api(10, 12, 0, main, 1, 1)}));
  EXPECT_EQ(t.records.cpu_ops[0].start_ns, 0u);
  EXPECT_EQ(t.records.cpu_ops[0].end_ns, 25u);
  EXPECT_EQ(t.records.api[0].start_ns, 15u);
  EXPECT_EQ(t.warnings[0],
            "times moved 5 ns later: the export has times before its session's start");
}

TEST(NsysImport, OurEpochsAreTheStepsAndStepRangeChoosesOthers) {
  const long long main = gtid(9, 9);
  const std::string sql = with(
      {tracetest::kNvtxTable, insert_nvtx(0, "NULL", 75, "'iris'", main, 1),
       insert_nvtx(10, "100", 59, "'epoch'", main, 1), insert_nvtx(20, "30", 59, "'item'", main, 1),
       insert_nvtx(110, "200", 59, "'epoch'", main, 1),
       insert_nvtx(5, "300", 59, "'aten::mm'", main, 0)});
  // The library knows no domain or step of bench's: read without them, the iris ranges are
  // ops like any other and the export has no steps.
  const auto plain = import_sql(sql);
  EXPECT_TRUE(plain.records.ranges.empty());
  EXPECT_TRUE(plain.records.steps.empty());
  EXPECT_EQ(plain.warnings.back().rfind("no ProfilerStep#N ranges: the whole export", 0), 0u)
      << plain.warnings.back();
  // A caller's own names, whatever they are: its domain's phases, its step phase the steps.
  trace::NsysOptions theirs;
  theirs.phase_domain = "iris", theirs.step_phase = "item";
  const auto other = import_sql(sql, "theirs.sqlite", theirs);
  EXPECT_EQ(other.records.ranges.size(), 3u);
  ASSERT_EQ(other.records.steps.size(), 1u);
  EXPECT_EQ(other.records.steps[0].start_ns, 20u);
  auto t = tracetest::import_bench_sql(sql);
  ASSERT_EQ(t.records.steps.size(), 2u);
  EXPECT_EQ(t.records.steps[1].start_ns, 110u);
  EXPECT_EQ(trace::use_step_ranges(&t, "mm"), 0u);    // "aten::mm" is no domain's "mm"
  EXPECT_EQ(trace::use_step_ranges(&t, "item"), 1u);  // the phase and its op are one step
  EXPECT_EQ(t.records.steps[0].start_ns, 20u);
  EXPECT_EQ(trace::use_step_ranges(&t, "aten::mm"), 1u);
  EXPECT_EQ(trace::use_step_ranges(&t, "iris:epoch"), 2u);
  EXPECT_EQ(t.warnings.back(), "steps: the 2 ranges named iris:epoch (--step-range)");
}

TEST(NsysImport, SyncIsChargedToTheInnermostNvtxRange) {
  const long long main = gtid(3, 3);
  const auto t = import_sql(with({
      tracetest::kRuntimeTable,
      tracetest::kNvtxTable,
      "INSERT INTO StringIds VALUES (1, 'cudaStreamSynchronize_v3020');",
      insert_nvtx(0, "100", 59, "'aten::item, op_id = 7'", main, 0),
      insert_nvtx(5, "95", 59, "'aten::_local_scalar_dense, op_id = 8'", main, 0),
      insert_api(10, 90, 0, main, 1, 1),
  }));
  const auto rep = trace::build_report(t);
  ASSERT_EQ(rep.syncs.calls.size(), 1u);
  EXPECT_EQ(rep.syncs.calls[0].op, "aten::_local_scalar_dense");
  EXPECT_EQ(rep.syncs.calls[0].op_path, "aten::item > aten::_local_scalar_dense");
}

TEST(NsysImport, OlderSchemasAndAbsentOptionalColumnsRead) {
  // Schema 2.x: EXPORT_META_DATA, no eventClass (kind by name), no srcKind/dstKind/globalPid.
  const auto t = import_sql(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
      "globalTid INTEGER,"
      " correlationId INTEGER, nameId INTEGER NOT NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
      "deviceId INTEGER NOT NULL,"
      " streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER "
      "NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'cuMemcpyDtoH_v2');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 10, 5, 1, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2, 8, 0, 4294967295, 1, -3, 2);");
  ASSERT_EQ(t.records.api.size(), 1u);
  EXPECT_EQ(t.records.api[0].name, "cuMemcpyDtoH");
  EXPECT_TRUE(t.records.api[0].driver);
  EXPECT_EQ(t.producer, "Nsight Systems (version not recorded), export schema (not recorded)");
  ASSERT_EQ(t.records.memcpys.size(), 1u);
  EXPECT_EQ(t.records.memcpys[0].stream_id, trace::kNoStream);
  EXPECT_EQ(t.records.memcpys[0].bytes, 0u);  // a negative count read as none
  EXPECT_EQ(t.records.memcpys[0].dst, trace::MemoryKind::Other);
}

TEST(NsysImport, OddValuesAreKeptWithinBoundsAndCounted) {
  const auto t = import_sql(with({
      tracetest::kRuntimeTable, "INSERT INTO StringIds VALUES (1, 'cudaFree'), (2, X'476569DF');",
      insert_api(50, 40, 0, gtid(1, 1), 1, 1),   // ends before it starts
      insert_api(60, 70, 0, gtid(1, 1), 2, 77),  // no such string
      insert_api(80, 90, 0, gtid(1, 1), -4,
                 2),  // negative correlation: none; Latin-1 name as a blob
      insert_api(100, 110, 0, gtid(1, 1), INT64_MAX, 1),  // the largest id (no overflow: UBSan)
  }));
  const auto& a = t.records.api;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].end_ns, a[0].start_ns);
  EXPECT_EQ(t.negative_durations, 1u);
  EXPECT_EQ(a[1].name, "(string 77 missing)");
  EXPECT_EQ(a[2].correlation_id, 0u);
  EXPECT_EQ(a[2].name, "Gei\xEF\xBF\xBD");
  EXPECT_EQ(a[3].correlation_id, 3u);  // numbered after ids 1 and 2
}

TEST(NsysImport, DamagedOrForeignFilesNameWhatIsMissing) {
  EXPECT_EQ(tracetest::import_sql_error("CREATE TABLE t (x);"),
            "bad.sqlite: not an Nsight Systems export: no StringIds table (made by `nsys export "
            "--type sqlite`?)");
  EXPECT_EQ(import_sql_error("CREATE TABLE StringIds (id INTEGER, value TEXT);"),
            "bad.sqlite: not an Nsight Systems export: no META_DATA_EXPORT (or, before schema 3, "
            "EXPORT_META_DATA) table");
  EXPECT_EQ(
      import_sql_error(kMinimalSchema),
      "bad.sqlite: an Nsight Systems export with nothing this reads: no "
      "CUPTI_ACTIVITY_KIND_RUNTIME, "
      "CUPTI_ACTIVITY_KIND_KERNEL or NVTX_EVENTS table (recorded without -t cuda or -t nvtx?)");
  EXPECT_EQ(import_sql_error(with({"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end "
                                   "INTEGER, globalTid INTEGER,"
                                   " nameId INTEGER);"})),
            "bad.sqlite: table CUPTI_ACTIVITY_KIND_RUNTIME has no column correlationId (every "
            "Nsight Systems export has it)");
  EXPECT_EQ(
      import_sql_error(with(
          {tracetest::kRuntimeTable,
           "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ('soon', 2, 0, 1, 1, 1, 0, NULL);"})),
      "bad.sqlite: table CUPTI_ACTIVITY_KIND_RUNTIME, row 1: column start holds text, expected an "
      "integer");
  EXPECT_EQ(import_sql_error(with(
                {tracetest::kKernelTable,
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 0, 1e12, 1, 1, 1, 1);"})),
            "bad.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL, row 1: column streamId holds "
            "1000000000000, out of the range of an id");
  // A view cannot stand in for a table (it could run the file's own SQL): as if it were absent.
  EXPECT_NE(import_sql_error(with({"CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT 1;"}))
                .find("with nothing this reads"),
            std::string::npos);
  try {
    const auto db = trace::SqliteDb::open_bytes(
        "not a database at all, but long enough to look at..........", "x.sqlite");
    trace::import_nsys_sqlite(db, 0);
    ADD_FAILURE() << "read a file that is no database";
  } catch (const trace::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("x.sqlite: not a readable SQLite database (", 0), 0u)
        << e.what();
  }
  // Times that cannot be put on one unsigned clock.
  EXPECT_EQ(import_sql_error(
                with({tracetest::kRuntimeTable, "INSERT INTO StringIds VALUES (1, 'f');",
                      insert_api(-9000000000000000000ll, 0, 0, 1, 1, 1),
                      insert_api(9000000000000000000ll, 9000000000000000001ll, 0, 1, 2, 1)})),
            "bad.sqlite: its times span more than 2^63 ns");
}

TEST(TraceFile, FormatIsToldByContent) {
  const std::string dir = testing::TempDir();
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + name, std::ios::binary) << bytes;
    return dir + name;
  };
  EXPECT_EQ(trace::detect_format(write("a.trace", "{\"traceEvents\": []}")),
            trace::TraceFormat::KinetoJson);
  EXPECT_EQ(trace::detect_format(write("b.json", tracetest::sqlite_bytes(kMinimalSchema))),
            trace::TraceFormat::NsysSqlite);
  EXPECT_EQ(
      trace::detect_format(write(
          "c.sqlite", std::string("NVIDIA Tegra Profiler Report 1.\n") + std::string(40, 'x'))),
      trace::TraceFormat::NsysReport);
  EXPECT_EQ(
      trace::detect_format(write("d", "U3w[END]NVIDIA Nsight Systems Stream 2022.4.2.1-df9881f!")),
      trace::TraceFormat::NsysRawStream);
  EXPECT_EQ(trace::detect_format(tracetest::data("nsys/rtx3080-small.sqlite.gz")),
            trace::TraceFormat::NsysSqlite);
  EXPECT_EQ(trace::detect_format(tracetest::data("traces/cpu-only.json.gz")),
            trace::TraceFormat::KinetoJson);
  // --hta reads an export too: it has records, and nothing to list (test_hta_records.cpp).
  trace::ImportOptions listing;
  listing.list_events = true;
  const auto t = trace::import_file(tracetest::data("nsys/rtx3080-small.sqlite.gz"), listing);
  EXPECT_FALSE(t.listing.listed);
  EXPECT_FALSE(t.records.kernels.empty());
  // A report with no nsys to export it names the file and the way out.
  setenv("IRIS_NSYS", (dir + "no-such-nsys").c_str(), 1);
  try {
    trace::import_file(dir + "c.sqlite");
    ADD_FAILURE() << "read a report without nsys";
  } catch (const trace::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + "c.sqlite: an Nsight Systems report, which only "
                                                "Nsight Systems reads, and IRIS_NSYS=",
                                          0),
              0u)
        << e.what();
  }
  unsetenv("IRIS_NSYS");
}
