// --budget_s: the deadline every row checks as it starts (bench_util.h).
#include <cstdio>
#include <optional>
#include <string>

#include "bench_util.h"

namespace bench {
namespace {
std::optional<HostClock::time_point> deadline;
double budget_seconds = 0;
}  // namespace

void set_run_budget(double seconds) {
  budget_seconds = seconds;
  if (seconds > 0)
    deadline = HostClock::now() + std::chrono::duration_cast<HostClock::duration>(
                                      std::chrono::duration<double>(seconds));
  else
    deadline.reset();
}

bool within_run_budget(benchmark::State& state) {
  if (!deadline || HostClock::now() < *deadline) return true;
  char text[96];
  std::snprintf(text, sizeof text, "skipped: --budget_s=%g spent before this row started",
                budget_seconds);
  state.SkipWithError(text);
  return false;
}

}  // namespace bench
