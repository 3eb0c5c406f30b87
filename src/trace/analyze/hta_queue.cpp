#include "trace/analyze/hta_queue.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

namespace trace {
namespace {

using Point = HtaQueuePoint;
using Series = std::map<int64_t, std::vector<Point>>;  // groupby("stream"): sorted, NaN dropped

// runtime_calls.join(gpu_kernels, on="correlation"): each launch once per GPU row with its
// correlation, in their order, or once without a stream; then the GPU rows some launch has;
// both sorted by ts, and each stream's running sum. False where HTA's assert fails.
bool queue_series(const HtaFrame& f, const HtaTsOrder& order, Series* series, bool* float_stream,
                  bool* range_index) {
  std::unordered_map<int64_t, std::vector<size_t>> gpu_by_corr;
  for (size_t g = 0; g < f.gpu_correlation.size(); ++g)
    gpu_by_corr[f.gpu_correlation[g]].push_back(g);
  struct Change {
    double ts;
    int64_t stream, index;
    bool has_stream;  // a launch joined to no GPU row has a NaN stream: in no group
    int delta;
    size_t gpu;  // the GPU row whose pid and tid the row has
  };
  std::vector<Change> merged;
  std::set<int64_t> launch_corrs;
  for (size_t l = 0; l < f.queue_ts.size(); ++l) {
    launch_corrs.insert(f.queue_correlation[l]);
    const auto it = gpu_by_corr.find(f.queue_correlation[l]);
    if (it == gpu_by_corr.end()) {
      *float_stream = true;
      merged.push_back({f.queue_ts[l], 0, f.queue_index[l], false, +1, 0});
      continue;
    }
    for (size_t g : it->second)
      merged.push_back({f.queue_ts[l], f.gpu_stream[g], f.queue_index[l], true, +1, g});
  }
  const size_t launch_rows = merged.size();
  for (size_t g = 0; g < f.gpu_ts.size(); ++g)
    if (launch_corrs.count(f.gpu_correlation[g]))
      merged.push_back({f.gpu_ts[g], f.gpu_stream[g], f.gpu_index[g], true, -1, g});
  if (merged.size() - launch_rows != launch_rows) return false;
  std::vector<double> ts;
  for (const Change& c : merged) ts.push_back(c.ts);
  std::vector<size_t> by_ts;
  order(ts, f.ts_bits, &by_ts);
  // set_index("index") makes a RangeIndex (int64) of labels in arithmetic progression
  // (pandas' maybe_sequence_to_range), else keeps the column's type.
  bool progression = by_ts.size() >= 2;
  for (size_t i = 1; progression && i < by_ts.size(); ++i) {
    const int64_t step = merged[by_ts[1]].index - merged[by_ts[0]].index;
    progression = step != 0 && merged[by_ts[i]].index - merged[by_ts[i - 1]].index == step;
  }
  *range_index = progression;
  for (size_t k : by_ts) {
    const Change& c = merged[k];
    if (!c.has_stream) continue;
    auto& v = (*series)[c.stream];
    v.push_back({c.index, c.ts, c.stream, (v.empty() ? 0 : v.back().length) + c.delta, c.gpu});
  }
  return true;
}

HtaQueueStats length_stats(const std::vector<Point>& v) {
  HtaQueueStats q;
  std::vector<double> x;
  for (const Point& p : v) x.push_back(static_cast<double>(p.length));
  q.count = x.size();
  const double n = static_cast<double>(x.size());
  q.mean = pairwise_sum(x.data(), x.size()) / n;
  if (x.size() < 2) {
    q.std = kHtaNaN;
  } else {  // pandas nanvar: sum((mean - x)^2) / (n - 1)
    std::vector<double> sq;
    for (double v2 : x) sq.push_back((q.mean - v2) * (q.mean - v2));
    q.std = std::sqrt(pairwise_sum(sq.data(), sq.size()) / (n - 1));
  }
  std::sort(x.begin(), x.end());
  q.min = x.front(), q.max = x.back();
  q.p25 = linear_percentile(x, 25), q.p50 = linear_percentile(x, 50);
  q.p75 = linear_percentile(x, 75);
  return q;
}

}  // namespace

// get_time_spent_blocked_on_full_queue: for each stream of ql (in order of first appearance),
// df = ql.loc[ql.stream == s], dur = ts.shift(-1) - ts, the rows with queue_length >= max; the
// last stream with any such row is the rank's. Where df is not the whole of ql, pandas aligns
// the boolean mask ql.queue_length >= max on df's labels: each label takes the mask at every ql
// row with that label (get_indexer_for), and df's rows at the true positions are taken, one
// past df's end raising IndexError (labels repeat where a launch joined several GPU rows).
HtaFullQueue hta_full_queue(const std::vector<HtaQueuePoint>& ql, double trace_duration,
                            int64_t max_length, std::string* error) {
  HtaFullQueue out;
  out.max_queue_length = max_length;
  std::vector<int64_t> streams;
  std::unordered_map<int64_t, std::vector<size_t>> rows_of;  // by stream, in ql order
  std::unordered_map<int64_t, std::vector<size_t>> at_label;
  for (size_t k = 0; k < ql.size(); ++k) {
    auto [it, added] = rows_of.try_emplace(ql[k].stream);
    if (added) streams.push_back(ql[k].stream);
    it->second.push_back(k);
    at_label[ql[k].index].push_back(k);
  }
  for (int64_t stream : streams) {
    const std::vector<size_t>& v = rows_of[stream];
    std::vector<size_t> picked;   // positions in v
    if (v.size() == ql.size()) {  // df's index equals ql's: the mask as it stands
      for (size_t i = 0; i < v.size(); ++i)
        if (ql[v[i]].length >= max_length) picked.push_back(i);
    } else {
      size_t pos = 0;
      for (size_t k : v)
        for (size_t j : at_label[ql[k].index]) {
          if (ql[j].length >= max_length) {
            if (pos >= v.size()) {
              *error = "IndexError";
              return out;
            }
            picked.push_back(pos);
          }
          ++pos;
        }
    }
    std::vector<double> durs;  // Series.sum(): the last row's NaN counted as 0
    for (size_t i : picked) durs.push_back(i + 1 < v.size() ? ql[v[i + 1]].ts - ql[v[i]].ts : 0.0);
    if (durs.empty()) continue;
    const double total = pairwise_sum(durs.data(), durs.size());
    out = {max_length, true, stream, total, total * 1.0 / trace_duration};
  }
  return out;
}

double hta_trace_duration(const HtaFrame& f, bool* int_wrapped) {
  return column_op(f.ts_max, -f.ts_min, f.ts_bits, int_wrapped);
}

HtaQueue hta_queue(const HtaFrame& f, int64_t max_queue_length, const HtaTsOrder& order) {
  HtaQueue out;
  out.full.max_queue_length = max_queue_length;
  Series series;
  if (!queue_series(f, order, &series, &out.float_stream, &out.range_index)) {
    out.length_error = out.full_error = "AssertionError";  // HTA's own assert
    return out;
  }
  for (const auto& [stream, v] : series) {
    out.length[stream] = length_stats(v);
    out.series.insert(out.series.end(), v.begin(), v.end());
  }
  if (!series.empty())
    out.full = hta_full_queue(out.series, hta_trace_duration(f, &out.int_wrapped), max_queue_length,
                              &out.full_error);
  return out;
}

}  // namespace trace
