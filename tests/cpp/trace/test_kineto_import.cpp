// The importer on real Kineto traces (tests/data/traces, from HTA's test data), on older
// category names, on exact float timestamps, and on bad input.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "trace/import/byte_source.h"
#include "trace/import/kineto/kineto_import.h"
#include "trace/import/kineto/kineto_numbers.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace_test_util.h"

using tracetest::data;
using tracetest::import_error;
using tracetest::import_text;

TEST(UsTextToNs, KeepsNanosecondsExactly) {
  int64_t ns = 0;
  ASSERT_TRUE(trace::us_text_to_ns("1707417525509335", &ns));
  EXPECT_EQ(ns, 1707417525509335000);
  ASSERT_TRUE(trace::us_text_to_ns("4203669604595.407", &ns));
  EXPECT_EQ(ns, 4203669604595407);  // a double multiply would give ...406.99
  ASSERT_TRUE(trace::us_text_to_ns("68.0", &ns));
  EXPECT_EQ(ns, 68000);
  ASSERT_TRUE(trace::us_text_to_ns("1e3", &ns));
  EXPECT_EQ(ns, 1000000);
  ASSERT_TRUE(trace::us_text_to_ns("0.0015", &ns));
  EXPECT_EQ(ns, 2);  // beyond ns resolution: rounded to the nearest ns
  ASSERT_TRUE(trace::us_text_to_ns("-5", &ns));
  EXPECT_EQ(ns, -5000);
  EXPECT_FALSE(trace::us_text_to_ns("", &ns));
  EXPECT_FALSE(trace::us_text_to_ns("1.", &ns));
  EXPECT_FALSE(trace::us_text_to_ns("abc", &ns));
  EXPECT_FALSE(trace::us_text_to_ns("99999999999999999999", &ns));
}

TEST(UsTextToNs, IntegersExactlyUpToTheLimitOfInt64) {
  // Integer text of 1 to 18 digits (leading zeros, a sign, trailing whitespace), around the
  // largest value that fits (INT64_MAX ns = 9223372036854775.807 us): value x 1000 exactly,
  // or false when that does not fit.
  std::mt19937_64 rng(3);
  std::vector<std::string> texts = {"0",
                                    "-0",
                                    "007",
                                    "9223372036854775",
                                    "9223372036854776",
                                    "-9223372036854775",
                                    "9999999999999999",
                                    "1000000000000000",
                                    "99999999999999999",
                                    "922337203685477 "};
  for (int k = 0; k < 20000; ++k) {
    std::string t = rng() % 4 == 0 ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % 18);
    for (int d = 0; d < digits; ++d) t += static_cast<char>('0' + rng() % 10);
    texts.push_back(t);
  }
  for (const auto& t : texts) {
    __int128 v = 0;
    size_t i = t[0] == '-';
    for (; i < t.size() && t[i] != ' '; ++i) v = v * 10 + (t[i] - '0');
    v *= 1000;
    const bool fits = v <= static_cast<__int128>(INT64_MAX);
    int64_t ns = 0;
    ASSERT_EQ(trace::us_text_to_ns(t, &ns), fits) << t;
    if (fits) ASSERT_EQ(ns, static_cast<int64_t>(t[0] == '-' ? -v : v)) << t;
  }
  int64_t ns = 0;
  for (const char* t : {"12:4", "1/2", "-", "--1", "1-", "0x1", "1 2", "1234567:", "/2345678",
                        "12345678901234:6", "123456789012345/", "1234567 12345678"})
    EXPECT_FALSE(trace::us_text_to_ns(t, &ns)) << t;
}

TEST(TextToDouble, AsStrtodOnJsonNumbers) {
  // The listing's numbers must be Python json's (correctly rounded, as strtod), bit for bit:
  // random JSON numbers of 1 to 25 digits, fractions, exponents and trailing blanks, the
  // halfway and long-mantissa cases strtod takes its slow path for, and out-of-range ones.
  std::mt19937_64 rng(11);
  std::vector<std::string> texts = {"0",
                                    "-0",
                                    "1e400",
                                    "-1e400",
                                    "1e-400",
                                    "4.9e-324",
                                    "2.2250738585072011e-308",
                                    "9007199254740993",
                                    "9007199254740993.0000000001",
                                    "4203669604595.407 ",
                                    "1.7976931348623157e308",
                                    "0.1000000000000000055511151231257827"};
  const auto digits = [&](int n) {
    std::string d;
    for (int i = 0; i < n; ++i) d += static_cast<char>('0' + rng() % 10);
    return d;
  };
  for (int k = 0; k < 50000; ++k) {
    std::string t = rng() % 4 == 0 ? "-" : "";
    t += std::to_string(1 + rng() % 9) + digits(static_cast<int>(rng() % 16));
    if (rng() % 2) t += "." + digits(1 + static_cast<int>(rng() % 12));
    if (rng() % 4 == 0)
      t += std::string(rng() % 2 ? "e" : "E") + (rng() % 2 ? "-" : "+") +
           std::to_string(rng() % 330);
    if (rng() % 8 == 0) t += " ";
    texts.push_back(t);
  }
  for (const auto& t : texts) {
    const double want = std::strtod(t.c_str(), nullptr), got = trace::text_to_double(t);
    ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << t;
  }
}

TEST(KinetoImport, EventSyncTraceHasEveryCategory) {
  const auto t = trace::import_trace(data("traces/a100-event-sync.json.gz"));
  const auto& r = t.records;
  EXPECT_EQ(t.events, 92u);
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(r.clock, "kineto");
  EXPECT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(r.api.size(), 12u);
  EXPECT_EQ(r.syncs.size(), 4u);
  EXPECT_EQ(r.cpu_ops.size(), 10u);
  ASSERT_EQ(r.memcpys.size(), 1u);
  EXPECT_EQ(r.memcpys[0].kind, trace::CopyKind::DtoH);
  EXPECT_EQ(r.memcpys[0].src, trace::MemoryKind::Device);
  EXPECT_EQ(r.memcpys[0].dst, trace::MemoryKind::Pageable);
  EXPECT_EQ(r.memcpys[0].stream_id, 7u);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].name, "ProfilerStep#100");
  EXPECT_EQ(r.steps[0].start_ns, 1707417525509335000u);
  EXPECT_EQ(r.steps[0].end_ns - r.steps[0].start_ns, 3154000u);
  int launches = 0, syncs = 0;
  for (const auto& a : r.api)
    launches += a.kind == trace::ApiKind::Launch, syncs += a.kind == trace::ApiKind::Sync;
  EXPECT_EQ(launches, 4);
  EXPECT_EQ(syncs, 3);  // stream, event and device sync
  EXPECT_EQ(t.unmatched_correlations, 0u);
}

TEST(KinetoImport, CudaSyncRowsNameTheEventTheyWaitFor) {
  // Event Sync rows carry the stream the event was recorded on and its cudaEventRecord's
  // correlation; -1 means "not known" (the multistream trace's first Event Sync).
  const auto t = trace::import_trace(data("traces/a100-event-sync.json.gz"));
  int events = 0;
  for (const auto& y : t.records.syncs) {
    if (y.kind == trace::SyncKind::Event) {
      ++events;
      EXPECT_EQ(y.wait_stream, 7u);
      EXPECT_EQ(y.wait_record_correlation, 1533u);
    } else {
      EXPECT_EQ(y.wait_stream, trace::kNoStream);
      EXPECT_EQ(y.wait_record_correlation, 0u);
    }
  }
  EXPECT_EQ(events, 2);
  const auto m = trace::import_trace(data("traces/a100-event-sync-multistream.json.gz"));
  bool unknown = false, wait_event = false;
  for (const auto& y : m.records.syncs) {
    unknown |= y.kind == trace::SyncKind::Event && y.wait_stream == trace::kNoStream &&
               y.wait_record_correlation == 0;
    if (y.kind == trace::SyncKind::StreamWaitEvent && y.correlation_id == 1389)
      wait_event = y.stream_id == 24 && y.wait_stream == 20 && y.wait_record_correlation == 1385;
  }
  EXPECT_TRUE(unknown);
  EXPECT_TRUE(wait_event);
}

TEST(KinetoImport, CudaGraphsTraceCounts) {
  const auto t = trace::import_trace(data("traces/a100-cuda-graphs-6streams.json.gz"));
  EXPECT_EQ(t.records.kernels.size(), 6080u);
  EXPECT_EQ(t.records.memcpys.size(), 1390u);
  EXPECT_EQ(t.records.memsets.size(), 277u);
  EXPECT_EQ(t.records.steps.size(), 5u);
  EXPECT_GT(t.bytes, 25000000u);
  EXPECT_FALSE(t.records.kernels[0].name.empty());
  trace::ImportOptions without_names;  // what ./attribute reads: the same kernels, unnamed
  without_names.kernel_names = false;
  const auto u =
      trace::import_trace(data("traces/a100-cuda-graphs-6streams.json.gz"), without_names);
  ASSERT_EQ(u.records.kernels.size(), 6080u);
  EXPECT_TRUE(u.records.kernels[0].name.empty());
  EXPECT_EQ(u.records.kernels[100].correlation_id, t.records.kernels[100].correlation_id);
}

TEST(KinetoImport, KernelNamesOnceEachNameTheSameKernels) {
  const auto t = trace::import_trace(data("traces/a100-cuda-graphs-6streams.json.gz"));
  for (const size_t region_bytes : {size_t{4096}, size_t{256} << 10}) {
    trace::ImportOptions ids;  // what ./attribute reads: each distinct name once
    ids.kernel_names = false, ids.kernel_name_ids = true;
    ids.threads = 3, ids.region_bytes = region_bytes;  // many batches, merged and renumbered
    const auto u = trace::import_trace(data("traces/a100-cuda-graphs-6streams.json.gz"), ids);
    ASSERT_EQ(u.records.kernels.size(), t.records.kernels.size());
    std::set<std::string> distinct;
    for (size_t i = 0; i < t.records.kernels.size(); ++i) {
      const auto& k = u.records.kernels[i];
      EXPECT_TRUE(k.name.empty());
      ASSERT_EQ(trace::kernel_name(u.records, k), t.records.kernels[i].name) << i;
      distinct.insert(t.records.kernels[i].name);
    }
    EXPECT_EQ(u.records.kernel_names.size(), distinct.size());  // each once
  }
}

TEST(KinetoImport, FolderOfRanks) {
  const auto files = trace::expand_trace_paths({data("traces/two-ranks")});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(trace::import_trace(files[0]).rank, 0);
  EXPECT_EQ(trace::import_trace(files[1]).rank, 1);
  EXPECT_THROW(trace::expand_trace_paths({data("traces/no-such-folder")}), trace::InputError);
}

TEST(KinetoImport, HipNamesAreMappedAndSaidSo) {
  const auto t = trace::import_trace(data("traces/mi250-rocm.json.gz"));
  EXPECT_TRUE(t.hip);
  EXPECT_EQ(t.records.kernels.size(), 14u);
  int launches = 0;
  for (const auto& a : t.records.api) launches += a.kind == trace::ApiKind::Launch;
  EXPECT_EQ(launches, 14);  // hipLaunchKernel, not silently zero
  ASSERT_FALSE(t.warnings.empty());
  EXPECT_NE(t.warnings[0].find("HIP"), std::string::npos);
}

TEST(KinetoImport, CpuOnlyTraceSaysHostFiguresOnly) {
  const auto t = trace::import_trace(data("traces/cpu-only.json.gz"));
  EXPECT_TRUE(t.records.kernels.empty());
  bool said = false;
  for (const auto& w : t.warnings) said |= w.find("no GPU events") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(KinetoImport, OlderCategoryNamesAndFloatTimes) {
  const auto t = import_text(R"J({"traceEvents": [
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 10.001, "dur": 0.002, "args": {"correlation": 5}},
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": 7, "ts": 12.5, "dur": 1, "args": {"correlation": 5, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 20, "dur": 1, "args": {"correlation": 6, "stream": 7, "bytes": 64}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 30, "dur": 1, "args": {"correlation": 7, "stream": 7}},
    {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 9, "dur": 5},
    {"ph": "i", "name": "instant", "pid": 1, "tid": 2, "ts": 1}
  ]})J");
  const auto& r = t.records;
  ASSERT_EQ(r.api.size(), 1u);
  EXPECT_EQ(r.api[0].start_ns, 10001u);
  EXPECT_EQ(r.api[0].end_ns, 10003u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].start_ns, 12500u);
  ASSERT_EQ(r.memcpys.size(), 1u);
  EXPECT_EQ(r.memcpys[0].kind, trace::CopyKind::HtoD);
  EXPECT_EQ(r.memcpys[0].src, trace::MemoryKind::Pinned);
  EXPECT_EQ(r.memcpys[0].bytes, 64u);
  EXPECT_EQ(r.memsets.size(), 1u);
  EXPECT_EQ(r.cpu_ops.size(), 1u);
  EXPECT_EQ(t.unmatched_correlations, 2u);  // the copy and the memset have no host call
  bool said = false;
  for (const auto& w : t.warnings)
    said |= w.find("2 GPU events have a correlation id that matches no") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(KinetoImport, BareArrayAndEscapedStrings) {
  const auto t = import_text(
      R"([{"ph": "X", "cat": "cpu_op", "name": "a\"b\\", "pid": 1, "tid": 1, "ts": 1, "dur": 1}])");
  ASSERT_EQ(t.records.cpu_ops.size(), 1u);
  EXPECT_EQ(t.records.cpu_ops[0].name, "a\"b\\");
}

TEST(KinetoImport, CorrelationChecksWhateverTheIdsRange) {
  // Launches with and without GPU work, GPU work with and without a call: the same counts
  // whether the ids are a few apart (a bitmap over their range) or spread over 32 bits.
  for (uint32_t far : {50u, 4000000000u}) {
    const auto ev = [](const char* cat, const char* name, uint32_t corr, int ts) {
      return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
             "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) +
             ", \"dur\": 1, \"args\": {\"correlation\": " + std::to_string(corr) + "}}";
    };
    const std::string doc = "[" + ev("cuda_runtime", "cudaLaunchKernel", 1, 1) + "," +
                            ev("cuda_runtime", "cudaLaunchKernel", far, 2) + "," +
                            ev("cuda_runtime", "cudaLaunchKernel", 7, 3) + "," +
                            ev("cuda_runtime", "cudaMemcpyAsync", 9, 4) + "," +
                            ev("kernel", "k", far, 5) + "," + ev("kernel", "k", 1, 6) + "," +
                            ev("kernel", "k", 8, 7) + "," + ev("gpu_memcpy", "Memcpy HtoD", 9, 8) +
                            "," + ev("gpu_memset", "Memset", far + 1, 9) + "]";
    const auto t = import_text(doc);
    EXPECT_EQ(t.unmatched_correlations, 2u) << far;  // kernel 8, memset far + 1
    EXPECT_EQ(t.launches_without_gpu, 1u) << far;    // launch 7
  }
}

TEST(KinetoImport, CategoriesAndNamePrefixesMatchWhole) {
  // A category or prefix one byte off (the last one, or one byte short or long) is not it.
  const auto ev = [](const std::string& cat, const std::string& name, int ts) {
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
           "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": 1}";
  };
  std::string doc =
      "[" + ev("kernel", "k", 1) + "," + ev("kernem", "k", 2) + "," + ev("kerne", "k", 3) + "," +
      ev("kernels", "k", 4) + "," + ev("cpu_op", "ProfilerStep#1", 5) + "," +
      ev("cpu_oq", "ProfilerStep#2", 6) + "," + ev("cpu_op", "ProfilerStep$3", 7) + "," +
      ev("cuda_runtime", "cuLaunchKernel", 8) + "," + ev("cuda_runtime", "cudaLaunchKernel", 9) +
      "," + ev("cuda_runtimf", "cudaLaunchKernel", 10) + "," +
      ev("cuda_runtime", "hipLaunchKernel", 11) + "," + ev("cuda_runtime", "hiLaunchKernel", 12) +
      "]";
  const auto t = import_text(doc);
  const auto& r = t.records;
  EXPECT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.cpu_ops.size(), 2u);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].name, "ProfilerStep#1");
  ASSERT_EQ(r.api.size(), 4u);
  EXPECT_TRUE(r.api[0].driver);   // cu...: the driver API
  EXPECT_FALSE(r.api[1].driver);  // cuda...: the runtime
  EXPECT_TRUE(t.hip);
  EXPECT_EQ(t.ignored_events,
            5u);  // kernem, kerne, kernels, cpu_oq, cuda_runtimf: other categories
}

TEST(KinetoImport, ListingAloneIsTheSameListingWithoutRecords) {
  // records = false (the Python package's HTA frames) must list what a full import lists.
  for (const char* name : {"a100-alexnet-syncs", "a100-cuda-graphs-6streams", "mi250-rocm",
                           "gp100-steps-annotations", "cpu-only"}) {
    const std::string path = data(std::string("traces/") + name + ".json.gz");
    trace::ImportOptions full, alone;
    full.list_events = alone.list_events = true;
    alone.records = false;
    const auto a = trace::import_trace(path, full), b = trace::import_trace(path, alone);
    ASSERT_FALSE(a.listing.events.empty()) << name;
    EXPECT_EQ(tracetest::listing_text(b.listing), tracetest::listing_text(a.listing)) << name;
    EXPECT_EQ(b.rank, a.rank) << name;
    EXPECT_EQ(b.events, a.events) << name;
    const auto& r = b.records;
    EXPECT_TRUE(r.api.empty() && r.kernels.empty() && r.memcpys.empty() && r.cpu_ops.empty() &&
                r.annotations.empty())
        << name;
    for (const auto& w : b.warnings) {  // the file's own warnings, none about the records not made
      EXPECT_NE(std::find(a.warnings.begin(), a.warnings.end(), w), a.warnings.end()) << name;
      EXPECT_EQ(w.find("no GPU events"), std::string::npos) << name << ": " << w;
      EXPECT_EQ(w.find("no ProfilerStep"), std::string::npos) << name << ": " << w;
    }
  }
  // And checks the file as fully: a complete event without "dur" still names itself.
  const std::string bad = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1}]})";
  auto src = trace::memory_byte_source(bad.data(), bad.size(), "bad.json");
  trace::ImportOptions alone;
  alone.list_events = true, alone.records = false;
  try {
    trace::import_trace(*src, "bad.json", alone);
    ADD_FAILURE() << "imported an event without \"dur\"";
  } catch (const trace::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("event 0 (byte offset 17)"), std::string::npos)
        << e.what();
  }
}

TEST(KinetoImportBadInput, NamesTheFileAndWhere) {
  EXPECT_NE(import_error("", "empty.json").find("empty.json: empty file"), std::string::npos);
  EXPECT_NE(import_error("hello").find("not JSON"), std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph": "X", "ts": 1)").find("truncated"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1}]})")
                .find("event 0 (byte offset 17)"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1}]})")
                .find("without \"dur\""),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph":"i","ts":1}, {"ph": "X", "dur": 1}]})")
                .find("event 1"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph": "X", "ts": "1", "dur": 1}]})")
                .find("\"ts\" is not a number"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [1]})").find("element 0 is not an object"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": []} x)").find("after the end"), std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1, "name": tru}]})")
                .find("event 0 (byte offset 17): \"name\" is not a valid string"),
            std::string::npos);
  EXPECT_NE(import_error(R"({"traceEvents": [{"a": [}]})").find("unbalanced"), std::string::npos);
  EXPECT_EQ(import_error(R"({"traceEvents": []})"), "");
}

// A message quoting a binary file's bytes stays text: what is not UTF-8 (as Python's strict
// decoder reads it) is written \xHH, and well-formed UTF-8 is kept.
TEST(KinetoImportBadInput, MessagesEscapeBytesThatAreNotUtf8) {
  EXPECT_EQ(trace::escape_non_utf8("a\x80"
                                   "b\xff"),
            "a\\x80b\\xff");
  const std::string utf8 = "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e";
  EXPECT_EQ(trace::escape_non_utf8(utf8), utf8);
  EXPECT_EQ(trace::escape_non_utf8("\xc0\xaf"), "\\xc0\\xaf");                    // overlong
  EXPECT_EQ(trace::escape_non_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(trace::escape_non_utf8("\xe2\x9c"), "\\xe2\\x9c");                    // cut short
  EXPECT_EQ(trace::escape_non_utf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  const std::string e = import_error(std::string("\x80\x81 binary"), "b.bin");
  EXPECT_NE(e.find("b.bin: not JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("'\\x80'"), std::string::npos) << e;
  EXPECT_EQ(trace::escape_non_utf8(e), e);
}

TEST(KinetoImportBadInput, TruncatedGzip) {
  std::ifstream in(data("traces/a100-event-sync.json.gz"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string whole = ss.str();
  const std::string half = whole.substr(0, whole.size() / 2);
  const std::string msg = import_error(half, "half.json.gz");
  EXPECT_NE(msg.find("half.json.gz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  std::string corrupt = whole;
  corrupt[corrupt.size() / 2] ^= 0x55;
  EXPECT_NE(import_error(corrupt, "corrupt.json.gz"), "");
}
