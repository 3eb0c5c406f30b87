#include "trace/analyze/hta_breakdown.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/keyed_values.h"

// File references below are to HolisticTraceAnalysis 0.5.0 (pip holistictraceanalysis==0.5.0),
// numpy 2.4 and pandas 3.1, the versions tests/data/hta_expected/README.md records.
namespace trace {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy/_core/src/umath/loops_utils.h.src, DOUBLE_pairwise_sum (PW_BLOCKSIZE 128): what
// Series.sum() and ndarray.mean() add float64 with, so that our sums are HTA's to the last bit.
double pairwise(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

// A pandas scalar: int64 or float64, with numpy's promotion (int with float gives float).
// Why: HTA's "ts" column stays int64 when the file's timestamps are integers (or rounded),
// and an int64 column sums exactly where float64 rounds beyond 2^53 (epoch-sized ts summed).
struct Scalar {
  bool is_int;
  int64_t i;
  double d;
  double f() const { return is_int ? static_cast<double>(i) : d; }
};
// int64 arithmetic wraps in numpy; here too, without C++'s undefined signed overflow.
int64_t wrap(uint64_t u) { return static_cast<int64_t>(u); }
Scalar operator-(Scalar a, Scalar b) {
  if (a.is_int && b.is_int)
    return {true, wrap(static_cast<uint64_t>(a.i) - static_cast<uint64_t>(b.i)), 0};
  return {false, 0, a.f() - b.f()};
}

// Series.sum(): exact for int64 columns, pairwise for float64. The importer bounds every
// timestamp to int64 nanoseconds, so each value converts to int64 without overflow.
Scalar column_sum(const std::vector<double>& v, bool is_int) {
  if (!is_int) return {false, 0, pairwise(v.data(), v.size())};
  uint64_t s = 0;
  for (double x : v) s += static_cast<uint64_t>(static_cast<int64_t>(x));
  return {true, wrap(s), 0};
}

// pandas' groupby sum is compensated (Kahan); its exact rounding is not reproduced bit for bit
// (experiments/hta_differential.py compares these within float rounding).
struct Kahan {
  double sum = 0, c = 0;
  void add(double v) {
    const double y = v - c, t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
};

// One row of HTA's per-rank DataFrame.
struct Row {
  const HtaEvent* e;
  double ts, dur;      // after round_down_time_stamps and _align_all_ranks
  bool gpu;            // trace_filter.py, _filter_gpu_kernels_with_cuda_sync
  int64_t index_corr;  // trace.py, transform_correlation_to_index
};

// A rank's column types: 0 for float64, else the width in bits of the integer type HTA keeps.
// trace_parser.py, _compress_df, downcasts every integer column to the smallest of int8,
// int16, int32, int64 that holds its values (pd.to_numeric(downcast="integer")), and numpy
// arithmetic on such columns wraps around: ts = 124 and dur = 7 as int8 end at -125.
struct Dtypes {
  int ts_bits = 0, dur_bits = 0;
  int end_bits() const {
    return ts_bits && dur_bits ? std::max(ts_bits, dur_bits) : 0;
  }  // ts + dur
};

int downcast_bits(int64_t lo, int64_t hi) {
  for (int bits : {8, 16, 32})
    if (lo >= -(int64_t{1} << (bits - 1)) && hi < (int64_t{1} << (bits - 1))) return bits;
  return 64;
}

// a + b in a column of `bits` (0: float64), wrapping as numpy does; *wrapped notes a wrap.
double column_op(double a, double b, int bits, bool* wrapped) {
  if (!bits) return a + b;
  const int64_t exact =
      static_cast<int64_t>(a) + static_cast<int64_t>(b);  // both fit int64 (importer bounds)
  const int shift = 64 - bits;
  const int64_t w = bits == 64 ? exact : wrap(static_cast<uint64_t>(exact) << shift) >> shift;
  if (w != exact) *wrapped = true;
  return static_cast<double>(w);
}

// utils.py, merge_kernel_intervals: rows sorted by ts; a row opens a new interval when its ts
// is after the running maximum of every earlier end (pandas: ts > end.shift().cummax()).
struct Interval {
  double ts, end;
};
std::vector<Interval> merge_intervals(const std::vector<const Row*>& by_ts, Dtypes t,
                                      bool* wrapped) {
  std::vector<Interval> out;
  double cummax = kNaN;
  for (const Row* r : by_ts) {
    const double end = column_op(r->ts, r->dur, t.end_bits(), wrapped);
    if (out.empty() || r->ts > cummax)
      out.push_back({r->ts, end});
    else
      out.back().end = std::max(out.back().end, end);
    cummax = std::isnan(cummax) ? end : std::max(cummax, end);
  }
  return out;
}

// breakdown_analysis.py: merged.end.sum() - merged.ts.sum().
Scalar run_time(const std::vector<Interval>& v, Dtypes t) {
  std::vector<double> ends, starts;
  for (const auto& i : v) ends.push_back(i.end), starts.push_back(i.ts);
  return column_sum(ends, t.end_bits() != 0) - column_sum(starts, t.ts_bits != 0);
}

// pandas sort_values(by="ts"): equal ts keep frame order here (see hta_breakdown.h).
template <typename T, typename Ts>
void sort_by_ts(std::vector<T>* v, Ts ts) {
  std::stable_sort(v->begin(), v->end(), [&](const T& a, const T& b) { return ts(a) < ts(b); });
}

// trace_counters.py, TraceCounters: _get_queue_length_time_series_for_rank,
// get_queue_length_summary and get_time_spent_blocked_on_full_queue (hta_breakdown.h).
void queue_length(const std::vector<const Row*>& df, Dtypes types, const HtaOptions& opt,
                  HtaRank* out) {
  out->full_queue.max_queue_length = opt.max_queue_length;
  std::vector<const Row*> launches, gpu;  // frame order
  for (const Row* r : df) {
    if ((r->e->flags & HtaEvent::kQueueLaunchName) && r->index_corr > 0) launches.push_back(r);
    if (r->e->stream != -1) gpu.push_back(r);
  }
  std::unordered_map<int64_t, std::vector<const Row*>> gpu_by_corr;
  for (const Row* g : gpu) gpu_by_corr[g->e->correlation].push_back(g);
  struct Change {
    double ts;
    int64_t stream, index;
    bool has_stream;  // a launch joined to no GPU row has a NaN stream: in no group
    int delta;
  };
  // runtime_calls.join(gpu_kernels, on="correlation"): each launch once per GPU row with its
  // correlation, in their order, or once without a stream; then the GPU rows some launch has.
  std::vector<Change> merged;
  std::set<int64_t> launch_corrs;
  for (const Row* r : launches) {
    launch_corrs.insert(r->e->correlation);
    const auto it = gpu_by_corr.find(r->e->correlation);
    if (it == gpu_by_corr.end()) {
      merged.push_back({r->ts, 0, r->e->index, false, +1});
      continue;
    }
    for (const Row* g : it->second) merged.push_back({r->ts, g->e->stream, r->e->index, true, +1});
  }
  const size_t launch_rows = merged.size();
  for (const Row* g : gpu)
    if (launch_corrs.count(g->e->correlation))
      merged.push_back({g->ts, g->e->stream, g->e->index, true, -1});
  if (merged.size() - launch_rows != launch_rows) {
    out->queue_error = out->full_queue_error = "AssertionError";  // HTA's own assert
    return;
  }
  sort_by_ts(&merged, [](const Change& c) { return c.ts; });
  struct Point {
    double ts;
    int64_t index, length;
  };
  std::map<int64_t, std::vector<Point>> series;  // groupby("stream"): sorted keys, NaN dropped
  for (const Change& c : merged) {
    if (!c.has_stream) continue;
    auto& v = series[c.stream];
    v.push_back({c.ts, c.index, (v.empty() ? 0 : v.back().length) + c.delta});
  }
  for (const auto& [stream, v] : series) {
    HtaQueueStats q;
    std::vector<double> x;
    for (const Point& p : v) x.push_back(static_cast<double>(p.length));
    q.count = x.size();
    const double n = static_cast<double>(x.size());
    q.mean = pairwise(x.data(), x.size()) / n;
    if (x.size() < 2) {
      q.std = kNaN;
    } else {  // pandas nanvar: sum((mean - x)^2) / (n - 1)
      std::vector<double> sq;
      for (double v2 : x) sq.push_back((q.mean - v2) * (q.mean - v2));
      q.std = std::sqrt(pairwise(sq.data(), sq.size()) / (n - 1));
    }
    std::sort(x.begin(), x.end());
    q.min = x.front(), q.max = x.back();
    q.p25 = linear_percentile(x, 25), q.p50 = linear_percentile(x, 50);
    q.p75 = linear_percentile(x, 75);
    out->queue_length[stream] = q;
  }
  if (series.empty()) return;

  // get_time_spent_blocked_on_full_queue: ql.loc[ql.stream == s], dur = ts.shift(-1) - ts,
  // rows with queue_length >= max; the last stream with any such row is the rank's.
  // ql: the groups one after another; where its row labels (file indices) repeat, pandas
  // aligns the boolean mask ql.queue_length >= max on them (see below).
  std::vector<const Point*> ql;
  std::unordered_map<int64_t, std::vector<size_t>> at_label;
  for (const auto& [stream, v] : series)
    for (const Point& p : v) at_label[p.index].push_back(ql.size()), ql.push_back(&p);
  double ts_min = std::numeric_limits<double>::infinity(), ts_max = -ts_min;
  for (const Row* r : df) ts_min = std::min(ts_min, r->ts), ts_max = std::max(ts_max, r->ts);
  const double duration = column_op(ts_max, -ts_min, types.ts_bits, &out->int_wrapped);
  for (const auto& [stream, v] : series) {
    // df.loc[mask]: with one stream the mask is df's own; else it is reindexed to df's labels,
    // each label taking the mask at every ql row with that label (get_indexer_for), and df's
    // rows at the true positions are taken: one past df's end raises IndexError.
    std::vector<size_t> picked;
    if (series.size() == 1) {
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i].length >= opt.max_queue_length) picked.push_back(i);
    } else {
      size_t pos = 0;
      for (const Point& p : v)
        for (size_t k : at_label[p.index]) {
          if (ql[k]->length >= opt.max_queue_length) {
            if (pos >= v.size()) {
              out->full_queue = {opt.max_queue_length};
              out->full_queue_error = "IndexError";
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
    const double total = pairwise(durs.data(), durs.size());
    out->full_queue = {opt.max_queue_length, true, stream, total, total * 1.0 / duration};
  }
}

// A rank's frame after HTA's load: index_correlation set on `rows`, the step filter applied.
std::vector<const Row*> loaded_frame(std::vector<Row>& rows, bool filter_steps) {
  // trace.py, transform_correlation_to_index: index_correlation starts as min(correlation, 0);
  // rows with correlation != -1 are split into CPU and GPU rows and merged on correlation, and
  // each row takes the index of the last partner the merge lists (partners in file order).
  const auto correlated = [&](auto visit) {
    for (const Row& r : rows)
      if (r.e->correlation != -1) visit(r.e->correlation);
  };
  constexpr int64_t kNoRow = INT64_MIN;  // a row index is never negative
  KeyedValues<int64_t> last_cpu(correlated, kNoRow), last_gpu(correlated, kNoRow);
  for (const Row& r : rows)
    if (r.e->correlation != -1) (r.gpu ? last_gpu : last_cpu)[r.e->correlation] = r.e->index;
  for (Row& r : rows) {
    r.index_corr = std::min<int64_t>(r.e->correlation, 0);
    if (r.e->correlation == -1) continue;
    const int64_t partner = (r.gpu ? last_cpu : last_gpu).get(r.e->correlation);
    if (partner != kNoRow) r.index_corr = partner;
  }

  // trace.py, Trace._filter_irrelevant_gpu_kernels (include_last_profiler_step=False): CPU rows
  // before the last ProfilerStep's start; GPU rows inner-merged on correlation with them (one
  // copy per match); pd.concat([gpu, cpu]). No step on this rank: max() is NaN, nothing kept.
  std::vector<const Row*> df;
  if (filter_steps) {
    double last_start = kNaN;
    for (const Row& r : rows)
      if (!r.gpu && (r.e->flags & HtaEvent::kStepName))
        last_start = std::isnan(last_start) ? r.ts : std::max(last_start, r.ts);
    std::vector<const Row*> cpu;
    for (const Row& r : rows)
      if (!r.gpu && r.ts < last_start) cpu.push_back(&r);
    KeyedValues<int64_t> kept_by_corr(
        [&](auto visit) {
          for (const Row* r : cpu) visit(r->e->correlation);
        },
        0);
    for (const Row* r : cpu) ++kept_by_corr[r->e->correlation];
    for (const Row& r : rows)
      if (r.gpu)
        for (int64_t k = kept_by_corr.get(r.e->correlation); k > 0; --k) df.push_back(&r);
    df.insert(df.end(), cpu.begin(), cpu.end());
  } else {
    for (const Row& r : rows) df.push_back(&r);
  }
  return df;
}

HtaRank one_rank(std::vector<Row>& rows, Dtypes types, bool filter_steps, const HtaOptions& opt) {
  HtaRank out;
  const std::vector<const Row*> df = loaded_frame(rows, filter_steps);

  // breakdown_analysis.py, get_temporal_breakdown and _get_idle_time_for_kernels. kernel time
  // is merged.iloc[-1]["end"] - merged.iloc[0]["ts"]: a row of both columns, float64 unless both
  // are int64.
  std::vector<const Row*> dev;
  for (const Row* r : df)
    if (r->e->stream != -1) dev.push_back(r);
  sort_by_ts(&dev, [](const Row* r) { return r->ts; });
  if (!dev.empty()) {
    out.has_gpu = true;
    const auto merged = merge_intervals(dev, types, &out.int_wrapped);
    // A row of the merged frame holds ts and end in their common type; its scalars subtract
    // in that type (a narrow int wraps), then meet the int64 sums.
    const int row_bits =
        types.ts_bits && types.end_bits() ? std::max(types.ts_bits, types.end_bits()) : 0;
    const double span =
        column_op(merged.back().end, -merged.front().ts, row_bits, &out.int_wrapped);
    const Scalar kernel_time{row_bits != 0, static_cast<int64_t>(span), span};
    const Scalar idle = kernel_time - run_time(merged, types);
    std::vector<const Row*> comp;
    for (const Row* r : dev)
      if (r->e->flags & HtaEvent::kComputeName) comp.push_back(r);
    const Scalar compute = run_time(merge_intervals(comp, types, &out.int_wrapped), types);
    out.kernel_time_us = kernel_time.f();
    out.idle_us = idle.f();
    out.compute_us = compute.f();
    out.non_compute_us = (kernel_time - compute - idle).f();
  }

  // breakdown_analysis.py, get_idle_time_breakdown: kernel-category rows with stream != -1,
  // left-joined on index_correlation to the frame's index (the file index: set_index("index")
  // in Trace.load_traces), so a row whose index_correlation names a duplicated GPU row, or row
  // 0, appears once per match, in frame order; then _analyze_idle_time_for_stream per stream.
  std::unordered_map<int64_t, std::vector<size_t>> at_index;
  for (size_t i = 0; i < df.size(); ++i) at_index[df[i]->e->index].push_back(i);
  struct Joined {
    const Row* r;
    double runtime_ts;
  };
  std::map<int64_t, std::vector<Joined>> streams;
  for (const Row* r : df) {
    if (r->e->stream == -1 || !(r->e->flags & HtaEvent::kKernelCat)) continue;
    auto& s = streams[r->e->stream];
    const auto it = at_index.find(r->index_corr);
    if (it == at_index.end())
      s.push_back({r, kNaN});
    else
      for (size_t i : it->second) s.push_back({r, df[i]->ts});
  }
  for (auto& [stream, v] : streams) {
    sort_by_ts(&v, [](const Joined& j) { return j.r->ts; });
    Kahan host, kernel, other;
    for (size_t i = 1; i < v.size(); ++i) {
      const double prev_end =
          column_op(v[i - 1].r->ts, v[i - 1].r->dur, types.end_bits(), &out.int_wrapped);
      const double gap = v[i].r->ts - prev_end;
      if (v[i].runtime_ts > prev_end)
        host.add(gap);  // NaN runtime ts: not host wait
      else if (gap < opt.consecutive_kernel_delay_us)
        kernel.add(gap);
      else
        other.add(gap);
    }
    out.idle_by_stream[stream] = {host.sum, kernel.sum, other.sum};
  }

  // cuda_kernel_analysis.py, cuda_kernel_launch_stats (include_memory_events=True).
  std::set<int64_t> corrs;
  for (const Row* r : df)
    if (r->e->flags & (HtaEvent::kLaunchName | HtaEvent::kMemAsyncName))
      corrs.insert(r->e->correlation);
  std::unordered_map<int64_t, std::vector<const Row*>> gpu_by_corr;
  for (const Row* r : df)
    if (r->e->stream != -1 && corrs.count(r->e->correlation))
      gpu_by_corr[r->e->correlation].push_back(r);
  std::vector<double>
      delays;  // pd.merge(cpu, gpu, how="inner"): CPU rows in order, each with its GPU rows
  for (const Row* c : df) {
    if (c->e->stream != -1 || !corrs.count(c->e->correlation)) continue;
    auto it = gpu_by_corr.find(c->e->correlation);
    if (it == gpu_by_corr.end()) continue;
    for (const Row* g : it->second) {
      // (ts_y - ts_x) in the ts column's type, then - dur_x in the common type of both.
      const double since = column_op(g->ts, -c->ts, types.ts_bits, &out.int_wrapped);
      const double d = column_op(since, -c->dur, types.end_bits(), &out.int_wrapped);
      delays.push_back(d < 0 ? 0.0 : d);  // clip(lower=0)
    }
  }
  auto& s = out.launch_delay;
  s.count = delays.size();
  if (!delays.empty()) {
    s.mean = pairwise(delays.data(), delays.size()) / static_cast<double>(delays.size());
    std::sort(delays.begin(), delays.end());
    s.min = delays.front(), s.max = delays.back();
    s.p50 = linear_percentile(delays, 50), s.p90 = linear_percentile(delays, 90);
  }
  queue_length(df, types, opt, &out);
  return out;
}

// hta_frames.h: the rows HTA's three calls read, from one rank's loaded frame.
HtaFrame frame_of(const HtaEvents& events, std::vector<Row>& rows, Dtypes types,
                  bool filter_steps) {
  HtaFrame f;
  f.ts_bits = types.ts_bits, f.dur_bits = types.dur_bits;
  if (rows.empty()) return f;
  int64_t s_lo = INT64_MAX, s_hi = INT64_MIN, c_lo = INT64_MAX, c_hi = INT64_MIN;
  for (const auto& e : events.rows) {
    s_lo = std::min(s_lo, e.stream), s_hi = std::max(s_hi, e.stream);
    c_lo = std::min(c_lo, e.correlation), c_hi = std::max(c_hi, e.correlation);
  }
  f.stream_bits = downcast_bits(s_lo, s_hi), f.correlation_bits = downcast_bits(c_lo, c_hi);
  const std::vector<const Row*> df = loaded_frame(rows, filter_steps);
  KeyedValues<uint8_t> corrs(  // the launches' correlations
      [&](auto visit) {
        for (const Row* r : df)
          if (r->e->flags & (HtaEvent::kLaunchName | HtaEvent::kMemAsyncName))
            visit(r->e->correlation);
      },
      0);
  KeyedValues<uint8_t> wanted(  // the kernels' index_correlation
      [&](auto visit) {
        for (const Row* r : df)
          if (r->e->stream != -1 && (r->e->flags & HtaEvent::kKernelCat)) visit(r->index_corr);
      },
      0);
  for (const Row* r : df) {
    if (r->e->flags & (HtaEvent::kLaunchName | HtaEvent::kMemAsyncName))
      corrs[r->e->correlation] = 1;
    if (r->e->stream == -1) continue;
    f.gpu_index.push_back(r->e->index), f.gpu_stream.push_back(r->e->stream);
    f.gpu_correlation.push_back(r->e->correlation);
    f.gpu_index_correlation.push_back(r->index_corr);
    f.gpu_ts.push_back(r->ts), f.gpu_dur.push_back(r->dur);
    f.gpu_kernel_cat.push_back((r->e->flags & HtaEvent::kKernelCat) != 0);
    f.gpu_compute.push_back((r->e->flags & HtaEvent::kComputeName) != 0);
    if (r->e->flags & HtaEvent::kKernelCat) wanted[r->index_corr] = 1;
  }
  for (const Row* r : df) {
    if (wanted.get(r->e->index))
      f.runtime_index.push_back(r->e->index), f.runtime_ts.push_back(r->ts);
    if (r->e->stream == -1 && corrs.get(r->e->correlation)) {
      f.cpu_correlation.push_back(r->e->correlation);
      f.cpu_ts.push_back(r->ts), f.cpu_dur.push_back(r->dur);
    }
  }
  f.launch_correlations = corrs.keys();
  // ts + dur in HTA's column types, as hta_breakdown computes it (a wrap is flagged).
  for (size_t i = 0; i < f.gpu_ts.size(); ++i)
    column_op(f.gpu_ts[i], f.gpu_dur[i], types.end_bits(), &f.int_wrapped);
  return f;
}

}  // namespace

// numpy/lib/_function_base_impl.py: method "linear" (virtual index (n - 1) * q), _lerp.
double linear_percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const double q = p / 100.0, last = static_cast<double>(v.size() - 1);
  const double virt = last * q;
  const double below = std::floor(virt), gamma = virt - below;
  size_t lo = static_cast<size_t>(below), hi = lo + 1;
  if (virt >= last) lo = hi = v.size() - 1;
  const double a = v[lo], b = v[hi], diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

namespace {

// Every rank's rows as HTA's parse, rounding and alignment leave them (before its filter).
struct LoadedRanks {
  std::vector<HtaEvents> events;
  std::vector<std::vector<Row>> rows;
  std::vector<Dtypes> types;
  bool filter_steps = false;
};

LoadedRanks load_ranks(const std::vector<const ImportedTrace*>& traces, const HtaOptions& options) {
  // HTA parses the ranks in sorted order (Trace.parse_traces); the alignment's min() keeps the
  // first of equal minima, and with it that rank's column type.
  std::vector<size_t> order(traces.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return traces[a]->rank < traces[b]->rank; });

  // trace_parser.py, round_down_time_stamps (only when the file's ts column is float64: ts up,
  // end = ts + dur down, dur = end - ts), then trace.py, Trace._align_all_ranks: ts minus the
  // smallest ts of all ranks. Columns: ts is int64 when the file's ts are all integers, or
  // rounded with none missing; dur when all present and integers, or rounded likewise.
  LoadedRanks loaded;
  auto& events = loaded.events;
  auto& rows = loaded.rows;
  auto& types = loaded.types;
  events.resize(traces.size()), rows.resize(traces.size()), types.resize(traces.size());
  bool have_min = false, min_is_int = false;
  double min_ts = 0;
  for (size_t k : order) {
    const HtaEvents& t = events[k] = hta_events(*traces[k]);
    const bool round = options.ns_rounding && t.float_ts;
    const bool ts_int = round ? !t.missing_ts : !t.float_ts;
    const bool dur_int = round ? !t.missing_ts && !t.missing_dur : !t.float_dur;
    double rank_min = std::numeric_limits<double>::infinity(), rank_max = -rank_min;
    double dur_min = rank_min, dur_max = -rank_min;
    rows[k].reserve(t.rows.size());
    for (const auto& e : t.rows) {
      Row r{&e, e.ts_us, e.dur_us, false, 0};
      if (round) {
        const double end = r.ts + r.dur;
        r.ts = std::ceil(r.ts);
        r.dur = std::floor(end) - r.ts;
      }
      r.gpu = (e.stream >= 0 && e.correlation >= 0) || (e.flags & HtaEvent::kDeviceSyncName);
      rank_min = std::min(rank_min, r.ts), rank_max = std::max(rank_max, r.ts);
      dur_min = std::min(dur_min, r.dur), dur_max = std::max(dur_max, r.dur);
      rows[k].push_back(r);
    }
    if (rows[k].empty()) continue;
    if (ts_int)
      types[k].ts_bits =
          downcast_bits(static_cast<int64_t>(rank_min), static_cast<int64_t>(rank_max));
    if (dur_int)
      types[k].dur_bits =
          downcast_bits(static_cast<int64_t>(dur_min), static_cast<int64_t>(dur_max));
    if (!have_min || rank_min < min_ts) have_min = true, min_ts = rank_min, min_is_int = ts_int;
  }
  for (size_t k = 0; k < traces.size(); ++k) {
    for (auto& r : rows[k]) r.ts -= min_ts;
    if (!min_is_int)
      types[k].ts_bits = 0;  // an int column minus a float is float64; minus an int keeps its type
  }

  // The step filter runs when the symbol table of all ranks holds two or more step names.
  std::set<std::string> step_names;
  for (const auto& e : events) step_names.insert(e.step_names.begin(), e.step_names.end());
  loaded.filter_steps = step_names.size() >= 2;
  return loaded;
}

}  // namespace

std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces,
                                         const HtaOptions& options) {
  LoadedRanks loaded = load_ranks(traces, options);
  std::map<int64_t, HtaRank> out;
  for (size_t k = 0; k < traces.size(); ++k)
    out[traces[k]->rank] = one_rank(loaded.rows[k], loaded.types[k], loaded.filter_steps, options);
  return out;
}

std::map<int64_t, HtaFrame> hta_frames(const std::vector<const ImportedTrace*>& traces,
                                       const HtaOptions& options) {
  LoadedRanks loaded = load_ranks(traces, options);
  std::map<int64_t, HtaFrame> out;
  for (size_t k = 0; k < traces.size(); ++k)
    out[traces[k]->rank] =
        frame_of(loaded.events[k], loaded.rows[k], loaded.types[k], loaded.filter_steps);
  return out;
}

}  // namespace trace
