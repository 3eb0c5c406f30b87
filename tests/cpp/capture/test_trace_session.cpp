// TraceSession on any machine: the CPU control group records host ranges on the steady
// clock, and a CUDA session steps aside (TracerUnavailable, no CUDA call made) when a
// profiler such as Nsight Systems is injected. The CUDA half with CUPTI live is checked on
// the GPU by tests/smoke/test_trace.py through bench.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "capture/cupti_session.h"
#include "capture/nvtx_phase.h"
#include "capture/trace_session.h"

namespace {

// Sets an environment variable for one test and restores the old state after it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(TraceSession, CpuSessionRecordsPhasesOnTheSteadyClock) {
  trace::TraceSession session(/*cuda=*/false);
  {
    trace::PhaseRange epoch(trace::Phase::Epoch);
    trace::PhaseRange forward(trace::Phase::Forward);
  }
  const auto records = session.stop();
  ASSERT_EQ(records.ranges.size(), 2u);
  EXPECT_EQ(records.ranges[0].name, "forward");
  EXPECT_EQ(records.ranges[1].name, "epoch");
  EXPECT_LE(records.ranges[1].start_ns, records.ranges[0].start_ns);
  EXPECT_EQ(records.clock, "steady");
  EXPECT_TRUE(records.kernels.empty());
  EXPECT_EQ(records.dropped_records, 0u);
  EXPECT_TRUE(session.stop().ranges.empty());  // a second stop hands back nothing
}

TEST(TraceSession, CudaSessionStepsAsideUnderNsightSystems) {
  ScopedEnv nsys("NSYS_PROFILING_SESSION_ID", "1");
  try {
    trace::TraceSession session(/*cuda=*/true);
    FAIL() << "expected TracerUnavailable";
  } catch (const trace::TracerUnavailable& e) {
    const std::string what = e.what();
#if IRIS_HAVE_CUPTI
    EXPECT_NE(what.find("Nsight Systems"), std::string::npos) << what;
#else
    EXPECT_NE(what.find("without CUPTI"), std::string::npos) << what;
#endif
  }
  // The phase scope was never installed: ranges opened now go nowhere.
  { trace::PhaseRange after(trace::Phase::Step); }
}
