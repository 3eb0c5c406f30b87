// ./attribute --hta against Holistic Trace Analysis 0.5.0 itself: tests/data/hta_expected/
// holds what HTA computed on each real trace (written by the script beside them); every
// figure must agree within 1 us or 0.1 %, whichever is larger.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <ostream>
#include <string>

#include "trace/analyze/hta_breakdown.h"
#include "trace_test_util.h"

namespace {

struct Case {
  const char* stem;
  bool rounding;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.stem << (c.rounding ? " (ns rounding)" : " (no rounding)"); }

void expect_close(double got, double want, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), std::max(1.0, 0.001 * std::fabs(want))) << what << ": got " << got << ", HTA " << want;
}

class HtaExpected : public ::testing::TestWithParam<Case> {};

TEST_P(HtaExpected, AgreesWithinOneMicrosecond) {
  const Case c = GetParam();
  const std::string stem = c.stem;
  const std::string expected = tracetest::data("hta_expected/" + stem + (c.rounding ? ".json" : ".no-rounding.json"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(expected).get(doc), simdjson::SUCCESS) << "cannot read " << expected;

  const std::string path = tracetest::data("traces/" + stem + (stem == "two-ranks" ? "" : ".json.gz"));
  trace::ImportOptions o;
  o.hta_events = true;
  std::vector<trace::ImportedTrace> traces;
  for (const auto& f : trace::expand_trace_paths({path})) traces.push_back(trace::import_trace(f, o));
  std::vector<const trace::ImportedTrace*> ptrs;
  for (const auto& t : traces) ptrs.push_back(&t);
  trace::HtaOptions hopt;
  hopt.ns_rounding = c.rounding;
  const auto got = trace::hta_breakdown(ptrs, hopt);

  size_t ranks = 0;
  for (auto [rank_key, want] : doc["ranks"].get_object()) {
    ++ranks;
    const int64_t rank = std::stoll(std::string(rank_key));
    ASSERT_TRUE(got.count(rank)) << "rank " << rank;
    const trace::HtaRank& g = got.at(rank);
    const std::string where = stem + " rank " + std::to_string(rank) + " ";
    simdjson::dom::object temporal = want["temporal"];
    EXPECT_EQ(g.has_gpu, temporal.size() > 0) << where;
    if (temporal.size() > 0) {
      expect_close(g.idle_us, double(temporal["idle_time_us"]), where + "idle_time_us");
      expect_close(g.compute_us, double(temporal["compute_time_us"]), where + "compute_time_us");
      expect_close(g.non_compute_us, double(temporal["non_compute_time_us"]), where + "non_compute_time_us");
      expect_close(g.kernel_time_us, double(temporal["kernel_time_us"]), where + "kernel_time_us");
    }
    simdjson::dom::object streams = want["idle_by_stream"];
    EXPECT_EQ(g.idle_by_stream.size(), streams.size()) << where << "streams";
    for (auto [stream_key, s] : streams) {
      const int64_t stream = std::stoll(std::string(stream_key));
      ASSERT_TRUE(g.idle_by_stream.count(stream)) << where << "stream " << stream;
      const auto& i = g.idle_by_stream.at(stream);
      const std::string ws = where + "stream " + std::to_string(stream) + " ";
      expect_close(i.host_wait_us, double(s["host_wait_us"]), ws + "host_wait_us");
      expect_close(i.kernel_wait_us, double(s["kernel_wait_us"]), ws + "kernel_wait_us");
      expect_close(i.other_us, double(s["other_us"]), ws + "other_us");
    }
    simdjson::dom::object ld = want["launch_delay_us"];
    EXPECT_EQ(g.launch_delay.count, uint64_t(ld["count"])) << where << "launch count";
    if (g.launch_delay.count > 0) {
      expect_close(g.launch_delay.mean, double(ld["mean"]), where + "launch mean");
      expect_close(g.launch_delay.min, double(ld["min"]), where + "launch min");
      expect_close(g.launch_delay.p50, double(ld["p50"]), where + "launch p50");
      expect_close(g.launch_delay.p90, double(ld["p90"]), where + "launch p90");
      expect_close(g.launch_delay.max, double(ld["max"]), where + "launch max");
    }
  }
  EXPECT_EQ(ranks, got.size());
}

const Case kCases[] = {
    {"a100-alexnet-syncs", true},          {"a100-alexnet-syncs", false},
    {"a100-cuda-graphs-6streams", true},   {"a100-cuda-graphs-6streams", false},
    {"a100-event-sync-multistream", true}, {"a100-event-sync-multistream", false},
    {"a100-event-sync", true},             {"a100-event-sync", false},
    {"cpu-only", true},                    {"cpu-only", false},
    {"gp100-steps-annotations", true},     {"gp100-steps-annotations", false},
    {"mi250-rocm", true},                  {"mi250-rocm", false},
    {"two-ranks", true},                   {"two-ranks", false},
};

INSTANTIATE_TEST_SUITE_P(RealTraces, HtaExpected, ::testing::ValuesIn(kCases), [](const auto& info) {
  std::string n = std::string(info.param.stem) + (info.param.rounding ? "_rounding" : "_no_rounding");
  for (char& ch : n)
    if (ch == '-') ch = '_';
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
  EXPECT_TRUE(t.hta_float_ts);
  trace::HtaOptions on, off;
  off.ns_rounding = false;
  const auto r = trace::hta_breakdown({&t}, on).at(0), n = trace::hta_breakdown({&t}, off).at(0);
  EXPECT_DOUBLE_EQ(r.kernel_time_us, 11.0 - 2.0);  // [2,3] and [11,11]
  EXPECT_NEAR(n.kernel_time_us, 11.2 - 1.2, 1e-9);
  EXPECT_NEAR(r.idle_by_stream.at(7).kernel_wait_us, 11.0 - 3.0, 1e-9);  // queued, under 30 us
  EXPECT_EQ(r.launch_delay.count, 2u);
}
