#include "trace/analyze/hta_queue.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

namespace trace {
namespace {

// One row of HTA's queue length series for a stream.
struct Point {
  double ts;
  int64_t index, length;
};
using Series = std::map<int64_t, std::vector<Point>>;  // groupby("stream"): sorted, NaN dropped

// runtime_calls.join(gpu_kernels, on="correlation"): each launch once per GPU row with its
// correlation, in their order, or once without a stream; then the GPU rows some launch has;
// both sorted by ts, and each stream's running sum. False where HTA's assert fails.
bool queue_series(const HtaFrame& f, const HtaTsOrder& order, Series* series, bool* float_stream) {
  std::unordered_map<int64_t, std::vector<size_t>> gpu_by_corr;
  for (size_t g = 0; g < f.gpu_correlation.size(); ++g)
    gpu_by_corr[f.gpu_correlation[g]].push_back(g);
  struct Change {
    double ts;
    int64_t stream, index;
    bool has_stream;  // a launch joined to no GPU row has a NaN stream: in no group
    int delta;
  };
  std::vector<Change> merged;
  std::set<int64_t> launch_corrs;
  for (size_t l = 0; l < f.queue_ts.size(); ++l) {
    launch_corrs.insert(f.queue_correlation[l]);
    const auto it = gpu_by_corr.find(f.queue_correlation[l]);
    if (it == gpu_by_corr.end()) {
      *float_stream = true;
      merged.push_back({f.queue_ts[l], 0, f.queue_index[l], false, +1});
      continue;
    }
    for (size_t g : it->second)
      merged.push_back({f.queue_ts[l], f.gpu_stream[g], f.queue_index[l], true, +1});
  }
  const size_t launch_rows = merged.size();
  for (size_t g = 0; g < f.gpu_ts.size(); ++g)
    if (launch_corrs.count(f.gpu_correlation[g]))
      merged.push_back({f.gpu_ts[g], f.gpu_stream[g], f.gpu_index[g], true, -1});
  if (merged.size() - launch_rows != launch_rows) return false;
  std::vector<double> ts;
  for (const Change& c : merged) ts.push_back(c.ts);
  std::vector<size_t> by_ts;
  order(ts, f.ts_bits, &by_ts);
  for (size_t k : by_ts) {
    const Change& c = merged[k];
    if (!c.has_stream) continue;
    auto& v = (*series)[c.stream];
    v.push_back({c.ts, c.index, (v.empty() ? 0 : v.back().length) + c.delta});
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

// get_time_spent_blocked_on_full_queue: ql.loc[ql.stream == s], dur = ts.shift(-1) - ts,
// rows with queue_length >= max; the last stream with any such row is the rank's.
// ql: the groups one after another; where its row labels (file indices) repeat, pandas
// aligns the boolean mask ql.queue_length >= max on them (see below).
void full_queue(const Series& series, const HtaFrame& f, int64_t max_length, HtaQueue* out) {
  std::vector<const Point*> ql;
  std::unordered_map<int64_t, std::vector<size_t>> at_label;
  for (const auto& [stream, v] : series)
    for (const Point& p : v) at_label[p.index].push_back(ql.size()), ql.push_back(&p);
  const double duration = column_op(f.ts_max, -f.ts_min, f.ts_bits, &out->int_wrapped);
  for (const auto& [stream, v] : series) {
    // df.loc[mask]: with one stream the mask is df's own; else it is reindexed to df's labels,
    // each label taking the mask at every ql row with that label (get_indexer_for), and df's
    // rows at the true positions are taken: one past df's end raises IndexError.
    std::vector<size_t> picked;
    if (series.size() == 1) {
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i].length >= max_length) picked.push_back(i);
    } else {
      size_t pos = 0;
      for (const Point& p : v)
        for (size_t k : at_label[p.index]) {
          if (ql[k]->length >= max_length) {
            if (pos >= v.size()) {
              out->full = {max_length};
              out->full_error = "IndexError";
              return;
            }
            picked.push_back(pos);
          }
          ++pos;
        }
    }
    std::vector<double> durs;  // Series.sum(): the last row's NaN counted as 0
    for (size_t i : picked) durs.push_back(i + 1 < v.size() ? v[i + 1].ts - v[i].ts : 0.0);
    if (durs.empty()) continue;
    const double total = pairwise_sum(durs.data(), durs.size());
    out->full = {max_length, true, stream, total, total * 1.0 / duration};
  }
}

}  // namespace

HtaQueue hta_queue(const HtaFrame& f, int64_t max_queue_length, const HtaTsOrder& order) {
  HtaQueue out;
  out.full.max_queue_length = max_queue_length;
  Series series;
  if (!queue_series(f, order, &series, &out.float_stream)) {
    out.length_error = out.full_error = "AssertionError";  // HTA's own assert
    return out;
  }
  for (const auto& [stream, v] : series) out.length[stream] = length_stats(v);
  if (!series.empty()) full_queue(series, f, max_queue_length, &out);
  return out;
}

}  // namespace trace
