#include "trace/analyze/hta_frames.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include "trace/analyze/hta_rows.h"
#include "trace/analyze/keyed_values.h"

// File references below are to HolisticTraceAnalysis 0.5.0 (pip holistictraceanalysis==0.5.0),
// numpy 2.4 and pandas 3.1, the versions tests/data/hta_expected/README.md records.
namespace trace {
namespace {

// One row of HTA's per-rank DataFrame.
struct Row {
  const HtaEvent* e;
  double ts, dur;      // after round_down_time_stamps and _align_all_ranks
  bool gpu;            // trace_filter.py, _filter_gpu_kernels_with_cuda_sync
  int64_t index_corr;  // trace.py, transform_correlation_to_index
  int64_t iteration;   // trace.py, add_iteration (kHtaNoIteration: NaN)
};

// trace.py, add_iteration's host rule, on the rank's own times (it runs at parse, before the
// alignment): the last step row in file order whose [ts, ts + dur) holds the row's ts, else -1.
// A step name without a number makes HTA's parse raise; such a row is no step here.
void set_host_iterations(std::vector<Row>& rows, HtaVersion v) {
  std::vector<const Row*> steps;
  for (const Row& r : rows)
    if ((r.e->flags & HtaEvent::kStepPrefixName) && r.e->step_iter >= 0) steps.push_back(&r);
  for (Row& r : rows) {
    r.iteration = kHtaNoIteration;
    const bool cpu_op_on_0 = v == HtaVersion::V0_6 && r.e->stream == 0 &&
                             (r.e->flags & HtaEvent::kCpuOpCat);  // 0.6.1's triton rule
    if (r.e->stream >= 0 && !cpu_op_on_0) continue;
    r.iteration = -1;
    for (auto s = steps.rbegin(); s != steps.rend(); ++s)
      if ((*s)->ts <= r.ts && r.ts < (*s)->ts + (*s)->dur) {
        r.iteration = (*s)->e->step_iter;
        break;
      }
  }
}

// add_iteration's GPU rule: a row on stream > 0 takes its host row's iteration (index_correlation
// > 0), else -1. The host row is on stream < 0, whose iteration is already set.
void set_gpu_iterations(std::vector<Row>& rows) {
  KeyedValues<int64_t> by_index(
      [&](auto visit) {
        for (const Row& r : rows) visit(r.e->index);
      },
      kHtaNoIteration);
  for (const Row& r : rows) by_index[r.e->index] = r.iteration;
  for (Row& r : rows)
    if (r.e->stream > 0) r.iteration = r.index_corr > 0 ? by_index.get(r.index_corr) : -1;
}

// A rank's column types: 0 for float64, else the width in bits of the integer type HTA keeps.
// trace_parser.py, _compress_df, downcasts every integer column to the smallest of int8,
// int16, int32, int64 that holds its values (pd.to_numeric(downcast="integer")), and numpy
// arithmetic on such columns wraps around: ts = 124 and dur = 7 as int8 end at -125.
struct Dtypes {
  int ts_bits = 0, dur_bits = 0;
};

// A rank's frame after HTA's load: index_correlation set on `rows`, the step filter applied.
std::vector<const Row*> loaded_frame(std::vector<Row>& rows, bool filter_steps, HtaVersion v) {
  // trace.py, transform_correlation_to_index: index_correlation starts as min(correlation, 0);
  // rows with correlation != -1 are split into CPU and GPU rows and merged on correlation, and
  // each row takes the index of the last partner the merge lists (partners in file order).
  const auto correlated = [&](auto visit) {
    for (const Row& r : rows)
      if (r.e->correlation != -1) visit(r.e->correlation);
  };
  constexpr int64_t kNoRow = INT64_MIN;  // a row index is never negative
  KeyedValues<int64_t> last_cpu(correlated, kNoRow), last_gpu(last_cpu, kNoRow);
  for (const Row& r : rows)
    if (r.e->correlation != -1) (r.gpu ? last_gpu : last_cpu)[r.e->correlation] = r.e->index;
  for (Row& r : rows) {
    r.index_corr = std::min<int64_t>(r.e->correlation, 0);
    if (r.e->correlation == -1) continue;
    const int64_t partner = (r.gpu ? last_cpu : last_gpu).get(r.e->correlation);
    if (partner != kNoRow) r.index_corr = partner;
  }
  set_gpu_iterations(rows);

  // trace.py, Trace._filter_irrelevant_gpu_kernels (include_last_profiler_step=False): CPU rows
  // before the last ProfilerStep's start; GPU rows inner-merged on correlation with them (one
  // copy per match); pd.concat([gpu, cpu]). No step on this rank: max() is NaN, nothing kept.
  // 0.6.1 keeps a rank without CPU rows whole, and counts only ^ProfilerStep#\d+ as steps.
  const bool v06 = v == HtaVersion::V0_6;
  const uint16_t step_flag = v06 ? HtaEvent::kStep06Name : HtaEvent::kStepName;
  std::vector<const Row*> df;
  if (filter_steps && v06 &&
      std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.gpu; }))
    filter_steps = false;
  if (filter_steps) {
    double last_start = kHtaNaN;
    for (const Row& r : rows)
      if (!r.gpu && (r.e->flags & step_flag))
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

// The type pandas gives a "pid" or "tid" column of these kinds of value (ListedId, over every
// event of the file), downcast (integers) over the kept rows' values as _compress_df does.
int id_bits(uint8_t kinds, const HtaEvents& events, ListedId HtaEvent::*id) {
  const auto has = [&](ListedId::Kind k) { return (kinds >> k) & 1u; };
  if (has(ListedId::kText) || has(ListedId::kOther)) return -1;
  if (has(ListedId::kAbsent) || has(ListedId::kFloat)) return 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& e : events.rows) lo = std::min(lo, (e.*id).i), hi = std::max(hi, (e.*id).i);
  return lo <= hi ? downcast_bits(lo, hi) : 64;
}

// The integer columns' widths, as HTA's downcast leaves them over the rank's rows.
void set_column_bits(const HtaEvents& events, HtaFrame* f) {
  int64_t s_lo = INT64_MAX, s_hi = INT64_MIN, c_lo = INT64_MAX, c_hi = INT64_MIN;
  for (const auto& e : events.rows) {
    s_lo = std::min(s_lo, e.stream), s_hi = std::max(s_hi, e.stream);
    c_lo = std::min(c_lo, e.correlation), c_hi = std::max(c_hi, e.correlation);
  }
  f->stream_bits = downcast_bits(s_lo, s_hi), f->correlation_bits = downcast_bits(c_lo, c_hi);
  // trace_parser.py: "index" is downcast again over the kept rows, as every integer column.
  int64_t i_lo = INT64_MAX, i_hi = INT64_MIN;
  for (const auto& e : events.rows) i_lo = std::min(i_lo, e.index), i_hi = std::max(i_hi, e.index);
  f->index_bits = downcast_bits(i_lo, i_hi);
  f->pid_bits = id_bits(events.pid_kinds, events, &HtaEvent::pid);
  f->tid_bits = id_bits(events.tid_kinds, events, &HtaEvent::tid);
}

// What get_potential_stragglers reads of a loaded frame besides the GPU rows' iterations: each
// iteration's first start and last end, and the symbols HTA numbers names by.
void set_iteration_rows(const HtaEvents& events, const std::vector<const Row*>& df, HtaFrame* f) {
  constexpr int kBits[4] = {8, 16, 32, 64};
  std::map<int64_t, HtaIterationSpan> spans;
  const int own = f->end_bits();
  for (const Row* r : df) {
    if (r->iteration < 0) continue;  // NaN or -1: no step selects it
    HtaIterationSpan& s = spans[r->iteration];
    s.iteration = r->iteration;
    if (!std::isnan(r->ts)) s.min_ts = std::isnan(s.min_ts) ? r->ts : std::min(s.min_ts, r->ts);
    for (int k = 0; k < 4; ++k) {
      if (own && kBits[k] < own) continue;  // a concatenation is never narrower than a rank
      bool wrapped = false;
      const double end = column_op(r->ts, r->dur, own ? kBits[k] : 0, &wrapped);
      if (!std::isnan(end))
        s.max_end[k] = std::isnan(s.max_end[k]) ? end : std::max(s.max_end[k], end);
    }
  }
  for (const auto& [it, s] : spans) f->iteration_spans.push_back(s);
  for (uint32_t c : events.cat_order) f->symbol_cats.push_back(events.strings()[c]);
  for (uint32_t n : events.name_order) f->symbol_names.push_back(events.strings()[n]);
  f->symbol_name_missing_at = events.name_missing_at;
}

// The rows HTA's analyzers read, from one rank's loaded frame.
HtaFrame frame_of(const HtaEvents& events, std::vector<Row>& rows, Dtypes types, bool filter_steps,
                  HtaVersion v) {
  const bool v06 = v == HtaVersion::V0_6;
  const uint16_t compute = v06 ? HtaEvent::kCompute06Name : HtaEvent::kComputeName;
  const uint16_t queue_launch = v06 ? HtaEvent::kQueueLaunch06Name : HtaEvent::kQueueLaunchName;
  const uint16_t comm = v06 ? HtaEvent::kComm06Name : HtaEvent::kComm05Name;
  HtaFrame f;
  f.ts_bits = types.ts_bits, f.dur_bits = types.dur_bits;
  if (rows.empty()) return f;
  set_column_bits(events, &f);
  std::map<uint32_t, uint32_t> name_at;  // string -> index into f.gpu_names
  const auto keep_name = [&](uint32_t name) {
    if (name == ListedEvent::kNone) return ListedEvent::kNone;
    const auto [it, added] = name_at.try_emplace(name, static_cast<uint32_t>(f.gpu_names.size()));
    if (added) f.gpu_names.push_back(events.strings()[name]);
    return it->second;
  };
  std::map<int64_t, int64_t> text_at;  // listing string -> index into f.id_text
  const auto keep_id = [&](ListedId id) {
    if (id.kind != ListedId::kText) return id;
    const auto [it, added] = text_at.try_emplace(id.i, static_cast<int64_t>(f.id_text.size()));
    if (added) f.id_text.push_back(events.strings()[static_cast<size_t>(id.i)]);
    id.i = it->second;
    return id;
  };
  const std::vector<const Row*> df = loaded_frame(rows, filter_steps, v);
  constexpr uint16_t kLaunch = HtaEvent::kLaunchName | HtaEvent::kMemAsyncName;
  KeyedValues<uint8_t> corrs(  // the launches' correlations
      [&](auto visit) {
        for (const Row* r : df)
          if (r->e->flags & kLaunch) visit(r->e->correlation);
      },
      0);
  KeyedValues<uint8_t> wanted(  // the kernels' index_correlation
      [&](auto visit) {
        for (const Row* r : df)
          if (r->e->stream != -1 && (r->e->flags & HtaEvent::kKernelCat)) visit(r->index_corr);
      },
      0);
  f.ts_min = std::numeric_limits<double>::infinity(), f.ts_max = -f.ts_min;
  for (const Row* r : df) {
    f.ts_min = std::min(f.ts_min, r->ts), f.ts_max = std::max(f.ts_max, r->ts);
    if (r->e->flags & HtaEvent::kStepPrefixName) f.step_iters.push_back(r->e->step_iter);
    if (r->e->flags & kLaunch) corrs[r->e->correlation] = 1;
    if ((r->e->flags & queue_launch) && r->index_corr > 0) {
      f.queue_index.push_back(r->e->index), f.queue_correlation.push_back(r->e->correlation);
      f.queue_ts.push_back(r->ts);
    }
    if (r->e->stream == -1) continue;
    f.gpu_index.push_back(r->e->index), f.gpu_stream.push_back(r->e->stream);
    f.gpu_correlation.push_back(r->e->correlation);
    f.gpu_index_correlation.push_back(r->index_corr);
    f.gpu_ts.push_back(r->ts), f.gpu_dur.push_back(r->dur), f.gpu_iteration.push_back(r->iteration);
    f.gpu_kernel_cat.push_back((r->e->flags & HtaEvent::kKernelCat) != 0);
    f.gpu_compute.push_back((r->e->flags & compute) != 0);
    f.gpu_comm.push_back((r->e->flags & comm) != 0);
    if (r->e->flags & HtaEvent::kKernelCat) wanted[r->index_corr] = 1;
    f.gpu_pid.push_back(keep_id(r->e->pid)), f.gpu_tid.push_back(keep_id(r->e->tid));
    f.gpu_name.push_back(keep_name(r->e->name));
    f.gpu_memory_bw.push_back(r->e->memory_bw_gbps);
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
  f.has_rows = true;
  set_iteration_rows(events, df, &f);
  for (size_t i = 0; i < f.gpu_ts.size(); ++i)
    column_op(f.gpu_ts[i], f.gpu_dur[i], f.end_bits(), &f.int_wrapped);
  return f;
}

// Every rank's rows as HTA's parse, rounding and alignment leave them (before its filter).
struct LoadedRanks {
  std::vector<HtaEvents> events;
  std::vector<std::vector<Row>> rows;
  std::vector<Dtypes> types;
  bool filter_steps = false;
};

// Each rank's HTA rows, by its position in the traces.
using EventsOf = std::function<HtaEvents(size_t)>;

LoadedRanks load_ranks(const std::vector<const ImportedTrace*>& traces, const EventsOf& events_of,
                       const HtaOptions& options) {
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
    const HtaEvents& t = events[k] = events_of(k);
    const bool round = options.ns_rounding && t.float_ts;
    const bool ts_int = round ? !t.missing_ts : !t.float_ts;
    const bool dur_int = round ? !t.missing_ts && !t.missing_dur : !t.float_dur;
    double rank_min = std::numeric_limits<double>::infinity(), rank_max = -rank_min;
    double dur_min = rank_min, dur_max = -rank_min;
    rows[k].reserve(t.rows.size());
    for (const auto& e : t.rows) {
      Row r{&e, e.ts_us, e.dur_us, false, 0, kHtaNoIteration};
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
    set_host_iterations(rows[k], options.version);
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
  for (const auto& e : events) {
    const auto& names = options.version == HtaVersion::V0_6 ? e.step_names_06 : e.step_names;
    step_names.insert(names.begin(), names.end());
  }
  loaded.filter_steps = step_names.size() >= 2;
  return loaded;
}

}  // namespace

namespace {

std::map<int64_t, HtaFrame> frames_of(const std::vector<const ImportedTrace*>& traces,
                                      const EventsOf& events_of, const HtaOptions& options) {
  LoadedRanks loaded = load_ranks(traces, events_of, options);
  std::map<int64_t, HtaFrame> out;
  for (size_t k = 0; k < traces.size(); ++k) {
    out[traces[k]->rank] = frame_of(loaded.events[k], loaded.rows[k], loaded.types[k],
                                    loaded.filter_steps, options.version);
    loaded.events[k] = {}, loaded.rows[k] = {};  // this rank's rows are in its frame now
  }
  return out;
}

}  // namespace

std::map<int64_t, HtaFrame> hta_frames(const std::vector<const ImportedTrace*>& traces,
                                       const HtaOptions& options) {
  return frames_of(
      traces, [&](size_t k) { return hta_events(*traces[k]); }, options);
}

std::map<int64_t, HtaFrame> hta_frames(std::vector<ImportedTrace>* traces,
                                       const HtaOptions& options) {
  std::vector<const ImportedTrace*> ptrs;
  for (const auto& t : *traces) ptrs.push_back(&t);
  const auto release = [&](size_t k) {
    HtaEvents events = hta_events((*traces)[k]);
    std::vector<ListedEvent>().swap((*traces)[k].listing.events);  // the rows hold what HTA uses
    return events;
  };
  return frames_of(ptrs, release, options);
}

}  // namespace trace
