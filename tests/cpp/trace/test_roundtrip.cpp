// bench's --trace_dir files import back to the same attribution as bench's traced pass:
// hand-built records -> chrome_trace_json (what bench writes) -> import -> attribute().
// Also: ./attribute itself on bad input exits 2 and writes nothing.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "synthetic_records.h"
#include "trace/analyze/attribution.h"
#include "trace/analyze/step_report.h"
#include "trace/export/chrome_trace.h"
#include "trace_test_util.h"

namespace {

void expect_same(const trace::Attribution& a, const trace::Attribution& b) {
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.window_ns, b.window_ns);
  EXPECT_EQ(a.launches, b.launches);
  EXPECT_EQ(a.launch_api_ns, b.launch_api_ns);
  EXPECT_EQ(a.kernels, b.kernels);
  EXPECT_EQ(a.kernel_ns, b.kernel_ns);
  EXPECT_EQ(a.gpu_busy_ns, b.gpu_busy_ns);
  EXPECT_EQ(a.memcpys, b.memcpys);
  EXPECT_EQ(a.memcpy_gpu_ns, b.memcpy_gpu_ns);
  EXPECT_EQ(a.memsets, b.memsets);
  EXPECT_EQ(a.sync_api_ns, b.sync_api_ns);
  EXPECT_EQ(a.memcpy_api_ns, b.memcpy_api_ns);
  EXPECT_EQ(a.blocked_ns, b.blocked_ns);
  EXPECT_EQ(a.idle_host_wait_ns, b.idle_host_wait_ns);
  EXPECT_EQ(a.idle_kernel_wait_ns, b.idle_kernel_wait_ns);
  EXPECT_EQ(a.idle_other_ns, b.idle_other_ns);
  EXPECT_EQ(a.launch_delay.count, b.launch_delay.count);
  EXPECT_EQ(a.launch_delay.p50, b.launch_delay.p50);
  EXPECT_EQ(a.launch_delay.p90, b.launch_delay.p90);
  EXPECT_EQ(a.launch_delay.max, b.launch_delay.max);
  ASSERT_EQ(a.memcpy_by_kind.size(), b.memcpy_by_kind.size());
  for (const auto& [k, v] : a.memcpy_by_kind) {
    ASSERT_TRUE(b.memcpy_by_kind.count(k)) << k;
    EXPECT_EQ(v.count, b.memcpy_by_kind.at(k).count);
    EXPECT_EQ(v.bytes, b.memcpy_by_kind.at(k).bytes);
    EXPECT_EQ(v.gpu_ns, b.memcpy_by_kind.at(k).gpu_ns);
  }
  ASSERT_EQ(a.phases.size(), b.phases.size());
  for (const auto& [k, v] : a.phases) {
    ASSERT_TRUE(b.phases.count(k)) << k;
    EXPECT_EQ(v.count, b.phases.at(k).count) << k;
    EXPECT_EQ(v.host_ns, b.phases.at(k).host_ns) << k;
    EXPECT_EQ(v.kernels, b.phases.at(k).kernels) << k;
    EXPECT_EQ(v.kernel_ns, b.phases.at(k).kernel_ns) << k;
  }
}

// Two epochs of the synthetic one, the second shifted, plus a driver call, a memset and a
// pageable copy, on a realistic clock (CUPTI ns since boot are large numbers).
trace::RecordSet two_epochs() {
  trace::RecordSet one = testdata::one_epoch(), r = one;
  const uint64_t base = 1234567890123ull;
  const auto shift = [](trace::RecordSet& s, uint64_t by, uint32_t corr) {
    for (auto& x : s.ranges) x.start_ns += by, x.end_ns += by;
    for (auto& x : s.api)
      x.start_ns += by, x.end_ns += by, x.correlation_id += x.correlation_id ? corr : 0;
    for (auto& x : s.kernels) x.start_ns += by, x.end_ns += by, x.correlation_id += corr;
    for (auto& x : s.memcpys) x.start_ns += by, x.end_ns += by, x.correlation_id += corr;
  };
  shift(r, base, 0);
  trace::RecordSet second = one;
  shift(second, base + 1000, 100);
  for (auto& v : {&second}) {
    r.ranges.insert(r.ranges.end(), v->ranges.begin(), v->ranges.end());
    r.api.insert(r.api.end(), v->api.begin(), v->api.end());
    r.kernels.insert(r.kernels.end(), v->kernels.begin(), v->kernels.end());
    r.memcpys.insert(r.memcpys.end(), v->memcpys.begin(), v->memcpys.end());
  }
  trace::ApiRecord drv = testdata::api("cuLaunchKernel", base + 11, base + 19, 1, true);
  r.api.push_back(drv);
  r.api.push_back(testdata::api("cudaMemsetAsync", base + 1850, base + 1855, 300));
  r.memsets.push_back({base + 1960, base + 1970, 300, 0, 9, 128});
  r.memcpys.push_back({base + 1700, base + 1705, 103, 0, 7, 8, trace::CopyKind::DtoH,
                       trace::MemoryKind::Device, trace::MemoryKind::Pageable});
  r.kernels[0].name = "void k<\"quoted\\\">()";
  r.clock = "cupti";
  return r;
}

}  // namespace

TEST(Roundtrip, OwnChromeTraceGivesBenchsAttribution) {
  const trace::RecordSet r = two_epochs();
  const std::string json = trace::chrome_trace_json(r);
  auto t = tracetest::import_text(json, false, "own.trace.json", tracetest::bench_files());
  EXPECT_EQ(t.records.clock, "cupti");
  EXPECT_EQ(t.records.kernels.size(), r.kernels.size());
  EXPECT_EQ(t.records.kernels[0].name, r.kernels[0].name);
  EXPECT_EQ(t.records.steps.size(), 2u);  // the epochs
  // Read as anyone's trace (no step phase named), the same file has no steps.
  EXPECT_TRUE(tracetest::import_text(json, false, "own.trace.json").records.steps.empty());
  expect_same(trace::attribute(r), trace::attribute(t.records));
  // Per step, too: each epoch alone.
  const auto rep = trace::build_report(t);
  ASSERT_EQ(rep.steps.size(), 2u);
  EXPECT_EQ(rep.steps[0].wall_ns, 1000u);
  expect_same(rep.total.a, trace::attribute(r));
}

TEST(Roundtrip, BenchsCommittedTracesImport) {
  // Files bench wrote (results/<machine>/traces/*.trace.json): our phases as HostRanges, the
  // epochs as steps, bench's clock name kept.
  const std::string results = std::string(IRIS_TRACE_DATA) + "/../../results";
  std::vector<std::string> files;
  if (DIR* d = ::opendir(results.c_str())) {
    while (dirent* m = ::readdir(d)) {
      const std::string dir = results + "/" + m->d_name + "/traces";
      if (m->d_name[0] == '.') continue;
      if (DIR* t = ::opendir(dir.c_str())) {
        while (dirent* f = ::readdir(t)) {
          const std::string n = f->d_name;
          if (n.size() > 11 && n.compare(n.size() - 11, 11, ".trace.json") == 0)
            files.push_back(dir + "/" + n);
        }
        ::closedir(t);
      }
    }
    ::closedir(d);
  }
  if (files.empty()) GTEST_SKIP() << "no results/*/traces/*.trace.json committed";
  for (const auto& f : files) {
    auto t = trace::import_trace(f, tracetest::bench_files());
    EXPECT_TRUE(t.records.clock == "steady" || t.records.clock == "cupti") << f;
    EXPECT_FALSE(t.records.ranges.empty()) << f;
    EXPECT_FALSE(t.records.steps.empty()) << f;
    const auto rep = trace::build_report(t);
    EXPECT_EQ(rep.steps.size(), t.records.steps.size()) << f;
  }
}

TEST(AttributeTool, BadInputExitsTwoAndWritesNothing) {
  const std::string out = ::testing::TempDir() + "/attribute_bad.json";
  const std::string bad = ::testing::TempDir() + "/bad_trace.json";
  std::ofstream(bad) << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}";
  std::remove(out.c_str());
  const std::string cmd =
      std::string(ATTRIBUTE_BIN) + " --quiet --json " + out + " " + bad + " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_FALSE(std::ifstream(out + ".tmp").good());
  const std::string good = std::string(ATTRIBUTE_BIN) + " --quiet --json " + out + " " +
                           tracetest::data("traces/a100-event-sync.json.gz");
  EXPECT_EQ(std::system(good.c_str()), 0);
  EXPECT_TRUE(std::ifstream(out).good());
  // --json /dev/null (a speed script's choice) writes in place: /dev/null stays a device.
  const std::string devnull = std::string(ATTRIBUTE_BIN) + " --quiet --json /dev/null " +
                              tracetest::data("traces/a100-event-sync.json.gz");
  EXPECT_EQ(std::system(devnull.c_str()), 0);
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}
