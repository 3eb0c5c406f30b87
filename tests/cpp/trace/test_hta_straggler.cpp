// get_potential_stragglers (analyze/hta_straggler.h) on three ranks worked out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_straggler.h"
#include "trace_test_util.h"

namespace {

// Steps 1, 2, 3 at [0, 100), [100, 200), [200, 300) (the step filter keeps 1 and 2: mean
// iteration time (200 - 0) / 2 = 100 us). Per step, an AllReduce (stream 7) starting
// `start[step]` after the step, lasting `dur[step]`, and an "Other" kernel alike on every rank.
std::string rank_text(int rank, const int start[2], const int dur[2]) {
  std::string e =
      R"({"distributedInfo": {"rank": )" + std::to_string(rank) + R"(}, "traceEvents": [)";
  const auto add = [&](const std::string& cat, const std::string& name, int ts, int d,
                       const std::string& args) {
    e += R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
         R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
         std::to_string(d) + R"(, "args": {)" + args + "}},";
  };
  for (int s = 0; s < 3; ++s)
    add("user_annotation", "ProfilerStep#" + std::to_string(s + 1), 100 * s, 100, "");
  for (int s = 0; s < 2; ++s) {
    const std::string c1 = std::to_string(2 * s + 1), c2 = std::to_string(2 * s + 2);
    add("cuda_runtime", "cudaLaunchKernel", 100 * s + 10, 2, R"("correlation": )" + c1);
    add("cuda_runtime", "cudaLaunchKernel", 100 * s + 12, 2, R"("correlation": )" + c2);
    add("kernel", "ncclKernel_AllReduce", 100 * s + 20 + start[s], dur[s],
        R"("stream": 7, "correlation": )" + c1);
    add("kernel", "ncclKernel_Other", 100 * s + 70, 5, R"("stream": 7, "correlation": )" + c2);
  }
  e.pop_back();
  return e + "]}";
}

struct Ranks {
  std::vector<trace::ImportedTrace> traces;
  std::map<int64_t, trace::HtaFrame> frames(trace::HtaVersion v) const {
    std::vector<const trace::ImportedTrace*> p;
    for (const auto& t : traces) p.push_back(&t);
    trace::HtaOptions o;
    o.version = v;
    return trace::hta_frames(p, o);
  }
};

Ranks three_ranks(int n) {
  // AllReduce starts 0/5/10 us into step 1 (30 us each) and 3/8/0 into step 2 (40/50/60 us).
  const int start[3][2] = {{0, 3}, {5, 8}, {10, 0}}, dur[3][2] = {{30, 40}, {30, 50}, {30, 60}};
  Ranks r;
  for (int k = 0; k < n; ++k)
    r.traces.push_back(tracetest::import_text(rank_text(k, start[k], dur[k]), true));
  return r;
}

const std::map<std::string, int64_t> kIds = {{"ncclKernel_AllReduce", 1}, {"ncclKernel_Other", 0}};

}  // namespace

// Other's durations never differ (std 0): AllReduce's spread (0 and 0.1) picks it. Starts
// 0.20/0.25/0.30 (two latest: ranks 1, 2) and 1.23/1.28/1.20 (ranks 0, 1).
TEST(HtaStragglers, LateStartsOfTheMostVaryingKernel) {
  const Ranks r = three_ranks(3);
  for (auto v : {trace::HtaVersion::V0_5, trace::HtaVersion::V0_6}) {
    const auto s = trace::hta_potential_stragglers(r.frames(v), {1, 2}, 2, kIds);
    ASSERT_EQ(s.error, "");
    EXPECT_EQ(s.name, "ncclKernel_AllReduce");
    EXPECT_EQ(s.stream, 7);
    EXPECT_DOUBLE_EQ(s.mean_iter_time, 100);
    EXPECT_EQ(s.ranks, std::vector<int64_t>({0, 1, 2}));
    EXPECT_EQ(s.counts, std::vector<int64_t>({1, 2, 1}));
    // One step: one start per rank, the two latest count once.
    const auto one = trace::hta_potential_stragglers(r.frames(v), {2}, 2, kIds);
    EXPECT_EQ(one.counts, std::vector<int64_t>({1, 1, 0}));
  }
}

// Where HTA raises: more candidates than ranks, one rank (every std NaN), no row in the steps.
TEST(HtaStragglers, ErrorsWhereHtaRaises) {
  const auto frames = three_ranks(3).frames(trace::HtaVersion::V0_6);
  EXPECT_EQ(trace::hta_potential_stragglers(frames, {1, 2}, 4, kIds).error_type, "IndexError");
  EXPECT_EQ(trace::hta_potential_stragglers(frames, {7}, 2, kIds).error_type, "ZeroDivisionError");
  const auto one = three_ranks(1).frames(trace::HtaVersion::V0_6);
  EXPECT_EQ(trace::hta_potential_stragglers(one, {1, 2}, 1, kIds).error_type, "ValueError");
}
