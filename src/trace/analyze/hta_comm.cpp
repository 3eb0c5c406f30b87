#include "trace/analyze/hta_comm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "trace/analyze/hta_intervals.h"

namespace trace {
namespace {

// merge_kernel_intervals over the GPU rows whose class flag is set.
HtaIntervals merged(const HtaFrame& f, const std::vector<uint8_t>& in_class,
                    const HtaTsOrder& order) {
  std::vector<size_t> rows;
  for (size_t g = 0; g < f.gpu_ts.size(); ++g)
    if (in_class[g]) rows.push_back(g);
  bool wrapped = false;
  return hta_merge_kernel_intervals(f, rows, order, &wrapped);
}

}  // namespace

HtaCommOverlap hta_comm_comp_overlap(const HtaFrame& f, const HtaTsOrder& order) {
  const HtaIntervals comm = merged(f, f.gpu_comm, order);
  const HtaIntervals comp = merged(f, f.gpu_compute, order);
  std::vector<double> time;
  std::vector<int> status;
  const auto melt = [&](const HtaIntervals& v, int up) {
    for (double t : v.ts) time.push_back(t), status.push_back(up);
    for (double t : v.end) time.push_back(t), status.push_back(-up);
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
  for (size_t i = 0; i < comm.ts.size(); ++i) comm_len.push_back(comm.end[i] - comm.ts[i]);
  HtaCommOverlap out;
  out.ratio =
      pairwise_sum(overlap.data(), overlap.size()) / pairwise_sum(comm_len.data(), comm_len.size());
  out.pctg = numpy_round(100 * out.ratio, 2);
  return out;
}

}  // namespace trace
