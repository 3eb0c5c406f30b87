// HTA's critical-path classes from the diagnosis' path, on a hand-built step whose every instant
// has one known class.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "synthetic_records.h"
#include "trace/analyze/hta_critical_path.h"

namespace {

using testdata::api;
using testdata::kernel;

// Step 1 [0, 100 us]: a data loader's op (0-10), a launch call (10-11) whose kernel waits
// queued until 30 and runs to 60, then host work with the GPU idle (60-100). Step 2 follows
// [100, 150 us], host work alone.
trace::ImportedTrace one_step() {
  trace::ImportedTrace t;
  trace::RecordSet& r = t.records;
  r.steps = {{0, 100'000, "ProfilerStep#1"}, {100'000, 150'000, "ProfilerStep#2"}};
  r.cpu_ops = {{0, 10'000, 7, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"},
               {10'000, 11'000, 7, "aten::mm"},
               {60'000, 150'000, 7, "aten::to"}};
  r.api = {api("cudaLaunchKernel", 10'000, 11'000, 1)};
  r.kernels = {kernel(30'000, 60'000, 1, 7, "sgemm")};
  return t;
}

std::map<std::string, uint64_t> classes(const trace::HtaCriticalPath& cp) {
  return {cp.by_class.begin(), cp.by_class.end()};
}

TEST(HtaCriticalPath, EachInstantGetsHtasClass) {
  const auto t = one_step();
  const auto cp = trace::HtaCriticalPathIndex(t)("ProfilerStep", 0, 0);
  EXPECT_TRUE(cp.found);
  EXPECT_EQ(cp.start_ns, 0u);
  EXPECT_EQ(cp.end_ns, 100'000u);
  const std::map<std::string, uint64_t> want = {
      {"cpu_bound", 51'000}, {"gpu_compute_bound", 30'000}, {"gpu_kernel_launch_overhead", 19'000}};
  EXPECT_EQ(classes(cp), want);
}

// data_load_events are matched by the caller: cpu_bound's time by innermost host event.
TEST(HtaCriticalPath, CpuTimeIsNamedByItsInnermostHostEvent) {
  const auto t = one_step();
  const auto cp = trace::HtaCriticalPathIndex(t)("ProfilerStep", 0, 0);
  std::map<std::string, uint64_t> by_name(cp.cpu_by_name.begin(), cp.cpu_by_name.end());
  EXPECT_EQ(by_name.at("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), 10'000u);
  EXPECT_EQ(by_name.at("aten::to"), 40'000u);
}

TEST(HtaCriticalPath, InstancesPickTheWindow) {
  const auto t = one_step();
  const trace::HtaCriticalPathIndex cp(t);
  const auto both = cp("ProfilerStep", 0, 1);
  EXPECT_EQ(both.end_ns, 150'000u);
  EXPECT_EQ(classes(both).at("cpu_bound"), 101'000u);
  const auto whole = cp("", 0, 0);
  EXPECT_EQ(whole.end_ns - whole.start_ns, 150'000u);
  EXPECT_THROW(cp("ProfilerStep", 2, 2), std::invalid_argument);
  EXPECT_THROW(cp("ProfilerStep", 1, 0), std::invalid_argument);
  EXPECT_FALSE(cp("NoSuchRange", 0, 0).found);
}

}  // namespace
