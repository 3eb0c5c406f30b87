// ./attribute --hta against Holistic Trace Analysis 0.5.0 itself, without HTA at test time:
// tests/data/hta_expected/ holds what HTA computed on each real trace, tests/data/hta_cases/
// the shrunk traces on which experiments/hta_differential.py once found a disagreement, each
// with HTA's figures in both rounding modes. Both were read with HTA's tie order pinned to a
// stable sort and its idle figures before its display round(2) (hta_reference.py,
// hta_observed). Every figure must agree exactly where every timestamp HTA uses is a whole
// number of microseconds, and within float rounding elsewhere (HTA sums with numpy and
// pandas in an order not reproduced bit for bit): 1e-9 us + 1e-12 relative.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <random>
#include <string>

#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/hta_comm.h"
#include "trace/analyze/hta_kernels.h"
#include "trace/analyze/hta_memory.h"
#include "trace/analyze/hta_queue.h"
#include "trace/analyze/keyed_values.h"
#include "trace/export/hta_out.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace_test_util.h"

namespace {

// Whether every ts and dur HTA computes with is a whole number of us: always for a file it
// rounds (float ts, rounding on), else when the file's numbers are integers.
bool whole_us(const std::vector<trace::ImportedTrace>& traces, bool rounding) {
  for (const auto& t : traces) {
    const auto rows = trace::hta_events(t);
    if (rounding && rows.float_ts) continue;
    for (const auto& e : rows.rows)
      if (e.ts_us != std::floor(e.ts_us) || e.dur_us != std::floor(e.dur_us)) return false;
  }
  return true;
}

void expect_agrees(double got, double want, bool exact, const std::string& what) {
  if (exact)
    EXPECT_EQ(got, want) << what << " (exact: whole-us timestamps)";
  else
    EXPECT_LE(std::fabs(got - want), 1e-9 + 1e-12 * std::max(std::fabs(got), std::fabs(want)))
        << what << ": got " << got << ", HTA " << want;
}

std::vector<trace::ImportedTrace> import_hta(const std::string& path) {
  trace::ImportOptions o;
  o.list_events = true;
  std::vector<trace::ImportedTrace> traces;
  for (const auto& f : trace::expand_trace_paths({path}))
    traces.push_back(trace::import_trace(f, o));
  return traces;
}

// HTA's queue length summary and, at each queue size HTA was asked at, its time blocked on a
// full queue; files written before HTA's queue figures were read hold neither and are skipped.
void expect_queue_matches(simdjson::dom::element want, bool queue_raised, bool blocked_raised,
                          const std::vector<const trace::ImportedTrace*>& ptrs,
                          trace::HtaOptions hopt, const trace::HtaRank& g, int64_t rank, bool exact,
                          const std::string& where) {
  simdjson::dom::object queue;
  if (want["queue_length"].get(queue) == simdjson::SUCCESS) {
    if (queue_raised) {
      EXPECT_FALSE(g.queue_error.empty()) << where << "HTA raised on the queue length";
    } else {
      EXPECT_TRUE(g.queue_error.empty()) << where << g.queue_error;
      EXPECT_EQ(g.queue_length.size(), queue.size()) << where << "queue streams";
      for (auto [stream_key, q] : queue) {
        const int64_t stream = std::stoll(std::string(stream_key));
        ASSERT_TRUE(g.queue_length.count(stream)) << where << "queue stream " << stream;
        const auto& o = g.queue_length.at(stream);
        const std::string ws = where + "queue stream " + std::to_string(stream) + " ";
        EXPECT_EQ(o.count, uint64_t(q["count"])) << ws << "count";
        for (auto [key, value] : {std::pair<const char*, double>{"mean", o.mean},
                                  {"min", o.min},
                                  {"p25", o.p25},
                                  {"p50", o.p50},
                                  {"p75", o.p75},
                                  {"max", o.max}})
          expect_agrees(value, double(q[key]), exact, ws + key);
        if (q["std"].is_null())
          EXPECT_TRUE(std::isnan(o.std)) << ws << "std";
        else  // a square root of HTA's sum: never exact across summation orders
          expect_agrees(o.std, double(q["std"]), false, ws + "std");
      }
    }
  }
  simdjson::dom::object blocked;
  if (want["blocked_on_full_queue"].get(blocked) != simdjson::SUCCESS) return;
  if (blocked_raised) {
    EXPECT_FALSE(g.full_queue_error.empty()) << where << "HTA raised on the full queue";
    return;
  }
  EXPECT_GT(blocked.size(), 0u) << where << "no queue size asked";
  for (auto [limit_key, b] : blocked) {
    hopt.max_queue_length = std::stoll(std::string(limit_key));
    const auto at = trace::hta_breakdown(ptrs, hopt).at(rank);
    const std::string wl = where + "blocked at " + std::string(limit_key) + " ";
    EXPECT_TRUE(at.full_queue_error.empty()) << wl << at.full_queue_error;
    simdjson::dom::object row = b;
    EXPECT_EQ(at.full_queue.present, row.size() > 0) << wl << "a row";
    if (!at.full_queue.present || row.size() == 0) continue;
    EXPECT_EQ(at.full_queue.stream, int64_t(row["stream"])) << wl << "stream";
    expect_agrees(at.full_queue.duration_us, double(row["duration_us"]), exact, wl + "duration");
    expect_agrees(at.full_queue.relative, double(row["relative"]), false, wl + "relative");
  }
}

// Every figure HTA computed (a figure under "hta_errors" is one HTA raised on) against ours.
void expect_matches_hta(simdjson::dom::object want_ranks,
                        const std::vector<trace::ImportedTrace>& traces, bool rounding,
                        const std::string& name) {
  std::vector<const trace::ImportedTrace*> ptrs;
  for (const auto& t : traces) ptrs.push_back(&t);
  trace::HtaOptions hopt;
  hopt.version = trace::HtaVersion::V0_5;  // the files hold HTA 0.5.0's figures
  hopt.ns_rounding = rounding;
  const auto got = trace::hta_breakdown(ptrs, hopt);
  const bool exact = whole_us(traces, rounding);

  size_t ranks = 0;
  for (auto [rank_key, want] : want_ranks) {
    ++ranks;
    const int64_t rank = std::stoll(std::string(rank_key));
    ASSERT_TRUE(got.count(rank)) << name << " rank " << rank;
    const trace::HtaRank& g = got.at(rank);
    const std::string where = name + " rank " + std::to_string(rank) + " ";
    simdjson::dom::object errors;
    const bool has_errors = want["hta_errors"].get(errors) == simdjson::SUCCESS;
    const auto hta_raised = [&](const char* figure) {
      return has_errors && errors[figure].error() == simdjson::SUCCESS;
    };
    simdjson::dom::object temporal = want["temporal"];
    if (!hta_raised("temporal")) {
      EXPECT_TRUE(g.has_gpu) << where;
      expect_agrees(g.idle_us, double(temporal["idle_time_us"]), exact, where + "idle_time_us");
      expect_agrees(g.compute_us, double(temporal["compute_time_us"]), exact,
                    where + "compute_time_us");
      expect_agrees(g.non_compute_us, double(temporal["non_compute_time_us"]), exact,
                    where + "non_compute_time_us");
      expect_agrees(g.kernel_time_us, double(temporal["kernel_time_us"]), exact,
                    where + "kernel_time_us");
    }
    if (!hta_raised("idle_by_stream")) {
      simdjson::dom::object streams = want["idle_by_stream"];
      EXPECT_EQ(g.idle_by_stream.size(), streams.size()) << where << "streams";
      for (auto [stream_key, s] : streams) {
        const int64_t stream = std::stoll(std::string(stream_key));
        ASSERT_TRUE(g.idle_by_stream.count(stream)) << where << "stream " << stream;
        const auto& i = g.idle_by_stream.at(stream);
        const std::string ws = where + "stream " + std::to_string(stream) + " ";
        expect_agrees(i.host_wait_us, double(s["host_wait_us"]), exact, ws + "host_wait_us");
        expect_agrees(i.kernel_wait_us, double(s["kernel_wait_us"]), exact, ws + "kernel_wait_us");
        expect_agrees(i.other_us, double(s["other_us"]), exact, ws + "other_us");
      }
    }
    if (!hta_raised("launch_delay_us")) {
      simdjson::dom::object ld = want["launch_delay_us"];
      EXPECT_EQ(g.launch_delay.count, uint64_t(ld["count"])) << where << "launch count";
      if (g.launch_delay.count > 0 && uint64_t(ld["count"]) > 0) {
        expect_agrees(g.launch_delay.mean, double(ld["mean"]), exact, where + "launch mean");
        expect_agrees(g.launch_delay.min, double(ld["min"]), exact, where + "launch min");
        expect_agrees(g.launch_delay.p50, double(ld["p50"]), exact, where + "launch p50");
        expect_agrees(g.launch_delay.p90, double(ld["p90"]), exact, where + "launch p90");
        expect_agrees(g.launch_delay.max, double(ld["max"]), exact, where + "launch max");
      }
    }
    expect_queue_matches(want, hta_raised("queue_length"), hta_raised("blocked_on_full_queue"),
                         ptrs, hopt, g, rank, exact, where);
  }
  EXPECT_EQ(ranks, got.size()) << name;
}

struct Case {
  const char* stem;
  bool rounding;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.stem << (c.rounding ? " (ns rounding)" : " (no rounding)");
}

class HtaExpected : public ::testing::TestWithParam<Case> {};

TEST_P(HtaExpected, AgreesExactlyOrWithinFloatRounding) {
  const Case c = GetParam();
  const std::string stem = c.stem;
  const std::string expected =
      tracetest::data("hta_expected/" + stem + (c.rounding ? ".json" : ".no-rounding.json"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(expected).get(doc), simdjson::SUCCESS) << "cannot read " << expected;
  const auto traces =
      import_hta(tracetest::data("traces/" + stem + (stem == "two-ranks" ? "" : ".json.gz")));
  expect_matches_hta(doc["ranks"], traces, c.rounding, stem);
}

const Case kCases[] = {
    {"a100-alexnet-syncs", true},
    {"a100-alexnet-syncs", false},
    {"a100-cuda-graphs-6streams", true},
    {"a100-cuda-graphs-6streams", false},
    {"a100-event-sync-multistream", true},
    {"a100-event-sync-multistream", false},
    {"a100-event-sync", true},
    {"a100-event-sync", false},
    {"cpu-only", true},
    {"cpu-only", false},
    {"gp100-steps-annotations", true},
    {"gp100-steps-annotations", false},
    {"mi250-rocm", true},
    {"mi250-rocm", false},
    {"two-ranks", true},
    {"two-ranks", false},
};

INSTANTIATE_TEST_SUITE_P(RealTraces, HtaExpected, ::testing::ValuesIn(kCases),
                         [](const auto& info) {
                           std::string n = std::string(info.param.stem) +
                                           (info.param.rounding ? "_rounding" : "_no_rounding");
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// tests/data/hta_cases/<case>/: trace/rank-N.json and hta.json ({"modes": {"rounding":
// {"exact", "ranks": ...}, "no-rounding": {...}}}), written by experiments/hta_differential.py
// --cases; "disagreed_before_fix" there is what ./attribute said before.
std::vector<std::string> hta_cases() {
  std::vector<std::string> out;
  for (const auto& d : std::filesystem::directory_iterator(tracetest::data("hta_cases")))
    if (d.is_directory()) out.push_back(d.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class HtaCase : public ::testing::TestWithParam<std::string> {};

TEST_P(HtaCase, AgreesWithHtaInBothRoundingModes) {
  const std::string dir = tracetest::data("hta_cases/" + GetParam());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(dir + "/hta.json").get(doc), simdjson::SUCCESS)
      << "cannot read " << dir << "/hta.json";
  const auto traces = import_hta(dir + "/trace");
  for (const char* mode : {"rounding", "no-rounding"}) {
    simdjson::dom::element m = doc["modes"][mode];
    EXPECT_EQ(bool(m["exact"]), whole_us(traces, std::string(mode) == "rounding"))
        << GetParam() << " " << mode;
    expect_matches_hta(m["ranks"], traces, std::string(mode) == "rounding",
                       GetParam() + " " + mode);
  }
}

INSTANTIATE_TEST_SUITE_P(ShrunkDisagreements, HtaCase, ::testing::ValuesIn(hta_cases()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace

TEST(HtaPercentile, MatchesNumpyLinear) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(trace::linear_percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(trace::linear_percentile(v, 90), 3.7);
  EXPECT_DOUBLE_EQ(trace::linear_percentile({5}, 90), 5);
}

TEST(HtaRounding, OnlyWhenTimestampsAreFloats) {
  // Decimal ts: start rounded up, end down (1.2..3.9 -> 2..3). Integer ts: left alone.
  const std::string events = R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0.5, "dur": 0.2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.2, "dur": 2.7, "args": {"correlation": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.2, "dur": 1.0, "args": {"correlation": 1, "stream": 7}}]})";
  const auto t = tracetest::import_text(events, true);
  EXPECT_TRUE(trace::hta_events(t).float_ts);
  trace::HtaOptions on, off;
  off.ns_rounding = false;
  const auto r = trace::hta_breakdown({&t}, on).at(0), n = trace::hta_breakdown({&t}, off).at(0);
  EXPECT_DOUBLE_EQ(r.kernel_time_us, 11.0 - 2.0);  // [2,3] and [11,11]
  EXPECT_NEAR(n.kernel_time_us, 11.2 - 1.2, 1e-9);
  EXPECT_NEAR(r.idle_by_stream.at(7).kernel_wait_us, 11.0 - 3.0, 1e-9);  // queued, under 30 us
  EXPECT_EQ(r.launch_delay.count, 2u);
}

// What traceinsight 0.6.1 changed, each seen where 0.5.0 says otherwise: kernel classes
// (hta/common/types.py: "hipGemm" is communication and "my_dma_kernel" not computation in 0.6.1
// only), cuLaunchKernelEx in the queue, and steps named ^ProfilerStep#\d+ only (two names hold
// "ProfilerStep", one of them 0.6.1's: 0.5.0 drops the launch after the last, 0.6.1 keeps all).
TEST(HtaVersions, KernelClassesQueueLaunchesAndSteps) {
  const std::string events = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "my ProfilerStep", "pid": 1, "tid": 1, "ts": 60, "dur": 5},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4, "dur": 2, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 7, "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "my_dma_kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 4, "args": {"correlation": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "hipGemm", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"correlation": 2, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 2, "args": {"correlation": 3, "stream": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 61, "dur": 2, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 70, "dur": 1, "args": {"correlation": 4, "stream": 7}}]})";
  const auto t = tracetest::import_text(events, true);
  trace::HtaOptions v05, v06;
  v05.version = trace::HtaVersion::V0_5;
  const auto a = trace::hta_breakdown({&t}, v05).at(0), b = trace::hta_breakdown({&t}, v06).at(0);
  EXPECT_DOUBLE_EQ(a.compute_us, 4 + 3 + 2);
  EXPECT_DOUBLE_EQ(b.compute_us, 2 + 1);
  EXPECT_EQ(a.queue_length.at(7).count, 4u);  // two launches, two kernels
  EXPECT_EQ(b.queue_length.at(7).count, 8u);  // and cuLaunchKernelEx's, and the last step's
  EXPECT_NE(trace::hta_table(trace::hta_breakdown({&t}, v06), true).find("0.6.1"),
            std::string::npos);
  // get_profiler_steps' numbers: "my ProfilerStep" does not start with the name, so no row.
  EXPECT_EQ(trace::hta_frames({&t}, v06).at(0).step_iters, std::vector<int32_t>({1}));
  EXPECT_EQ(trace::hta_frames({&t}, v05).at(0).step_iters, std::vector<int32_t>({1}));
}

// get_comm_comp_overlap: communication [10, 30] and [40, 50], computation [20, 45] (two kernels
// merged into one interval): overlapped 10 + 5 of 30 us of communication.
TEST(HtaCommOverlap, SharesOfCommunicationUnderComputation) {
  const std::string events = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"correlation": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 40, "dur": 10, "args": {"correlation": 2, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 8, "ts": 20, "dur": 15, "args": {"correlation": 3, "stream": 8}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 8, "ts": 30, "dur": 15, "args": {"correlation": 4, "stream": 8}}]})";
  const auto t = tracetest::import_text(events, true);
  for (auto v : {trace::HtaVersion::V0_5, trace::HtaVersion::V0_6}) {
    trace::HtaOptions o;
    o.version = v;
    const auto frames = trace::hta_frames({&t}, o);
    const auto r = trace::hta_comm_comp_overlap(frames.at(0), trace::stable_ts_order);
    EXPECT_DOUBLE_EQ(r.ratio, 15.0 / 30.0);
    EXPECT_DOUBLE_EQ(r.pctg, 50.0);
  }
  trace::HtaFrame none;  // no communication: 0 / 0
  EXPECT_TRUE(std::isnan(trace::hta_comm_comp_overlap(none, trace::stable_ts_order).ratio));
}

// The Python package's later calls on six events worked out by hand (the figures HTA 0.5.0 and
// 0.6.1 gave on them; tests/python/test_hta_queue_kernels.py has the frames): launches at 10, 20
// (kernels [30, 40], [45, 65] on stream 7) and 22 (a copy [50, 54] on stream 8, 2 GB/s); a
// metadata event with pid "Spans" makes the pid column text.
TEST(HtaLaterCalls, QueueSeriesFullQueueKernelsAndBandwidth) {
  const std::string events = R"json({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": "Spans", "tid": 0, "args": {}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100, "ts": 10, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100, "ts": 20, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 100, "ts": 22, "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 30, "dur": 10, "args": {"correlation": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 45, "dur": 20, "args": {"correlation": 2, "stream": 7}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 8, "ts": 50, "dur": 4, "args": {"correlation": 3, "stream": 8, "memory bandwidth (GB/s)": 2.0}}]})json";
  const auto t = tracetest::import_text(events, true);
  const trace::HtaFrame f = trace::hta_frames({&t}).at(0);
  EXPECT_EQ(f.pid_bits, -1);  // object: one pid is text
  EXPECT_EQ(f.tid_bits, 8);
  const trace::HtaQueue q = trace::hta_queue(f, 2, trace::stable_ts_order);
  std::vector<int64_t> index, length;
  for (const auto& p : q.series) index.push_back(p.index), length.push_back(p.length);
  EXPECT_EQ(index, std::vector<int64_t>({1, 2, 4, 5, 3, 6}));
  EXPECT_EQ(length, std::vector<int64_t>({1, 2, 1, 0, 1, 0}));
  // Two launches queued on stream 7 from 10 to 20 (after alignment) of a 40 us trace.
  ASSERT_TRUE(q.full.present);
  EXPECT_EQ(q.full.stream, 7);
  EXPECT_DOUBLE_EQ(q.full.duration_us, 10);
  EXPECT_DOUBLE_EQ(q.full.relative, 0.25);

  const auto b = trace::hta_gpu_kernel_breakdown({{0, f}}, 0.8, 10, true, trace::stable_ts_order);
  EXPECT_EQ(b.type_name,
            std::vector<std::string>({"COMPUTATION", "COMPUTATION overlapping MEMORY"}));
  EXPECT_EQ(b.type_sum, std::vector<int64_t>({26, 4}));
  EXPECT_EQ(b.type_percentage, std::vector<double>({86.7, 13.3}));
  ASSERT_EQ(b.kernels.size(), 3u);  // computation, communication (none), memory
  ASSERT_EQ(b.kernels[0].rows.size(), 1u);
  EXPECT_EQ(b.kernels[0].rows[0].sum, 30);
  EXPECT_DOUBLE_EQ(b.kernels[0].rows[0].std, std::sqrt(50.0));
  EXPECT_TRUE(b.kernels[1].rows.empty());

  const trace::HtaMemoryBw m = trace::hta_memory_bw(f, trace::stable_ts_order);
  EXPECT_EQ(m.bw, std::vector<double>({2.0, 0.0}));
  ASSERT_EQ(m.summary_name, std::vector<std::string>({"Memcpy HtoD"}));
  EXPECT_EQ(m.summary[0].count, 1);
}

TEST(KeyedValues, PagedOrHashedAsAMapWouldBe) {
  // Counters, -1 beside ids in the millions, stretches far apart, and keys anywhere in int64:
  // the paged arrays and the hash map must both answer as std::map.
  std::mt19937_64 rng(11);
  struct Shape {
    const char* name;
    std::vector<int64_t> keys;
    bool paged;
  };
  std::vector<Shape> shapes(4);
  shapes[0].name = "counters", shapes[0].paged = true;
  for (int64_t k = 0; k < 20000; ++k) shapes[0].keys.push_back(100 + 3 * k);
  shapes[1].name = "-1 and millions", shapes[1].paged = true;
  for (int64_t k = 0; k < 20000; ++k) shapes[1].keys.push_back(k % 7 ? 5000000 + k : -1);
  shapes[2].name = "stretches", shapes[2].paged = true;
  for (int64_t k = 0; k < 20000; ++k) shapes[2].keys.push_back((k / 5000) * 10000000 + k);
  shapes[3].name = "anywhere", shapes[3].paged = false;
  for (int k = 0; k < 20000; ++k) shapes[3].keys.push_back(static_cast<int64_t>(rng()));
  shapes[3].keys.push_back(INT64_MIN), shapes[3].keys.push_back(INT64_MAX);
  for (const Shape& s : shapes) {
    const auto each = [&](auto visit) {
      for (int64_t k : s.keys) visit(k);
    };
    trace::KeyedValues<int64_t> v(each, INT64_MIN);
    EXPECT_EQ(v.paged(), s.paged) << s.name;
    std::map<int64_t, int64_t> want;
    for (size_t i = 0; i < s.keys.size(); ++i)
      if (i % 3) v[s.keys[i]] = want[s.keys[i]] = static_cast<int64_t>(i);
    std::vector<int64_t> asked = s.keys;
    const auto near = [](int64_t k, int64_t d) {  // k + d, wrapping at the ends of int64
      return static_cast<int64_t>(static_cast<uint64_t>(k) + static_cast<uint64_t>(d));
    };
    for (int64_t k : s.keys)
      asked.push_back(near(k, 1)), asked.push_back(near(k, -4096)), asked.push_back(near(k, 4096));
    asked.push_back(INT64_MIN + 1), asked.push_back(INT64_MAX - 1);
    for (int64_t k : asked) {
      const auto it = want.find(k);
      ASSERT_EQ(v.get(k), it == want.end() ? INT64_MIN : it->second) << s.name << " key " << k;
    }
    std::vector<int64_t> keys;
    for (const auto& [k, value] : want) keys.push_back(k);
    EXPECT_EQ(v.keys(), keys) << s.name;
    // A second value over the same keys: built from the first, none of its values taken.
    trace::KeyedValues<int64_t> w(v, -7);
    EXPECT_EQ(w.paged(), s.paged) << s.name;
    std::map<int64_t, int64_t> want_w;
    for (size_t i = 0; i < s.keys.size(); i += 2)
      w[s.keys[i]] = want_w[s.keys[i]] = -1 - int64_t(i);
    for (int64_t k : asked) {
      const auto it = want_w.find(k);
      ASSERT_EQ(w.get(k), it == want_w.end() ? -7 : it->second) << s.name << " key " << k;
    }
    ASSERT_EQ(v.get(s.keys[1]), want[s.keys[1]]) << s.name;  // the first keeps its own
  }
  trace::KeyedValues<uint8_t> none([](auto) {}, 0);
  EXPECT_EQ(none.get(0), 0);
  EXPECT_TRUE(none.keys().empty());
}
