#include "trace/analyze/hta_comm.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace trace {
namespace {

struct Interval {
  double ts, end;
};

// merge_kernel_intervals over the GPU rows whose class flag is set.
std::vector<Interval> merged(const HtaFrame& f, const std::vector<uint8_t>& in_class,
                             const HtaTsOrder& order) {
  std::vector<double> ts, end;
  bool wrapped = false;
  for (size_t g = 0; g < f.gpu_ts.size(); ++g)
    if (in_class[g])
      ts.push_back(f.gpu_ts[g]),
          end.push_back(column_op(f.gpu_ts[g], f.gpu_dur[g], f.end_bits(), &wrapped));
  std::vector<size_t> by_ts;
  order(ts, f.ts_bits, &by_ts);
  std::vector<Interval> out;
  double running_max = kHtaNaN;  // end.shift().cummax(): NaN before the first row
  for (size_t k : by_ts) {
    if (out.empty() || ts[k] > running_max) {
      out.push_back({ts[k], end[k]});
    } else {
      out.back().ts = std::min(out.back().ts, ts[k]);
      out.back().end = std::max(out.back().end, end[k]);
    }
    running_max = std::isnan(running_max) ? end[k] : std::max(running_max, end[k]);
  }
  return out;
}

}  // namespace

HtaCommOverlap hta_comm_comp_overlap(const HtaFrame& f, const HtaTsOrder& order) {
  const std::vector<Interval> comm = merged(f, f.gpu_comm, order);
  const std::vector<Interval> comp = merged(f, f.gpu_compute, order);
  std::vector<double> time;
  std::vector<int> status;
  const auto melt = [&](const std::vector<Interval>& v, int up) {
    for (const Interval& i : v) time.push_back(i.ts), status.push_back(up);
    for (const Interval& i : v) time.push_back(i.end), status.push_back(-up);
  };
  melt(comm, 1);
  melt(comp, 2);
  std::vector<size_t> by_time;
  order(time, f.end_bits(), &by_time);
  std::vector<double> overlap, comm_len;
  int running = 0;
  for (size_t k = 0; k < by_time.size(); ++k) {
    running += status[by_time[k]];
    if (running == 3 && k + 1 < by_time.size())
      overlap.push_back(time[by_time[k + 1]] - time[by_time[k]]);
  }
  for (const Interval& i : comm) comm_len.push_back(i.end - i.ts);
  HtaCommOverlap out;
  out.ratio =
      pairwise_sum(overlap.data(), overlap.size()) / pairwise_sum(comm_len.data(), comm_len.size());
  out.pctg = numpy_round(100 * out.ratio, 2);
  return out;
}

}  // namespace trace
