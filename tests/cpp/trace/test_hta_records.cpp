// HTA's definitions on a trace that has records but no listing of the file's events (an
// Nsight Systems export): hand-built records whose figures follow from their construction,
// and the real exports of tests/data/nsys, where each stream's idle causes must add up to the
// stream's idle time (the gaps between its GPU events, computed here from the records).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_breakdown.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

namespace {

constexpr uint64_t kUs = 1000;  // ns

trace::ApiRecord launch(uint64_t start_us, uint64_t end_us, uint32_t correlation) {
  trace::ApiRecord a;
  a.start_ns = start_us * kUs, a.end_ns = end_us * kUs, a.correlation_id = correlation;
  a.name = "cudaLaunchKernel", a.kind = trace::ApiKind::Launch;
  return a;
}

trace::KernelRecord kernel(uint64_t start_us, uint64_t end_us, uint32_t correlation,
                           const std::string& name) {
  return {start_us * kUs, end_us * kUs, correlation, 0, 7, name};
}

}  // namespace

TEST(HtaOnRecords, EachGapHasTheCauseItsLaunchGives) {
  // Four kernels on stream 7. Kernel 2's call starts after kernel 1 ends: host wait (15 us).
  // Kernels 3 and 4 were queued long before: kernel wait for the 10 us gap (under HTA's
  // 30 us), other for the 59 us one.
  trace::ImportedTrace t;
  t.format = "SQLite";
  auto& r = t.records;
  r.api = {launch(0, 2, 1), launch(11, 12, 3), launch(13, 14, 4), launch(20, 21, 2)};
  r.kernels = {kernel(5, 10, 1, "gemm"), kernel(25, 30, 2, "gemm"), kernel(40, 41, 3, "relu"),
               kernel(100, 101, 4, "ncclKernel_AllReduce")};
  const auto ranks = trace::hta_breakdown({&t});
  ASSERT_EQ(ranks.size(), 1u);
  const trace::HtaRank& h = ranks.at(0);
  ASSERT_TRUE(h.has_gpu);
  ASSERT_EQ(h.idle_by_stream.count(7), 1u);
  const trace::HtaIdle& idle = h.idle_by_stream.at(7);
  EXPECT_DOUBLE_EQ(idle.host_wait_us, 25 - 10);
  EXPECT_DOUBLE_EQ(idle.kernel_wait_us, 40 - 30);
  EXPECT_DOUBLE_EQ(idle.other_us, 100 - 41);
  EXPECT_DOUBLE_EQ(h.kernel_time_us, 101 - 5);
  EXPECT_DOUBLE_EQ(h.idle_us, (101 - 5) - (5 + 5 + 1 + 1));
  EXPECT_DOUBLE_EQ(h.compute_us, 5 + 5 + 1);  // an NCCL kernel is communication
  EXPECT_DOUBLE_EQ(h.non_compute_us, 1);
  // Launch delay: kernel start - call start - call duration.
  EXPECT_EQ(h.launch_delay.count, 4u);
  EXPECT_DOUBLE_EQ(h.launch_delay.min, 5 - 0 - 2);
  EXPECT_DOUBLE_EQ(h.launch_delay.max, 100 - 13 - 1);
  EXPECT_DOUBLE_EQ(h.launch_delay.p50, ((25 - 20 - 1) + (40 - 11 - 1)) / 2.0);
}

TEST(HtaOnRecords, NanosecondTimesAreRoundedAsHtaRoundsFloatTimestamps) {
  // 5.5..10.2 us and 25.3..30.7 us: rounded to 6..10 and 26..30 (start up, end down).
  trace::ImportedTrace t;
  t.records.api = {launch(0, 1, 1), launch(1, 2, 2)};
  t.records.kernels = {{5500, 10200, 1, 0, 7, "k"}, {25300, 30700, 2, 0, 7, "k"}};
  trace::HtaOptions off;
  off.ns_rounding = false;
  EXPECT_DOUBLE_EQ(trace::hta_breakdown({&t}).at(0).idle_by_stream.at(7).kernel_wait_us, 26 - 10);
  EXPECT_NEAR(trace::hta_breakdown({&t}, off).at(0).idle_by_stream.at(7).kernel_wait_us,
              25.3 - 10.2, 1e-9);
}

namespace {

// Per stream, the sum of the gaps between its GPU kernels, copies and sets in start order,
// each time in us (rounded as HTA rounds float timestamps when `rounding`).
std::map<int64_t, double> stream_gaps_us(const trace::RecordSet& r, bool rounding) {
  struct Span {
    double start, end;
  };
  std::map<int64_t, std::vector<Span>> by_stream;
  const auto add = [&](const auto& v) {
    for (const auto& x : v) {
      if (x.stream_id == trace::kNoStream) continue;
      const double s = static_cast<double>(x.start_ns) / 1000,
                   d = static_cast<double>(x.end_ns - x.start_ns) / 1000;
      by_stream[x.stream_id].push_back(rounding ? Span{std::ceil(s), std::floor(s + d)}
                                                : Span{s, s + d});
    }
  };
  add(r.kernels), add(r.memcpys), add(r.memsets);
  std::map<int64_t, double> out;
  for (auto& [stream, spans] : by_stream) {
    std::stable_sort(spans.begin(), spans.end(),
                     [](const Span& a, const Span& b) { return a.start < b.start; });
    double gaps = 0;
    for (size_t i = 1; i < spans.size(); ++i) gaps += spans[i].start - spans[i - 1].end;
    out[stream] = gaps;
  }
  return out;
}

}  // namespace

TEST(HtaOnRecords, NsightExportsIdleCausesAddUpToEachStreamsIdleTime) {
  int streams_checked = 0;
  for (const char* name : {"a100-saxpy-mpi", "gtx1060-concurrent-streams", "h100-pytorch-2gpu",
                           "rtx3080-small", "t4-power-iteration"}) {
    trace::ImportOptions o;
    o.list_events = true;  // what ./attribute --hta asks: an export has nothing to list
    const auto t =
        trace::import_file(tracetest::data(std::string("nsys/") + name + ".sqlite.gz"), o);
    EXPECT_FALSE(t.listing.listed) << name;
    // HTA's step filter (two or more ProfilerStep names) would drop rows: none of these has it.
    ASSERT_LT(trace::hta_events(t).step_names.size(), 2u) << name;
    for (bool rounding : {false, true}) {
      trace::HtaOptions opt;
      opt.ns_rounding = rounding;
      const trace::HtaRank h = trace::hta_breakdown({&t}, opt).at(t.rank);
      const auto gaps = stream_gaps_us(t.records, rounding);
      ASSERT_EQ(h.idle_by_stream.size(), gaps.size()) << name;
      for (const auto& [stream, idle] : h.idle_by_stream) {
        const double sum = idle.host_wait_us + idle.kernel_wait_us + idle.other_us;
        const double want = gaps.at(stream);
        EXPECT_NEAR(sum, want, 1e-6 + 1e-9 * std::fabs(want))
            << name << " stream " << stream << (rounding ? " (rounded)" : "");
        ++streams_checked;
      }
    }
  }
  EXPECT_GT(streams_checked, 0);
}
