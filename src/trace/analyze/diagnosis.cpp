#include "trace/analyze/diagnosis.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "trace/analyze/blocking_calls.h"
#include "trace/analyze/finding.h"

namespace trace {
namespace {

size_t at(Bound b) { return static_cast<size_t>(b); }
size_t at(KernelClass c) { return static_cast<size_t>(c); }

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
  return buf;
}

// Host items of several windows as one list, most time first.
void merge_items(std::vector<HostWait>* into, const std::vector<HostWait>& add) {
  for (const auto& h : add) {
    auto it = std::find_if(into->begin(), into->end(), [&](const HostWait& x) {
      return x.name == h.name && x.level == h.level && x.bound == h.bound;
    });
    if (it == into->end())
      into->push_back(h);
    else
      it->ns += h.ns;
  }
}

void sort_items(std::vector<HostWait>* items) {
  std::sort(items->begin(), items->end(),
            [](const HostWait& x, const HostWait& y) { return x.ns > y.ns; });
}

void add_window(StepBounds* sum, const StepBounds& s) {
  sum->wall_ns += s.wall_ns;
  for (size_t i = 0; i < kBounds; ++i) sum->ns[i] += s.ns[i];
  for (size_t i = 0; i < kKernelClasses; ++i) sum->kernel_ns[i] += s.kernel_ns[i];
  sum->launch_latency_ns += s.launch_latency_ns;
  sum->launched += s.launched, sum->kernels += s.kernels;
  sum->cold_ns += s.cold_ns;
  merge_items(&sum->host, s.host);
}

const HostWait* top_item(const Diagnosis& d, Bound b) {
  for (const auto& h : d.steady.host)
    if (h.bound == b && h.ns) return &h;
  return nullptr;
}

std::string item_name(const HostWait* h) {
  if (!h) return "";
  if (h->name.empty()) return "(no event on any thread)";
  if (std::string(h->level) == "range") return "range " + h->name + " with no op open";
  if (std::string(h->level) == "sample") return h->name + " (in CPU samples, nothing traced)";
  return h->name + " (" + h->level + ")";
}

// Per steady step: a class's summed time divided by the number of steady windows.
uint64_t per_step(const Diagnosis& d, uint64_t ns) {
  const size_t n = d.windows - d.cold_windows;
  return n ? ns / n : ns;
}

struct KernelMix {
  uint64_t fp32_gemm_ns = 0, softmax_ns = 0, attention_ns = 0;
};

// The window t falls in (windows sorted by start, not overlapping), or SIZE_MAX.
size_t window_of(const std::vector<std::pair<uint64_t, uint64_t>>& w, uint64_t t) {
  auto it = std::upper_bound(w.begin(), w.end(), std::make_pair(t, UINT64_MAX));
  if (it == w.begin() || t >= std::prev(it)->second) return SIZE_MAX;
  return static_cast<size_t>(std::prev(it) - w.begin());
}

bool inside(const std::vector<std::pair<uint64_t, uint64_t>>& w, uint64_t t) {
  return window_of(w, t) != SIZE_MAX;
}

KernelMix kernel_mix(const RecordSet& r, const std::vector<std::pair<uint64_t, uint64_t>>& w) {
  KernelMix m;
  struct Kinds {
    bool fp32_gemm, softmax, attention;
  };
  std::unordered_map<std::string_view, Kinds> kinds;  // each name classified once
  for (const auto& k : r.kernels) {
    if (!inside(w, k.start_ns)) continue;
    const std::string& n = kernel_name(r, k);
    auto it = kinds.find(n);
    if (it == kinds.end())
      it = kinds
               .emplace(n, Kinds{is_fp32_gemm(n),
                                 n.find("softmax") != std::string::npos ||
                                     n.find("Softmax") != std::string::npos,
                                 kernel_class(n) == KernelClass::Attention})
               .first;
    const uint64_t len = k.end_ns - k.start_ns;
    if (it->second.fp32_gemm) m.fp32_gemm_ns += len;
    if (it->second.softmax) m.softmax_ns += len;
    if (it->second.attention) m.attention_ns += len;
  }
  return m;
}

// Bytes and time of pageable copies in the windows: the copies pinned memory would speed up.
uint64_t pageable_copy_ns(const RecordSet& r, const std::vector<std::pair<uint64_t, uint64_t>>& w) {
  uint64_t ns = 0;
  for (const auto& c : r.memcpys) {
    if (c.src != MemoryKind::Pageable && c.dst != MemoryKind::Pageable) continue;
    if (inside(w, c.start_ns)) ns += c.end_ns - c.start_ns;
  }
  return ns;
}

// The fix for host work the GPU waits on, by what the work is (R10, R15).
Diagnosed other_host(const Diagnosis& d) {
  const HostWait* h = top_item(d, Bound::OtherHost);
  Diagnosed f;
  f.what = std::string("other host work ") + percent(d.steady.share(Bound::OtherHost));
  f.where = item_name(h);
  if (h) f.item = h->name;
  const std::string n = h ? h->name : "";
  const HostWork kind = host_work(n);
  if (kind == HostWork::DataLoading) {
    f.fix =
        "load data in DataLoader workers (num_workers, pin_memory, prefetch_factor) so the "
        "next batch is ready while the GPU runs";
  } else if (kind == HostWork::Allocation) {
    f.fix =
        "keep the allocator's cache between steps (no torch.cuda.empty_cache() in the loop, "
        "stable shapes)";
  } else if (h && std::string(h->level) == "range") {
    f.fix = "find the Python or other host work inside " + n +
            " between its ops (profile with with_stack=True), then move it off the GPU's "
            "critical path; a CUDA graph does not remove it";
  } else {
    f.fix = "move " + (n.empty() ? std::string("this work") : n) +
            " off the GPU's critical path: overlap it with the GPU's work (a worker, a thread, "
            "prefetch) or run it on the GPU; a CUDA graph does not remove it";
  }
  f.saving_ns = per_step(d, h ? h->ns : 0);
  f.assumption = "the work can run while the GPU computes (nothing launched right after needs it)";
  return f;
}

// The steady steps' kernel sequences and blocking calls (CaptureCheck). Kernels in start order,
// each to the window it starts in, found once.
CaptureCheck check_capture(const RecordSet& r,
                           const std::vector<std::pair<uint64_t, uint64_t>>& steady) {
  CaptureCheck c;
  c.checked = true, c.steps = steady.size();
  if (steady.empty()) return c;
  std::vector<std::tuple<uint64_t, uint32_t, size_t>> order;  // (start, kernel, its window)
  for (uint32_t i = 0; i < r.kernels.size(); ++i) {
    const size_t w = window_of(steady, r.kernels[i].start_ns);
    if (w != SIZE_MAX) order.emplace_back(r.kernels[i].start_ns, i, w);
  }
  std::sort(order.begin(), order.end());
  std::vector<uint64_t> hash(steady.size(), 1469598103934665603ull), count(steady.size(), 0);
  for (const auto& [start, i, w] : order) {
    hash[w] =
        (hash[w] ^ std::hash<std::string_view>{}(kernel_name(r, r.kernels[i]))) * 1099511628211ull;
    ++count[w];
  }
  std::map<std::pair<uint64_t, uint64_t>, size_t> sequences;  // (hash, count) -> steps
  for (size_t w = 0; w < steady.size(); ++w) ++sequences[{hash[w], count[w]}];
  for (const auto& [seq, n] : sequences)
    if (n > c.same) c.same = n, c.kernels = seq.second;
  const auto copy_of = copies_by_correlation(r);
  for (const auto& a : r.api) {
    if (!inside(steady, a.start_ns)) continue;
    const auto it = a.kind == ApiKind::Memcpy ? copy_of.find(a.correlation_id) : copy_of.end();
    if (blocking_kind(a, it == copy_of.end() ? nullptr : &r.memcpys[it->second]) != Blocking::No)
      ++c.blocking;
  }
  return c;
}

// What the capture check found, for the graph's saving to rest on.
std::string capture_found(const Diagnosis& d) {
  const CaptureCheck& c = d.capture;
  std::string out;
  if (c.steps < 2)
    out = "one steady step: whether its kernels repeat is not seen";
  else if (c.same == c.steps)
    out = "the " + std::to_string(c.steps) + " steady steps launch the same " +
          std::to_string(c.kernels) + " kernels in the same order (shapes look static)";
  else
    out = std::to_string(c.same) + " of the " + std::to_string(c.steps) +
          " steady steps launch the same " + std::to_string(c.kernels) +
          " kernels in the same order; the others differ (shapes or control flow that change "
          "need a graph each; a cut last step differs too)";
  if (c.blocking)
    out += "; " + std::to_string(c.blocking) +
           " blocking call(s) in them (host reads of GPU data) must move out of the captured part";
  else
    out += "; no blocking call in them";
  return out;
}

Diagnosed per_op_host(const Diagnosis& d, const DiagnosisOptions& o) {
  Diagnosed f;
  f.what = std::string("per-op host overhead ") + percent(d.steady.share(Bound::PerOpHost));
  if (d.launch_call_ns)
    f.what +=
        " (launch calls " +
        percent(static_cast<double>(d.launch_call_ns) / static_cast<double>(d.steady.wall_ns)) +
        ")";
  f.where = item_name(top_item(d, Bound::PerOpHost));
  const uint64_t step = d.steady_step_ns;
  const uint64_t gpu = per_step(d, d.steady.gpu_busy_ns());
  if (d.launch_bound || (d.host_side() && d.steady.share(Bound::PerOpHost) >= 0.5)) {
    f.fix =
        "capture the step in a CUDA graph (torch.compile(mode=\"reduce-overhead\"), or "
        "torch.cuda.graphs in C++/Python)";
    // A graph holds only the per-op path: the other host work stays on the host.
    const uint64_t other = per_step(d, d.steady.ns[at(Bound::OtherHost)]);
    const uint64_t graph_step = std::max(gpu, o.graph_replay_ns + other);
    f.saving_ns = step > graph_step ? step - graph_step : 0;
    f.assumption = "the step is capturable: " + capture_found(d);
    if (other)
      f.assumption += "; its other host work (" + ms_or_us(static_cast<int64_t>(other)) + ") stays";
  } else {
    f.fix = "fewer, larger ops: fuse them (torch.compile) or batch the work";
    f.saving_ns = per_step(d, d.steady.ns[at(Bound::PerOpHost)]) / 2;
    f.assumption = "fusion halves the ops and their host path";
  }
  return f;
}

Diagnosed gpu_compute(const Diagnosis& d, const KernelMix& m) {
  Diagnosed f;
  const auto& k = d.steady.kernel_ns;
  size_t top = 0;
  for (size_t i = 1; i < kKernelClasses; ++i)
    if (k[i] > k[top] && i != at(KernelClass::Communication)) top = i;
  f.what = std::string("GPU compute ") + percent(d.steady.share(Bound::GpuCompute));
  f.where = std::string(to_string(static_cast<KernelClass>(top))) + " kernels " +
            percent(static_cast<double>(k[top]) / static_cast<double>(d.steady.wall_ns));
  const uint64_t compute = d.steady.ns[at(Bound::GpuCompute)];
  const uint64_t fused = k[at(KernelClass::Elementwise)] + k[at(KernelClass::Reduction)];
  if (m.fp32_gemm_ns * 10 >= compute && m.fp32_gemm_ns) {
    f.where = "FP32 GEMMs (sgemm) " +
              percent(static_cast<double>(m.fp32_gemm_ns) / static_cast<double>(d.steady.wall_ns));
    f.fix = "TF32 (torch.backends.cuda.matmul.allow_tf32 = True) or bf16 autocast";
    f.saving_ns = per_step(d, m.fp32_gemm_ns) / 2;
    f.assumption =
        "an Ampere or later GPU, and 2x on these GEMMs (NVIDIA's A100 whitepaper: "
        "156 TF32 vs 19.5 FP32 TFLOPS peak)";
  } else if (m.softmax_ns * 10 >= compute && m.softmax_ns && !m.attention_ns) {
    f.where = "softmax kernels " +
              percent(static_cast<double>(m.softmax_ns) / static_cast<double>(d.steady.wall_ns)) +
              " beside separate matmuls";
    f.fix = "compute attention with torch.nn.functional.scaled_dot_product_attention";
    f.saving_ns = per_step(d, m.softmax_ns);
    f.assumption = "the fused kernel hides the softmax inside the matmuls";
  } else if (fused * 10 >= compute * 4) {
    f.fix = "fuse the elementwise and normalisation kernels (torch.compile)";
    f.saving_ns = per_step(d, fused) / 2;
    f.assumption = "fusion halves these kernels' memory traffic";
  } else {
    f.fix = "the kernels bound the step: less work, or faster kernels for the largest class";
  }
  return f;
}

Diagnosed one_class(const Diagnosis& d, Bound b, const KernelMix& m, uint64_t pageable_ns,
                    const DiagnosisOptions& o) {
  Diagnosed f;
  const std::string share = percent(d.steady.share(b));
  switch (b) {
    case Bound::GpuCompute:
      return gpu_compute(d, m);
    case Bound::PerOpHost:
      return per_op_host(d, o);
    case Bound::OtherHost:
      return other_host(d);
    case Bound::Copies:
      f.what = "copies " + share;
      if (pageable_ns * 2 >= d.steady.ns[at(b)]) {
        f.where = "pageable host memory";
        f.fix = "pin the host memory (pin_memory()) and copy with non_blocking=True";
        f.saving_ns = per_step(d, std::min(pageable_ns, d.steady.ns[at(b)]));
        f.assumption = "the copies then overlap compute; pinned copies run near the link's rate";
      } else {
        f.fix = "move fewer bytes: keep the data on the GPU, or copy it in a smaller dtype";
        f.assumption = "the bytes are not all needed on the GPU each step";
        f.saving_ns = per_step(d, d.steady.ns[at(b)]) / 2;
      }
      return f;
    case Bound::Communication:
      f.what = "exposed communication " + share;
      f.fix =
          "overlap the collectives with compute (bucketing, DDP's gradient hooks), and look "
          "for a straggler rank";
      f.saving_ns = per_step(d, d.steady.ns[at(b)]);
      f.assumption = "the collectives can overlap compute; part of their time is waiting for peers";
      return f;
    case Bound::SyncWait:
      f.what = "sync waits " + share;
      f.where = item_name(top_item(d, b));
      f.fix = "read the value less often (a logged loss every N steps), or keep it on the GPU";
      f.saving_ns = per_step(d, d.steady.ns[at(b)]);
      f.assumption = "the host has work to overlap with the GPU once it stops waiting";
      return f;
    case Bound::QueuedIdle:
      f.what = "GPU idle with work queued " + share;
      f.fix = "a dependency wait or missing records: profile again unfiltered before acting";
      return f;
    case Bound::Untraced:
      break;
  }
  f.what = "idle (untraced) " + share;
  f.where = "no event on any thread";
  f.fix =
      "find out what the host does here: add torch.profiler.record_function or NVTX ranges, "
      "or profile with with_stack=True";
  f.saving_ns = per_step(d, d.steady.ns[at(b)]);
  f.assumption = "the gap is not intended (a sleep, a wait for input)";
  return f;
}

using Windows = std::vector<std::pair<uint64_t, uint64_t>>;

// The starts of a marker's occurrences, each nested or overlapping one left out.
std::vector<uint64_t> occurrence_starts(std::vector<std::pair<uint64_t, uint64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<uint64_t> starts;
  uint64_t open_until = 0;
  for (const auto& [s, e] : spans) {
    if (s < open_until) continue;  // inside the previous occurrence
    starts.push_back(s), open_until = e;
  }
  return starts;
}

// The GPU work that starts at or after t, as a share of all of it.
double gpu_share_from(const RecordSet& r, uint64_t t) {
  uint64_t all = 0, after = 0;
  const auto add = [&](uint64_t s, uint64_t e) { all += e - s, after += s >= t ? e - s : 0; };
  for (const auto& k : r.kernels) add(k.start_ns, k.end_ns);
  for (const auto& c : r.memcpys) add(c.start_ns, c.end_ns);
  return all ? static_cast<double>(after) / static_cast<double>(all) : 0.0;
}

// R1: a trace without steps: its iterations from a marker the program repeats, each occurrence
// to the next, the last to the trace's end; at least 3, or none. A marker the frameworks name
// (a compiled region, an optimizer step) first; else the host range the program repeats least
// often, at least 3 times, with its counters read as one name (the outermost period: an MPI
// iteration, "Step k to k+10"), that holds at least half of the GPU work, its windows alike;
// the earliest on a tie. Compile and collective ranges, ops and library calls are no iterations.
Windows marker_windows(const RecordSet& r, bool ops_are_ranges, std::string* from) {
  const uint64_t end = record_span(r).second;
  const auto windows = [&](const std::vector<uint64_t>& starts) {
    Windows w;
    for (size_t i = 0; i < starts.size(); ++i)
      w.push_back({starts[i], i + 1 < starts.size() ? starts[i + 1] : end});
    return w;
  };
  static const char* kMarkers[] = {"Torch-Compiled Region", "Optimizer.step#", "Optimizer.step"};
  for (const char* m : kMarkers) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const auto& op : r.cpu_ops)
      if (op.name.rfind(m, 0) == 0) spans.push_back({op.start_ns, op.end_ns});
    for (const auto& a : r.annotations)
      if (!a.gpu && a.name.rfind(m, 0) == 0) spans.push_back({a.start_ns, a.end_ns});
    const auto starts = occurrence_starts(std::move(spans));
    if (starts.size() < 3) continue;
    *from = std::string("each \"") + m + "\" to the next";
    return windows(starts);
  }
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> repeated;  // counters as #
  const auto add = [&](const std::string& name, uint64_t s, uint64_t e) {
    // An op or a library call (aten::sum, cub::DeviceReduce::Sum) is no iteration marker.
    if (name.rfind("ProfilerStep", 0) == 0 || name.find("::") != std::string::npos ||
        is_compile_range(name) || is_collective_range(name))
      return;
    repeated[counters_as_hash(name)].push_back({s, e});
  };
  if (ops_are_ranges)
    for (const auto& op : r.cpu_ops) add(op.name, op.start_ns, op.end_ns);
  for (const auto& a : r.annotations)
    if (!a.gpu) add(a.name, a.start_ns, a.end_ns);
  // A loop's iterations are alike: no window over 3x their median (one that long holds
  // something else: a last phase, the teardown).
  const auto alike = [&](const std::vector<uint64_t>& starts) {
    std::vector<uint64_t> walls;
    for (const auto& [a, b] : windows(starts)) walls.push_back(b - a);
    const uint64_t mid = median(walls);
    return std::all_of(walls.begin(), walls.end(), [&](uint64_t w) { return w <= 3 * mid; });
  };
  // The fewest occurrences first, the earliest on a tie; the GPU work's share (a pass over
  // every kernel) only for those.
  std::vector<std::pair<std::vector<uint64_t>, const std::string*>> candidates;
  for (auto& [name, spans] : repeated) {
    auto starts = occurrence_starts(std::move(spans));
    if (starts.size() >= 3 && alike(starts)) candidates.push_back({std::move(starts), &name});
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto& x, const auto& y) {
    return std::make_pair(x.first.size(), x.first.front()) <
           std::make_pair(y.first.size(), y.first.front());
  });
  for (const auto& [starts, name] : candidates) {
    if (gpu_share_from(r, starts.front()) < 0.5) continue;
    *from = "each \"" + *name + "\" to the next (a range the program repeats)";
    return windows(starts);
  }
  return {};
}

// Each window's bounds; the cold ones apart (R11), the steady ones summed, cold time taken out
// of the steady windows' other host work so that the verdict is the steady state's.
Windows measure(const BoundsIndex& bounds, Windows windows, const DiagnosisOptions& o, Diagnosis* d,
                bool startup_first) {
  std::vector<StepBounds> all;
  for (const auto& [a, b] : windows) all.push_back(bounds.window(a, b));
  if (startup_first) {  // before the first launch: start-up, cold whatever the host did (R11)
    StepBounds& s = all.front();
    s.cold_ns = s.wall_ns - std::min(s.wall_ns, s.gpu_busy_ns());
    for (auto h : s.host) h.bound = Bound::OtherHost, s.cold.push_back(h);
    s.ns[at(Bound::OtherHost)] += s.ns[at(Bound::Untraced)] + s.ns[at(Bound::PerOpHost)];
    s.ns[at(Bound::Untraced)] = s.ns[at(Bound::PerOpHost)] = 0;
  }
  // R1: a step with no GPU work and at most 1 % of the longest is no step (a profiler's last).
  uint64_t longest = 0;
  for (const auto& s : all) longest = std::max(longest, s.wall_ns);
  for (size_t i = all.size(); i-- > 0;)
    if (all.size() > 1 && !all[i].launched && !all[i].kernels && all[i].wall_ns * 100 <= longest)
      all.erase(all.begin() + static_cast<std::ptrdiff_t>(i)),
          windows.erase(windows.begin() + static_cast<std::ptrdiff_t>(i));
  d->windows = all.size();
  std::vector<bool> cold(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    cold[i] = static_cast<double>(all[i].cold_ns) >=
              o.cold_step_share * static_cast<double>(all[i].wall_ns);
    d->cold_ns += all[i].cold_ns, d->all_wall_ns += all[i].wall_ns;
    merge_items(&d->cold_items, all[i].cold);
  }
  d->cold_windows = static_cast<size_t>(std::count(cold.begin(), cold.end(), true));
  d->no_warm_step = d->cold_windows == all.size();
  if (d->no_warm_step) d->cold_windows = 0, cold.assign(all.size(), false);
  Windows steady;
  std::vector<uint64_t> walls, lags, kernel_p50;
  for (size_t i = 0; i < all.size(); ++i) {
    if (cold[i]) continue;
    add_window(&d->steady, all[i]);
    steady.push_back(windows[i]);
    walls.push_back(all[i].wall_ns - all[i].cold_ns);
    if (all[i].launched) lags.push_back(all[i].lag_p50_ns);
    if (all[i].kernels) kernel_p50.push_back(all[i].kernel_p50_ns);
  }
  StepBounds& s = d->steady;
  const uint64_t cold_here = std::min(s.cold_ns, s.ns[at(Bound::OtherHost)]);
  s.ns[at(Bound::OtherHost)] -= cold_here, s.wall_ns -= cold_here;
  for (auto& h : s.host)  // the items lose their cold part too: cold items are listed apart
    for (const auto& c : d->cold_items)
      if (h.name == c.name && h.level == c.level && h.bound == Bound::OtherHost)
        h.ns -= std::min(h.ns, c.ns);
  sort_items(&s.host), sort_items(&d->cold_items);
  s.lag_p50_ns = median(lags), s.kernel_p50_ns = median(kernel_p50);
  d->steady_step_ns = median(walls);
  std::sort(steady.begin(), steady.end());  // for inside()
  return steady;
}

// Who waits (R7) and whether the step is launch-bound (R8).
void regime(const DiagnosisOptions& o, Diagnosis* d) {
  const StepBounds& s = d->steady;
  const double wall = static_cast<double>(s.wall_ns);
  const uint64_t busy = s.gpu_busy_ns();
  const bool ahead = s.lag_p50_ns > o.bounds.host_ahead_lag_ns;
  d->regime = !ahead                                                           ? "host-side"
              : static_cast<double>(busy + s.launch_latency_ns) >= 0.85 * wall ? "GPU-bound"
                                                                               : "host ahead";
  const uint64_t idle = s.wall_ns > busy ? s.wall_ns - busy : 0;
  const size_t n = d->windows - d->cold_windows;
  const uint64_t per_op = s.ns[at(Bound::PerOpHost)];
  d->launch_bound = d->verdict == Bound::PerOpHost && per_op * 2 >= idle &&
                    static_cast<double>(busy) < 0.5 * wall && !ahead && s.kernel_p50_ns <= 20'000 &&
                    s.kernels >= 10 * std::max<size_t>(n, 1) &&
                    per_op / std::max<uint64_t>(s.kernels, 1) >= s.kernel_p50_ns;
  for (const auto& h : s.host)
    if (h.bound == Bound::PerOpHost && h.name.find("Launch") != std::string::npos)
      d->launch_call_ns += h.ns;
}

void caveats(const RecordSet& r, Diagnosis* d) {
  const size_t n = d->windows - d->cold_windows;
  if (!d->whole_trace && n < 3)
    d->caveats.push_back("the verdict rests on " + std::to_string(n) +
                         " steady step(s); profile at least 3");
  if (d->steady.kernel_ns[at(KernelClass::Communication)])
    d->caveats.push_back(
        "one rank of several: a collective's time includes waiting for peers, "
        "which this trace cannot attribute");
  if (d->steady.share(Bound::QueuedIdle) >= 0.10)
    d->caveats.push_back("GPU idle with work queued for " +
                         percent(d->steady.share(Bound::QueuedIdle)) +
                         ": records may be missing (a filtered or cut trace); GPU shares are "
                         "lower bounds");
  const uint64_t calls = r.api.size() / std::max<size_t>(d->windows, 1);
  if (d->steady_step_ns && static_cast<double>(calls) * 1000.0 >= 0.1 * d->steady_step_ns)
    d->caveats.push_back(
        "profiler overhead: about 1 us per traced API call is " +
        percent(static_cast<double>(calls) * 1000.0 / static_cast<double>(d->steady_step_ns)) +
        " of a step; take absolute times from an untraced run");
}

void findings(const RecordSet& r, const Windows& steady, const DiagnosisOptions& o, Diagnosis* d) {
  if (d->cold_profile) {
    Diagnosed f;
    f.what = "cold profile: warm-up " +
             percent(static_cast<double>(d->cold_ns) / static_cast<double>(d->all_wall_ns)) +
             " of the profile";
    f.where = d->cold_items.empty() ? "" : item_name(&d->cold_items.front());
    f.fix =
        "profile the steady state: torch.profiler.schedule(wait=1, warmup=2, active=3); "
        "what the cold part shows is no guide to the warm step";
    d->findings.push_back(f);
    return;
  }
  if (d->steady.share(Bound::PerOpHost) >= 0.05) d->capture = check_capture(r, steady);
  const KernelMix mix = kernel_mix(r, steady);
  const uint64_t pageable = pageable_copy_ns(r, steady);
  std::vector<Diagnosed> found;
  for (size_t i = 0; i < kBounds; ++i) {
    const Bound b = static_cast<Bound>(i);
    if (d->steady.share(b) < 0.05) continue;
    if (b == Bound::SyncWait && d->steady.share(b) < o.sync_advice_share) continue;
    Diagnosed f = one_class(*d, b, mix, pageable, o);
    if (b != d->verdict && !f.saving_ns) continue;  // an unpriced fix only for the verdict
    found.push_back(std::move(f));
    if (b == d->verdict) std::swap(found.front(), found.back());  // the verdict's fix first
  }
  std::stable_sort(
      found.begin() + (found.empty() ? 0 : 1), found.end(),
      [](const Diagnosed& x, const Diagnosed& y) { return x.saving_ns > y.saving_ns; });
  for (auto& f : found)
    if (d->findings.size() < Diagnosis::kMaxFindings) d->findings.push_back(std::move(f));
}

}  // namespace

std::string verdict_line(const Diagnosis& d) {
  if (!d.gpu) return "no GPU activity: no GPU verdict";
  std::string out =
      std::string("bound by ") + to_string(d.verdict) + " " + percent(d.steady.share(d.verdict));
  // R20: two classes within a point or two are named together.
  const bool tie = d.steady.share(d.verdict) - d.steady.share(d.runner_up) < 0.02;
  if (tie)
    out +=
        std::string(" and ") + to_string(d.runner_up) + " " + percent(d.steady.share(d.runner_up));
  out += std::string(" of the ") + (d.whole_trace ? "trace" : "step");
  if (d.steady.ns[at(d.runner_up)] && !tie)
    out += std::string(" (runner-up: ") + to_string(d.runner_up) + " " +
           percent(d.steady.share(d.runner_up)) + ")";
  out += std::string("; ") + d.regime;
  if (d.launch_bound) out += ", launch-bound";
  if (d.cold_profile) out = "cold profile; steady part " + out;
  return out;
}

Diagnosis diagnose(const RecordSet& r, const AttributionIndex& index, const Windows& windows,
                   const DiagnosisOptions& o) {
  Diagnosis d;
  d.gpu = !r.kernels.empty() || !r.memcpys.empty() || !r.memsets.empty();
  if (!d.gpu) return d;
  Windows w = windows.empty() ? marker_windows(r, o.bounds.ops_are_ranges, &d.steps_from) : windows;
  bool startup = false;
  if (w.empty()) {
    // One window from the first event to the last; the stretch before the first launch apart,
    // as start-up (imports, lazy initialisation, setup): a one-shot profile's cold part.
    const auto [lo, hi] = record_span(r);
    uint64_t first_launch = UINT64_MAX;
    for (const auto& a : r.api)
      if (a.kind == ApiKind::Launch) first_launch = std::min(first_launch, a.start_ns);
    startup = first_launch > lo && first_launch < hi;
    if (startup) w.push_back({lo, first_launch});
    w.push_back({startup ? first_launch : lo, hi});
    d.whole_trace = true;
  }
  const BoundsIndex bounds(r, index, o.bounds);
  const Windows steady = measure(bounds, w, o, &d, startup);
  d.verdict = d.steady.largest(), d.runner_up = d.steady.runner_up();
  // A cold profile: every window cold, or a one-shot run (no iterations to tell a warm step
  // by) whose cold work is most of it; either way its cold part says nothing of a warm step.
  const bool mostly_cold =
      static_cast<double>(d.cold_ns) >= o.cold_profile_share * static_cast<double>(d.all_wall_ns);
  d.cold_profile = mostly_cold && (d.no_warm_step || d.whole_trace);
  regime(o, &d);
  findings(r, steady, o, &d);
  caveats(r, &d);
  return d;
}

}  // namespace trace
