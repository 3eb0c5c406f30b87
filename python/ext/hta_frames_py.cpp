#include "hta_frames_py.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arrays.h"
#include "quiet_signals.h"
#include "trace/analyze/hta_comm.h"
#include "trace/analyze/hta_critical_path.h"
#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_idle.h"
#include "trace/analyze/hta_kernels.h"
#include "trace/analyze/hta_launch.h"
#include "trace/analyze/hta_memory.h"
#include "trace/analyze/hta_queue.h"
#include "trace/analyze/hta_straggler.h"
#include "trace/analyze/hta_temporal.h"
#include "trace/import/trace_file.h"

namespace pyiris {
namespace {

using namespace nb::literals;

// The NumPy type of a column of `bits` (hta_numeric.h: 0 is float64).
std::string dtype_name(int bits) { return bits ? "int" + std::to_string(bits) : "float64"; }

// pandas' sort_values(by="ts") as HTA runs it here: numpy's quicksort over the column's own
// type (its order among equal values is numpy's SIMD sort's), the values not NaN first
// (pandas' nargsort). Runs with the GIL held.
void numpy_ts_order(const std::vector<double>& ts, int bits, std::vector<size_t>* order) {
  std::vector<double> valid;
  std::vector<size_t> valid_at, nan_at;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (std::isnan(ts[i]))
      nan_at.push_back(i);
    else
      valid_at.push_back(i), valid.push_back(ts[i]);
  }
  order->clear();
  if (!valid.empty()) {
    nb::object column = to_numpy(std::move(valid)).attr("astype")(dtype_name(bits));
    nb::object sorted = column.attr("argsort")("kind"_a = "quicksort").attr("astype")("int64");
    const auto positions = nb::cast<nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig>>(sorted);
    for (size_t k = 0; k < positions.shape(0); ++k)
      order->push_back(valid_at[static_cast<size_t>(positions(k))]);
  }
  order->insert(order->end(), nan_at.begin(), nan_at.end());
}

// An HtaScalar as the NumPy scalar HTA's arithmetic makes: (value, dtype name).
nb::tuple scalar(const trace::HtaScalar& s) {
  if (s.is_int()) return nb::make_tuple(nb::int_(s.i), dtype_name(s.bits));
  return nb::make_tuple(nb::float_(s.d), dtype_name(0));
}

double round2(double x) { return trace::numpy_round(x, 2); }

// A pid or tid column's type name (HtaFrame::pid_bits: -1 object).
std::string id_dtype(int bits) { return bits < 0 ? "object" : dtype_name(bits); }

// A pid or tid as the Python object pandas holds (NaN where absent).
nb::object id_value(const trace::ListedId& id, const std::vector<std::string>& text) {
  switch (id.kind) {
    case trace::ListedId::kInt:
      return nb::int_(id.i);
    case trace::ListedId::kFloat:
      return nb::float_(id.d);
    case trace::ListedId::kText:
      return nb::str(text.at(static_cast<size_t>(id.i)).c_str());
    default:
      return nb::float_(std::nan(""));
  }
}

class HtaTraces {
 public:
  HtaTraces(const std::vector<std::string>& paths, bool ns_rounding, bool v05) {
    nb::gil_scoped_release release;
    QuietSignals quiet;
    trace::ImportOptions io;  // the listing alone: HTA's rows come from it (hta_rows.h)
    io.list_events = true, io.records = false;
    std::vector<trace::ImportedTrace> traces;
    for (const auto& p : paths) traces.push_back(trace::import_file(p, io));
    trace::HtaOptions opt;
    opt.ns_rounding = ns_rounding;
    opt.version = v05 ? trace::HtaVersion::V0_5 : trace::HtaVersion::V0_6;
    frames_ = trace::hta_frames(&traces, opt);
    for (size_t k = 0; k < traces.size(); ++k) paths_[traces[k].rank] = paths[k];
  }

  // critical_path_analysis(...).summary() of one rank (trace/analyze/hta_critical_path.h): HTA's
  // bound_by classes and their time (ns) on the path, cpu_bound's time by host event, and the
  // window ("found": False when no host event carries the annotation). The rank's file is read
  // again with its records (the listing kept for the other calls holds no GPU dependencies) and
  // kept for the next call on the same rank.
  nb::dict critical_path(int64_t rank, const std::string& annotation, int64_t first, int64_t last) {
    std::shared_ptr<CriticalPathCache> cache = cp_cache_;  // the GIL is held here
    trace::HtaCriticalPath cp;
    {
      nb::gil_scoped_release release;
      QuietSignals quiet;
      if (!cache || cache->rank != rank)
        cache = std::make_shared<CriticalPathCache>(paths_.at(rank), rank);
      cp = (*cache->index)(annotation, first, last);
    }
    cp_cache_ = cache;
    nb::dict d;
    d["found"] = cp.found, d["start_ns"] = cp.start_ns, d["end_ns"] = cp.end_ns;
    d["by_class"] = cp.by_class, d["cpu_by_name"] = cp.cpu_by_name;
    return d;
  }

  std::vector<int64_t> ranks() const {
    std::vector<int64_t> out;
    for (const auto& [rank, f] : frames_) out.push_back(rank);
    return out;
  }

  nb::dict dtypes(int64_t rank) const {
    const trace::HtaFrame& f = frames_.at(rank);
    nb::dict d;
    d["ts"] = dtype_name(f.ts_bits), d["dur"] = dtype_name(f.dur_bits);
    d["stream"] = dtype_name(f.stream_bits), d["correlation"] = dtype_name(f.correlation_bits);
    return d;
  }

  // get_temporal_breakdown's row of each rank, in rank order: its figures as NumPy scalars
  // ("error" when HTA raises there instead).
  nb::list temporal() const {
    nb::list out;
    for (const auto& [rank, f] : frames_) {
      const trace::HtaTemporal t = trace::hta_temporal(f, numpy_ts_order);
      nb::dict d;
      d["rank"] = rank;
      d["error"] = t.error ? nb::cast(std::string(t.error)) : nb::none();
      d["idle_time(us)"] = scalar(t.idle), d["compute_time(us)"] = scalar(t.compute);
      d["non_compute_time(us)"] = scalar(t.non_compute);
      d["kernel_time(us)"] = scalar(t.kernel_time);
      d["idle_time_pctg"] = t.idle_pctg, d["compute_time_pctg"] = t.compute_pctg;
      d["non_compute_time_pctg"] = t.non_compute_pctg;
      out.append(d);
    }
    return out;
  }

  // get_idle_time_breakdown of one rank: per stream (those asked, or every one), its
  // categories' codes, idle time and ratio, and with `stats` describe()'s columns, each
  // rounded as HTA rounds its frames (round(2)).
  nb::list idle(int64_t rank, const std::vector<int64_t>& streams, double consecutive_kernel_delay,
                bool stats) const {
    trace::HtaIdleOptions io;
    io.consecutive_kernel_delay_us = consecutive_kernel_delay;
    io.interval_stats = stats;
    io.streams = streams;
    bool wrapped = false;
    nb::list out;
    for (const auto& s : trace::hta_idle(frames_.at(rank), io, numpy_ts_order, &wrapped)) {
      std::vector<int64_t> category;
      std::vector<double> idle_time, ratio;
      std::vector<double> count, mean, std, min, p25, p50, p75, max;
      for (const auto& c : s.categories) {
        category.push_back(static_cast<int64_t>(c.type));
        idle_time.push_back(round2(c.idle_us)), ratio.push_back(round2(c.ratio));
        const auto& i = c.intervals;
        count.push_back(round2(i.count)), mean.push_back(round2(i.mean));
        std.push_back(round2(i.std)), min.push_back(round2(i.min));
        p25.push_back(round2(i.p25)), p50.push_back(round2(i.p50));
        p75.push_back(round2(i.p75)), max.push_back(round2(i.max));
      }
      nb::dict d;
      d["stream"] = s.stream;
      d["idle_category"] = to_numpy(std::move(category));
      d["idle_time"] = to_numpy(std::move(idle_time));
      d["idle_time_ratio"] = to_numpy(std::move(ratio));
      if (stats) {
        d["count"] = to_numpy(std::move(count)), d["mean"] = to_numpy(std::move(mean));
        d["std"] = to_numpy(std::move(std)), d["min"] = to_numpy(std::move(min));
        d["25%"] = to_numpy(std::move(p25)), d["50%"] = to_numpy(std::move(p50));
        d["75%"] = to_numpy(std::move(p75)), d["max"] = to_numpy(std::move(max));
      }
      out.append(d);
    }
    return out;
  }

  // get_cuda_kernel_launch_stats of one rank: its columns, and the NumPy type of each.
  nb::dict launch_stats(int64_t rank) const {
    const trace::HtaFrame& f = frames_.at(rank);
    bool wrapped = false;
    trace::HtaLaunchRows r = trace::hta_launch_rows(f, &wrapped);
    nb::dict d, types;
    d["correlation"] = to_numpy(std::move(r.correlation));
    d["cpu_duration"] = to_numpy(std::move(r.cpu_duration));
    d["gpu_duration"] = to_numpy(std::move(r.gpu_duration));
    d["launch_delay"] = to_numpy(std::move(r.launch_delay));
    types["correlation"] = dtype_name(f.correlation_bits);
    types["cpu_duration"] = types["gpu_duration"] = dtype_name(f.dur_bits);
    types["launch_delay"] = dtype_name(f.end_bits());
    d["dtypes"] = types;
    return d;
  }

  // get_queue_length_summary of one rank: per stream describe()'s columns and the stream
  // column's type; get_time_spent_blocked_on_full_queue's row at max_queue_length ("error":
  // where HTA raises, its exception's name); with `series`, the time series' frame too.
  nb::dict queue(int64_t rank, int64_t max_queue_length, bool with_series) const {
    const trace::HtaFrame& f = frames_.at(rank);
    // The summary, the series and the full queue are one computation: made once.
    auto& cached = queues_[rank];
    if (!cached || cached->first != max_queue_length)
      cached.emplace(max_queue_length, trace::hta_queue(f, max_queue_length, numpy_ts_order));
    const trace::HtaQueue& q = cached->second;
    std::vector<int64_t> stream;
    std::vector<double> count, mean, std, min, p25, p50, p75, max;
    for (const auto& [s, x] : q.length) {
      stream.push_back(s), count.push_back(static_cast<double>(x.count));
      mean.push_back(x.mean), std.push_back(x.std), min.push_back(x.min);
      p25.push_back(x.p25), p50.push_back(x.p50), p75.push_back(x.p75), max.push_back(x.max);
    }
    nb::dict d;
    d["error"] = q.length_error, d["full_error"] = q.full_error;
    d["stream_dtype"] = dtype_name(q.float_stream ? 0 : f.stream_bits);
    d["stream"] = to_numpy(std::move(stream));
    d["count"] = to_numpy(std::move(count)), d["mean"] = to_numpy(std::move(mean));
    d["std"] = to_numpy(std::move(std)), d["min"] = to_numpy(std::move(min));
    d["25%"] = to_numpy(std::move(p25)), d["50%"] = to_numpy(std::move(p50));
    d["75%"] = to_numpy(std::move(p75)), d["max"] = to_numpy(std::move(max));
    d["full"] = q.full.present ? nb::cast(std::vector<double>{static_cast<double>(q.full.stream),
                                                              q.full.duration_us, q.full.relative})
                               : nb::none();
    if (!with_series) return d;
    // get_queue_length_time_series' frame: its rows, and the pid and tid of each (objects, made
    // only when asked: a Python object per row).
    std::vector<int64_t> index, series_stream, length;
    std::vector<double> ts;
    nb::list pid, tid;
    for (const trace::HtaQueuePoint& p : q.series) {
      index.push_back(p.index), ts.push_back(p.ts), series_stream.push_back(p.stream);
      length.push_back(p.length);
      pid.append(id_value(f.gpu_pid.at(p.gpu), f.id_text));
      tid.append(id_value(f.gpu_tid.at(p.gpu), f.id_text));
    }
    nb::dict series, types;
    series["index"] = to_numpy(std::move(index)), series["ts"] = to_numpy(std::move(ts));
    series["pid"] = pid, series["tid"] = tid;
    series["stream"] = to_numpy(std::move(series_stream));
    series["queue_length"] = to_numpy(std::move(length));
    // A launch joined to no GPU row has NaN pid, tid and stream: integer columns become float64.
    const auto joined = [&](int bits) { return q.float_stream && bits > 0 ? 0 : bits; };
    types["index"] = dtype_name(q.range_index ? 64 : f.index_bits);
    types["ts"] = dtype_name(f.ts_bits);
    types["pid"] = id_dtype(joined(f.pid_bits)), types["tid"] = id_dtype(joined(f.tid_bits));
    types["stream"] = d["stream_dtype"], types["queue_length"] = "int64";
    series["dtypes"] = types;
    d["series"] = series;
    return d;
  }

  // get_time_spent_blocked_on_full_queue of one rank from its queue length series' columns (any
  // caller's frame, in its row order): (stream, duration, relative) or None; "error" where HTA
  // raises.
  // The series' columns as NumPy arrays (int64, float64): read in place, not as Python lists.
  using Ints = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig>;
  using Doubles = nb::ndarray<const double, nb::ndim<1>, nb::c_contig>;
  nb::dict full_queue(int64_t rank, Ints index, Doubles ts, Ints stream, Ints length,
                      int64_t max_queue_length) const {
    const trace::HtaFrame& f = frames_.at(rank);
    const size_t n = index.shape(0);
    if (ts.shape(0) != n || stream.shape(0) != n || length.shape(0) != n)
      throw std::invalid_argument("full_queue: columns of different lengths");
    std::vector<trace::HtaQueuePoint> ql(n);
    for (size_t k = 0; k < n; ++k) ql[k] = {index(k), ts(k), stream(k), length(k), 0};
    bool wrapped = false;
    std::string error;
    const trace::HtaFullQueue q =
        trace::hta_full_queue(ql, trace::hta_trace_duration(f, &wrapped), max_queue_length, &error);
    nb::dict d;
    d["error"] = error;
    d["full"] = q.present ? nb::object(nb::make_tuple(q.stream, q.duration_us, q.relative))
                          : nb::object(nb::none());
    return d;
  }

  // get_gpu_kernel_breakdown: kernel_type_df's columns, and per rank and kernel type the rows
  // of the kernel frame (name order) with their columns' type ("error": where HTA raises).
  nb::dict kernel_breakdown(double duration_ratio, int64_t num_kernels,
                            bool include_memory_kernels) const {
    trace::HtaKernelBreakdown b = trace::hta_gpu_kernel_breakdown(
        frames_, duration_ratio, num_kernels, include_memory_kernels, numpy_ts_order);
    nb::dict d;
    d["error"] = b.error;
    d["kernel_type"] = b.type_name;
    d["sum"] = to_numpy(std::move(b.type_sum));
    d["percentage"] = to_numpy(std::move(b.type_percentage));
    nb::list kernels;
    for (const trace::HtaKernelGroup& g : b.kernels) {
      std::vector<std::string> name;
      std::vector<double> sum, max, min, mean, std;
      for (const auto& r : g.rows) {
        name.push_back(r.name), sum.push_back(r.sum), max.push_back(r.max);
        min.push_back(r.min), mean.push_back(r.mean), std.push_back(r.std);
      }
      // The columns' types: dur's (an integer dur sums in int64), or the sums' once regrouped.
      const int dur_bits = frames_.at(g.rank).dur_bits;
      nb::dict k, types;
      k["rank"] = g.rank, k["kernel_type"] = g.kernel_type, k["name"] = name;
      k["sum"] = to_numpy(std::move(sum)), k["max"] = to_numpy(std::move(max));
      k["min"] = to_numpy(std::move(min)), k["mean"] = to_numpy(std::move(mean));
      k["std"] = to_numpy(std::move(std));
      types["sum"] = dtype_name(dur_bits ? 64 : 0);
      types["max"] = types["min"] = dtype_name(g.aggregated && dur_bits ? 64 : dur_bits);
      types["mean"] = types["std"] = dtype_name(0);
      // A rank without GPU rows: HTA's name column is an empty apply()'s, object; else text.
      types["name"] = frames_.at(g.rank).gpu_ts.empty() ? "object" : "str";
      k["dtypes"] = types;
      kernels.append(k);
    }
    d["kernels"] = kernels;
    return d;
  }

  // get_memory_bw_time_series of one rank: its rows (labels, ts, pid objects, name, bandwidth)
  // with the ts and pid columns' types; get_memory_bw_summary's describe() per name.
  nb::dict memory_bw(int64_t rank) const {
    const trace::HtaFrame& f = frames_.at(rank);
    trace::HtaMemoryBw m = trace::hta_memory_bw(f, numpy_ts_order);
    nb::list pid;
    for (size_t g : m.gpu) pid.append(id_value(f.gpu_pid.at(g), f.id_text));
    nb::dict d, types;
    d["index"] = to_numpy(std::move(m.label)), d["ts"] = to_numpy(std::move(m.ts));
    d["pid"] = pid, d["name"] = m.name, d["memory_bw_gbps"] = to_numpy(std::move(m.bw));
    types["ts"] = dtype_name(m.ts_bits), types["pid"] = id_dtype(f.pid_bits);
    d["dtypes"] = types;
    std::vector<double> count, mean, std, min, p25, p50, p75, max;
    for (const auto& s : m.summary) {
      count.push_back(s.count), mean.push_back(s.mean), std.push_back(s.std);
      min.push_back(s.min), p25.push_back(s.p25), p50.push_back(s.p50);
      p75.push_back(s.p75), max.push_back(s.max);
    }
    nb::dict summary;
    summary["name"] = m.summary_name;
    summary["count"] = to_numpy(std::move(count)), summary["mean"] = to_numpy(std::move(mean));
    summary["std"] = to_numpy(std::move(std)), summary["min"] = to_numpy(std::move(min));
    summary["25%"] = to_numpy(std::move(p25)), summary["50%"] = to_numpy(std::move(p50));
    summary["75%"] = to_numpy(std::move(p75)), summary["max"] = to_numpy(std::move(max));
    d["summary"] = summary;
    return d;
  }

  // get_comm_comp_overlap: each rank's overlap ratio and its percentage (round(100 * ratio, 2)).
  nb::dict comm_comp_overlap() const {
    std::vector<int64_t> rank;
    std::vector<double> ratio, pctg;
    for (const auto& [r, f] : frames_) {
      const trace::HtaCommOverlap o = trace::hta_comm_comp_overlap(f, numpy_ts_order);
      rank.push_back(r), ratio.push_back(o.ratio), pctg.push_back(o.pctg);
    }
    nb::dict d;
    d["rank"] = to_numpy(std::move(rank));
    d["comp_comm_overlap_ratio"] = to_numpy(std::move(ratio));
    d["comp_comm_overlap_pctg"] = to_numpy(std::move(pctg));
    return d;
  }

  // get_profiler_steps: every rank's step numbers (not -1), once each, sorted.
  std::vector<int64_t> profiler_steps() const {
    std::set<int64_t> steps;
    for (const auto& [r, f] : frames_)
      for (int32_t n : f.step_iters)
        if (n != -1) steps.insert(n);
    return {steps.begin(), steps.end()};
  }

  // What HTA's symbol table numbers names from: per rank with rows, ascending, its categories,
  // its names (first appearance) and where a missing name first comes (-1: none).
  nb::list symbol_lists() const {
    nb::list out;
    for (const auto& [r, f] : frames_)
      if (f.has_rows)
        out.append(nb::make_tuple(f.symbol_cats, f.symbol_names, f.symbol_name_missing_at));
    return out;
  }

  // get_potential_stragglers' counts per rank, or HTA's error; the metric HTA plots.
  nb::dict stragglers(const std::vector<int64_t>& steps, int64_t num_candidates,
                      const std::map<std::string, int64_t>& name_ids) const {
    trace::HtaStragglers s =
        trace::hta_potential_stragglers(frames_, steps, num_candidates, name_ids);
    nb::dict d;
    d["error_type"] = s.error_type, d["error"] = s.error;
    d["ranks"] = to_numpy(std::move(s.ranks)), d["counts"] = to_numpy(std::move(s.counts));
    d["metric_rank"] = to_numpy(std::move(s.metric_rank));
    d["metric_iteration"] = to_numpy(std::move(s.metric_iteration));
    d["metric"] = to_numpy(std::move(s.metric));
    d["is_straggler"] = std::vector<bool>(s.is_straggler.begin(), s.is_straggler.end());
    d["stream"] = s.stream, d["name"] = s.name, d["mean_iter_time"] = s.mean_iter_time;
    return d;
  }

 private:
  std::map<int64_t, trace::HtaFrame> frames_;
  std::map<int64_t, std::string> paths_;  // each rank's file
  // Each rank's queue for the last max length asked (the series is the same for any; HTA's full
  // queue is not): the calls that follow one another ask the same length.
  mutable std::map<int64_t, std::optional<std::pair<int64_t, trace::HtaQueue>>> queues_;
  // One rank's records for the critical path: the last rank asked. Shared, so that a call on
  // another thread (the GIL is released while it runs) keeps the one it started with.
  struct CriticalPathCache {
    CriticalPathCache(const std::string& path, int64_t r) : rank(r) {
      trace::ImportOptions io;  // kernel names once each: the classes need no more
      io.kernel_names = false, io.kernel_name_ids = true;
      trace = trace::import_file(path, io);
      index = std::make_unique<trace::HtaCriticalPathIndex>(trace);
    }
    int64_t rank;
    trace::ImportedTrace trace;
    std::unique_ptr<trace::HtaCriticalPathIndex> index;  // refers to `trace`
  };
  std::shared_ptr<CriticalPathCache> cp_cache_;
};

}  // namespace

void register_hta(nb::module_& m) {
  nb::class_<HtaTraces>(m, "HtaTraces",
                        "HTA's load of every rank and its calls' figures (trace/analyze/hta_*.h), "
                        "by 0.6.1's rules or 0.5.0's; reads the files with the GIL released.")
      .def(nb::init<const std::vector<std::string>&, bool, bool>(), "paths"_a,
           "ns_rounding"_a = true, "v05"_a = false)
      .def_prop_ro("ranks", &HtaTraces::ranks)
      .def("critical_path", &HtaTraces::critical_path, "rank"_a, "annotation"_a, "first"_a,
           "last"_a)
      .def("dtypes", &HtaTraces::dtypes, "rank"_a)
      .def("temporal", &HtaTraces::temporal)
      .def("idle", &HtaTraces::idle, "rank"_a, "streams"_a, "consecutive_kernel_delay"_a, "stats"_a)
      .def("launch_stats", &HtaTraces::launch_stats, "rank"_a)
      .def("queue", &HtaTraces::queue, "rank"_a, "max_queue_length"_a, "series"_a = false)
      .def("full_queue", &HtaTraces::full_queue, "rank"_a, "index"_a, "ts"_a, "stream"_a,
           "length"_a, "max_queue_length"_a)
      .def("kernel_breakdown", &HtaTraces::kernel_breakdown, "duration_ratio"_a, "num_kernels"_a,
           "include_memory_kernels"_a)
      .def("memory_bw", &HtaTraces::memory_bw, "rank"_a)
      .def("comm_comp_overlap", &HtaTraces::comm_comp_overlap)
      .def("profiler_steps", &HtaTraces::profiler_steps)
      .def("symbol_lists", &HtaTraces::symbol_lists)
      .def("stragglers", &HtaTraces::stragglers, "steps"_a, "num_candidates"_a, "name_ids"_a);
}

}  // namespace pyiris
