#include "trace/analyze/step_bounds.h"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "trace/analyze/blocking_calls.h"

namespace trace {
namespace {

bool has(std::string_view s, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (s.find(w) != std::string_view::npos) return true;
  return false;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// One stream of one device, as one key.
uint64_t stream_key_of(uint32_t device, uint32_t stream) { return uint64_t{device} << 32 | stream; }

// Host calls that are neither work nor a wait: polling (an NCCL watchdog's cudaEventQuery).
bool is_poll(const std::string& name) { return name.find("Query") != std::string::npos; }

// Calls that allocate or initialise, not part of any op's per-launch path (R4, R11).
bool is_setup_call(const std::string& n) {
  return has(n, {"Malloc", "Free", "HostAlloc", "HostRegister", "StreamCreate", "ModuleLoad",
                 "LibraryLoad", "GetDeviceProperties", "DeviceGetStreamPriorityRange", "CtxCreate",
                 "PrimaryCtx", "Init", "cudnnCreate", "cublasCreate", "DeviceReset"});
}

bool is_step_name(const std::string& n, const std::string& step_phase) {
  return n.rfind("ProfilerStep#", 0) == 0 || (!step_phase.empty() && n == step_phase);
}

// Per event of one kind (ops, or Python frames), nested by time on each thread: whether it or
// an event around it queues GPU work. An op so is on the per-op path (dispatch, aten::empty from
// the cache, ...); a frame so is inside a call that launches (a module's forward), where short
// stretches of Python are glue between launches (R4).
template <typename Event>
std::vector<bool> chains_issue(const std::vector<Event>& ev, const ThreadStarts& issues) {
  std::vector<uint32_t> order(ev.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const auto& x = ev[a];
    const auto& y = ev[b];
    return std::tie(x.thread_id, x.start_ns, y.end_ns) <
           std::tie(y.thread_id, y.start_ns, x.end_ns);
  });
  std::vector<bool> out(ev.size(), false);
  std::vector<uint32_t> chain;  // the events around the current one, outermost first
  for (uint32_t i : order) {
    const auto& e = ev[i];
    while (!chain.empty() &&
           (ev[chain.back()].thread_id != e.thread_id || ev[chain.back()].end_ns <= e.start_ns))
      chain.pop_back();
    out[i] =
        (!chain.empty() && out[chain.back()]) || issues.inside(e.thread_id, e.start_ns, e.end_ns);
    chain.push_back(i);
  }
  return out;
}

Bound call_bound(const ApiRecord& a, bool setup, const MemcpyRecord* copy) {
  if (a.kind == ApiKind::Sync) return Bound::SyncWait;
  if (a.kind == ApiKind::Memcpy) {
    const Blocking b = blocking_kind(a, copy);
    return b == Blocking::CopyPageable || b == Blocking::CopyNotAsync ? Bound::Copies
                                                                      : Bound::PerOpHost;
  }
  if (a.kind == ApiKind::Other && setup) return Bound::OtherHost;
  return Bound::PerOpHost;
}

// First-use work by its name alone (R11): context and library initialisation, module loading,
// pinned-pool growth, stream creation. cudaMalloc is not here: in a warm step it is the cache
// being emptied or outgrown (R15), cold only as an outlier of its name.
bool is_first_use_call(const std::string& n) {
  return has(n, {"ModuleLoad", "LibraryLoad", "HostAlloc", "StreamCreate", "GetDeviceProperties",
                 "DeviceGetStreamPriorityRange", "CtxCreate", "PrimaryCtx", "cudnnCreate",
                 "cublasCreate"});
}

}  // namespace

uint64_t median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

bool is_fp32_gemm(std::string_view kernel) {
  const std::string n = lower(kernel);
  return has(n, {"sgemm", "scudnn", "f32f32", "gemm_fp32"}) && !has(n, {"tf32", "bf16", "f16"});
}

bool is_compile_range(std::string_view n) {
  return has(n, {"(dynamo_timed)", "compile_fx", "_compile", "async_compile", "autotune"});
}

std::string counters_as_hash(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c < '0' || c > '9')
      out += c;
    else if (out.empty() || out.back() != '#')
      out += '#';
  }
  return out;
}

bool is_pinning_call(std::string_view n) {
  return has(n, {"HostAlloc", "MallocHost", "HostRegister"});
}

bool is_collective_range(std::string_view n) {
  return has(n, {"nccl:", "rccl:", "gloo:", "c10d::", "record_param_comms"});
}

bool ThreadStarts::inside(uint32_t thread, uint64_t s, uint64_t e) const {
  const auto it = starts.find(thread);
  if (it == starts.end()) return false;
  const auto p = std::lower_bound(it->second.begin(), it->second.end(), s);
  return p != it->second.end() && *p < e;
}

ThreadStarts issue_starts(const RecordSet& r) {
  ThreadStarts out;
  for (const auto& a : r.api)
    if (a.kind == ApiKind::Launch || a.kind == ApiKind::Memcpy || a.kind == ApiKind::Memset)
      out.starts[a.thread_id].push_back(a.start_ns);
  for (auto& [t, v] : out.starts) std::sort(v.begin(), v.end());
  return out;
}

HostWork host_work(std::string_view name) {
  if (has(name, {"DataLoader", "dataloader", "__next__"})) return HostWork::DataLoading;
  if (has(name, {"Malloc", "Free", "HostAlloc"})) return HostWork::Allocation;
  return HostWork::Other;
}

const char* to_string(Bound b) {
  switch (b) {
    case Bound::GpuCompute:
      return "GPU compute";
    case Bound::Copies:
      return "copies";
    case Bound::Communication:
      return "exposed communication";
    case Bound::QueuedIdle:
      return "GPU idle with queued work";
    case Bound::SyncWait:
      return "sync waits";
    case Bound::PerOpHost:
      return "per-op host overhead";
    case Bound::OtherHost:
      return "other host work";
    case Bound::Untraced:
      break;
  }
  return "idle (untraced)";
}

const char* to_string(KernelClass c) {
  switch (c) {
    case KernelClass::Gemm:
      return "GEMM/conv";
    case KernelClass::Attention:
      return "attention";
    case KernelClass::Reduction:
      return "reduction/norm/index";
    case KernelClass::Elementwise:
      return "elementwise";
    case KernelClass::Communication:
      return "communication";
    case KernelClass::Other:
      break;
  }
  return "other";
}

KernelClass kernel_class(std::string_view name) {
  const std::string n = lower(name);
  if (has(n, {"nccl", "rccl"})) return KernelClass::Communication;
  if (has(n, {"flash", "fmha", "attention", "attn", "sdpa", "mem_eff"}))
    return KernelClass::Attention;
  if (has(n, {"triton_tem", "gemm", "gemv", "cutlass", "cublas", "xmma", "nvjet", "cijk_", "matmul",
              "bmm", "conv", "wgrad", "dgrad", "scudnn", "winograd"}) &&
      !has(n, {"bn_fw", "bn_bw", "norm"}))
    return KernelClass::Gemm;
  if (has(n, {"reduce", "norm", "softmax", "bn_fw", "bn_bw", "triton_red", "triton_per", "index",
              "embedding", "sort", "scan", "topk", "gather", "scatter", "argmax", "cumsum"}))
    return KernelClass::Reduction;
  if (has(n, {"elementwise", "vectorized", "unrolled", "triton_poi", "fill", "copy", "pointwise",
              "relu", "gelu", "silu", "sigmoid", "tanh", "add", "mul", "dropout"}))
    return KernelClass::Elementwise;
  return KernelClass::Other;
}

uint64_t StepBounds::gpu_busy_ns() const {
  return ns[static_cast<size_t>(Bound::GpuCompute)] + ns[static_cast<size_t>(Bound::Copies)] +
         ns[static_cast<size_t>(Bound::Communication)];
}

double StepBounds::share(Bound b) const {
  return wall_ns ? static_cast<double>(ns[static_cast<size_t>(b)]) / static_cast<double>(wall_ns)
                 : 0.0;
}

Bound StepBounds::largest() const {
  size_t best = 0;
  for (size_t i = 1; i < kBounds; ++i)
    if (ns[i] > ns[best]) best = i;
  return static_cast<Bound>(best);
}

Bound StepBounds::runner_up() const {
  const size_t first = static_cast<size_t>(largest());
  size_t best = first == 0 ? 1 : 0;
  for (size_t i = 0; i < kBounds; ++i)
    if (i != first && ns[i] > ns[best]) best = i;
  return static_cast<Bound>(best);
}

BoundsIndex::BoundsIndex(const RecordSet& r, const AttributionIndex& index, const BoundsOptions& o)
    : r_(r), index_(index), o_(o) {
  classify_kernels();
  const ThreadStarts issues = issue_starts(r);
  const auto range_event = [&](uint64_t s, uint64_t e, uint32_t thread, const std::string& n,
                               uint8_t level) {
    HostEvent h{s, e, thread, range_name_of(n), level, Bound::OtherHost, false, false};
    if (!is_step_name(n, r.step_phase) && !kinds_[h.name].compile && issues.inside(thread, s, e))
      h.bound = Bound::PerOpHost, h.glue = true;
    host_.push_back(h);
  };
  const auto copy_of = copies_by_correlation(r);
  const CallOrder order = order_calls(r.api);
  for (uint32_t i = 0; i < r.api.size(); ++i) {
    const ApiRecord& a = r.api[i];
    if (order.nested_driver[i]) continue;
    const uint32_t id = name_of(a.name);
    if (kinds_[id].poll) continue;
    const auto c = a.kind == ApiKind::Memcpy ? copy_of.find(a.correlation_id) : copy_of.end();
    const MemcpyRecord* copy = c == copy_of.end() ? nullptr : &r.memcpys[c->second];
    const Bound b = call_bound(a, kinds_[id].setup, copy);
    host_.push_back({a.start_ns, a.end_ns, a.thread_id, id, kCall, b, false, false});
    if (b == Bound::Copies && copy) add_held(a, *copy);
    // Pinning host memory holds the thread on host work of its own and waits for no stream.
    if (is_pinning_call(a.name)) {
      held_.push_back({a.start_ns, a.end_ns, a.thread_id, kNoKey, kNoKey});
      longest_held_ns_ = std::max(longest_held_ns_, a.end_ns - a.start_ns);
    }
    if (waits_for_queued_gpu_work(blocking_kind(a, copy), copy))
      waits_.push_back({a.end_ns, a.start_ns});
  }
  std::sort(held_.begin(), held_.end(),
            [](const Held& x, const Held& y) { return x.start < y.start; });
  if (held_.empty())
    waits_ = {};
  else
    std::sort(waits_.begin(), waits_.end()), index_backlogs();
  const std::vector<bool> op_issues = chains_issue(r.cpu_ops, issues);
  for (uint32_t i = 0; i < r.cpu_ops.size(); ++i) {
    const CpuOpRecord& op = r.cpu_ops[i];
    if (is_step_name(op.name, r.step_phase) || o.ops_are_ranges) {
      range_event(op.start_ns, op.end_ns, op.thread_id, op.name, kRange);
      continue;
    }
    host_.push_back({op.start_ns, op.end_ns, op.thread_id, name_of(op.name), kOp,
                     op_issues[i] ? Bound::PerOpHost : Bound::OtherHost, false, false});
  }
  const std::vector<bool> frame_issues = chains_issue(r.py_frames, issues);
  for (uint32_t i = 0; i < r.py_frames.size(); ++i) {
    const PyFrameRecord& f = r.py_frames[i];
    const uint32_t id = name_of(r.frame_names[f.name_id]);
    const bool glue = frame_issues[i] && !kinds_[id].compile;
    host_.push_back({f.start_ns, f.end_ns, f.thread_id, id, kFrame,
                     glue ? Bound::PerOpHost : Bound::OtherHost, glue, false});
  }
  for (const auto& a : r.annotations)
    if (!a.gpu) range_event(a.start_ns, a.end_ns, a.thread_id, a.name, kRange);
  for (const auto& h : r.ranges) range_event(h.start_ns, h.end_ns, h.thread_id, h.name, kRange);
  for (const auto& h : r.sampled) range_event(h.start_ns, h.end_ns, h.thread_id, h.name, kSample);
  std::sort(host_.begin(), host_.end(),
            [](const HostEvent& a, const HostEvent& b) { return a.start < b.start; });
  mark_cold();
  index_spans();
}

uint32_t BoundsIndex::name_of(const std::string& n) {
  const auto it = name_id_.find(n);
  if (it != name_id_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(n);
  kinds_.push_back({is_poll(n), is_setup_call(n), is_first_use_call(n), is_compile_range(n),
                    classify_api(n) == ApiKind::Launch});
  name_id_.emplace(n, id);
  return id;
}

// One name for a range the program numbers ("IO 190" is "IO #"): its time adds up.
uint32_t BoundsIndex::range_name_of(const std::string& n) {
  if (n.find_first_of("0123456789") == std::string::npos) return name_of(n);
  const auto it = numbered_id_.find(n);
  if (it != numbered_id_.end()) return it->second;
  numbered_.push_back(counters_as_hash(n));
  const uint32_t id = name_of(numbered_.back());
  numbered_.push_back(n);
  numbered_id_.emplace(numbered_.back(), id);
  return id;
}

void BoundsIndex::classify_kernels() {
  // Names are classified once each: a trace repeats a few hundred names millions of times.
  std::unordered_map<std::string_view, KernelClass> class_of;
  kernel_class_.reserve(r_.kernels.size());
  for (const auto& k : r_.kernels) {
    const std::string& n = kernel_name(r_, k);
    auto it = class_of.find(n);
    if (it == class_of.end()) it = class_of.emplace(n, kernel_class(n)).first;
    kernel_class_.push_back(it->second);
  }
}

void BoundsIndex::index_spans() {
  for (uint32_t i = 0; i < host_.size(); ++i)
    if (host_[i].end - host_[i].start > kLongNs) long_host_.push_back(i);
  for (const auto& g : index_.gpu_work()) {
    longest_work_ns_ = std::max(longest_work_ns_, g.end - g.start);
    if (g.has_call && g.call_end < g.start)
      longest_queue_ns_ = std::max(longest_queue_ns_, g.start - g.call_end);
  }
}

uint64_t BoundsIndex::stream_key(const AttributionIndex::GpuWork& g) const {
  switch (g.kind) {
    case GpuWorkKind::Kernel:
      return stream_key_of(r_.kernels[g.index].device_id, r_.kernels[g.index].stream_id);
    case GpuWorkKind::Memcpy:
      return stream_key_of(r_.memcpys[g.index].device_id, r_.memcpys[g.index].stream_id);
    case GpuWorkKind::Memset:
      break;
  }
  return stream_key_of(r_.memsets[g.index].device_id, r_.memsets[g.index].stream_id);
}

void BoundsIndex::add_held(const ApiRecord& call, const MemcpyRecord& copy) {
  Held h{call.start_ns, call.end_ns, call.thread_id, stream_key_of(copy.device_id, copy.stream_id),
         kNoKey};
  // While the copy waits behind its own stream's earlier work, it waits on the GPU (which may
  // wait on other streams in turn): held only from when that work is done. A copy that starts
  // just after another stream's work ended waited behind it too (the legacy default stream's
  // implicit sync): that stream stays on its path.
  const auto& work = index_.gpu_work();
  auto it =
      std::lower_bound(work.begin(), work.end(), copy.start_ns,
                       [](const AttributionIndex::GpuWork& g, uint64_t t) { return g.start < t; });
  const bool late = copy.start_ns > call.start_ns + o_.wake_ns;
  for (int scanned = 0; it != work.begin() && scanned < 256; ++scanned) {
    --it;
    const uint64_t k = stream_key(*it);
    if (k == h.stream) {
      h.start = std::max(h.start, std::min(it->end, h.end));
      break;
    }
    if (late && h.waited == kNoKey && it->end <= copy.start_ns &&
        it->end + o_.wake_ns >= copy.start_ns)
      h.waited = k;
  }
  longest_held_ns_ = std::max(longest_held_ns_, h.end - h.start);
  held_.push_back(h);
}

void BoundsIndex::index_backlogs() {
  for (const auto& g : index_.gpu_work()) {
    const uint64_t from = g.has_call && g.call_end < g.start ? g.call_end : g.start;
    Stretches& runs = backlog_[stream_key(g)];
    if (!runs.empty() && from <= runs.back().second + o_.wake_ns) {
      runs.back().first = std::min(runs.back().first, from);
      runs.back().second = std::max(runs.back().second, g.end);
    } else {
      runs.emplace_back(from, g.end);
    }
  }
}

bool BoundsIndex::awaited(uint64_t stream, uint64_t t, uint64_t w1) const {
  const auto it = backlog_.find(stream);
  if (it == backlog_.end()) return true;
  const Stretches& runs = it->second;
  auto run = std::upper_bound(runs.begin(), runs.end(), std::make_pair(t, UINT64_MAX));
  if (run == runs.begin()) return true;
  const uint64_t end = std::prev(run)->second;
  if (end >= w1) return true;  // still running when the window ends: on its path
  for (auto w = std::lower_bound(waits_.begin(), waits_.end(), std::make_pair(end, uint64_t{0}));
       w != waits_.end() && w->first <= end + o_.return_ns; ++w)
    if (w->second <= end) return true;
  return false;
}

void BoundsIndex::mark_cold() {
  // The median length of each call and op name.
  std::unordered_map<uint64_t, std::vector<uint64_t>> lengths;  // (level, name) -> lengths
  const auto key = [](const HostEvent& h) { return uint64_t{h.level} << 32 | h.name; };
  for (const auto& h : host_)
    if (h.level >= kOp) lengths[key(h)].push_back(h.end - h.start);
  std::unordered_map<uint64_t, uint64_t> median_of;
  for (auto& [k, v] : lengths) median_of[k] = median(std::move(v));
  // The first op of each thread, and the first call of the trace (R11: profiler start-up, and
  // the context the first CUDA call creates).
  std::unordered_map<uint32_t, uint32_t> first_op;
  uint32_t first_call = UINT32_MAX;
  for (uint32_t i = 0; i < host_.size(); ++i) {
    const HostEvent& h = host_[i];
    if (h.level == kOp) first_op.emplace(h.thread, i);
    if (h.level == kCall && first_call == UINT32_MAX) first_call = i;
  }
  const ThreadStarts calls{[&] {
    std::unordered_map<uint32_t, std::vector<uint64_t>> starts;
    for (const auto& h : host_)
      if (h.level == kCall) starts[h.thread].push_back(h.start);
    return starts;
  }()};
  for (uint32_t i = 0; i < host_.size(); ++i) {
    HostEvent& h = host_[i];
    const uint64_t len = h.end - h.start;
    const NameKinds& kind = kinds_[h.name];
    const bool long_enough = len >= o_.cold_min_ns;
    const bool outlier =
        h.level >= kOp && long_enough &&
        static_cast<double>(len) >= o_.cold_times_median * static_cast<double>(median_of[key(h)]);
    const HostEvent& first = host_[first_op[h.thread]];
    const bool first_op_stall = h.level == kOp && long_enough && h.start >= first.start &&
                                h.end <= first.end && !calls.inside(h.thread, h.start, h.end);
    // A warm launch takes microseconds; one of a millisecond or more while the GPU waits is
    // loading the kernel's module (lazy loading) or initialising (R11, 3.5, 3.10).
    const bool slow_launch = h.level == kCall && long_enough && kind.launch;
    h.cold = outlier || first_op_stall || slow_launch || (i == first_call && long_enough) ||
             (h.level == kCall && kind.first_use) ||
             ((h.level == kRange || h.level == kFrame) && kind.compile);
  }
  // What runs inside cold work on its thread is cold too (a cudaFree in cuDNN's first
  // convolution, an autotuning launch in a compile range). Cold work is rare: each cold event's
  // span is looked up in host_, which is by start.
  std::vector<uint32_t> cold;
  for (uint32_t i = 0; i < host_.size(); ++i)
    if (host_[i].cold) cold.push_back(i);
  std::unordered_map<uint32_t, uint64_t> covered;  // per thread: cold spans done up to here
  for (uint32_t c : cold) {
    const HostEvent outer = host_[c];
    uint64_t& done = covered[outer.thread];
    if (outer.end <= done) continue;  // inside a cold span already marked
    done = outer.end;
    auto i = std::lower_bound(host_.begin(), host_.end(), outer.start,
                              [](const HostEvent& h, uint64_t t) { return h.start < t; });
    for (; i != host_.end() && i->start < outer.end; ++i)
      if (i->thread == outer.thread && i->end <= outer.end) i->cold = true;
  }
  for (auto& h : host_)
    if (h.cold) h.bound = Bound::OtherHost, h.glue = false;
}

std::vector<BoundsIndex::Edge> BoundsIndex::gpu_edges(uint64_t w0, uint64_t w1,
                                                      StepBounds* out) const {
  StepBounds& s = *out;
  const auto& work = index_.gpu_work();
  // The GPU's boundaries in the window: what runs (kind 0..5 kernel classes, 6 memset, 7 copy)
  // and what is queued (8: launched and not started).
  std::vector<Edge> edges;
  std::vector<uint64_t> lags, lengths;
  // R3: while a thread is held in a blocking copy, what it queued on other streams runs beside
  // the copy: those stretches are left out, and the instant is the copy's.
  std::vector<const Held*> held;
  for (auto h = std::lower_bound(held_.begin(), held_.end(),
                                 w0 > longest_held_ns_ ? w0 - longest_held_ns_ : 0,
                                 [](const Held&x, uint64_t t) { return x.start < t; });
       h != held_.end() && h->start < w1; ++h)
    if (h->end > w0) held.push_back(&*h);
  const auto push = [&](uint64_t a, uint64_t b, uint8_t kind, const AttributionIndex::GpuWork& g) {
    if (!held.empty() && g.has_call) {
      const uint64_t key = stream_key(g);
      int beside = -1;  // whether no one waits for this work: looked up once, when needed
      for (const Held* h : held) {  // one thread's calls do not overlap: in start order
        if (h->thread != g.call_thread || h->stream == key || h->waited == key) continue;
        if (h->end <= a || h->start >= b) continue;
        if (beside < 0) beside = awaited(key, a, w1) ? 0 : 1;
        if (!beside) break;
        if (h->start > a) edges.push_back({a, 1, kind}), edges.push_back({h->start, -1, kind});
        a = h->end;
        if (a >= b) return;
      }
    }
    edges.push_back({a, 1, kind});
    edges.push_back({b, -1, kind});
  };
  // Work that can touch the window: started at most the longest work's length before it, or
  // queued at most the longest queue wait after it.
  const auto by_start = [](const AttributionIndex::GpuWork& g, uint64_t x) { return g.start < x; };
  const auto first = std::lower_bound(work.begin(), work.end(),
                                      w0 > longest_work_ns_ ? w0 - longest_work_ns_ : 0, by_start);
  const auto last = std::lower_bound(first, work.end(), w1 + longest_queue_ns_ + 1, by_start);
  for (auto it = first; it != last; ++it) {
    const auto& g = *it;
    const bool queued = g.has_call && g.call_end < g.start && g.call_end < w1 && g.start > w0;
    if (g.start >= w1 && !queued) {
      if (g.call_end >= w1 || !g.has_call) continue;
    }
    if (queued) push(std::max(g.call_end, w0), std::min(g.start, w1), 8, g);
    if (g.start < w1 && g.end > w0) {
      uint8_t kind = 7;
      if (g.kind == GpuWorkKind::Kernel) kind = static_cast<uint8_t>(kernel_class_[g.index]);
      if (g.kind == GpuWorkKind::Memset) kind = 6;
      push(std::max(g.start, w0), std::min(g.end, w1), kind, g);
    }
    if (g.start >= w0 && g.start < w1) {
      if (g.has_call) lags.push_back(g.start > g.call_end ? g.start - g.call_end : 0), ++s.launched;
      if (g.kind == GpuWorkKind::Kernel) lengths.push_back(g.end - g.start), ++s.kernels;
    }
  }
  s.lag_p50_ns = median(std::move(lags));
  s.kernel_p50_ns = median(std::move(lengths));
  s.host_ahead = s.lag_p50_ns > o_.host_ahead_lag_ns;
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  return edges;
}

BoundsIndex::Stretches BoundsIndex::sweep_gpu(const std::vector<Edge>& edges, uint64_t w0,
                                              uint64_t w1, StepBounds* out) const {
  StepBounds& s = *out;
  // The sweep: each stretch between edges to its class; host-idle stretches kept for the host.
  std::array<int, 9> active{};
  std::vector<std::pair<uint64_t, uint64_t>> host_idle;
  uint64_t t = w0, gap_start = 0, gap_queued = 0;
  const auto close_gap = [&](uint64_t at) {  // a GPU-idle stretch ends: its queued part
    if (!gap_queued) return;
    if (at - gap_start <= o_.short_gap_ns) {
      s.launch_latency_ns += gap_queued;
      s.ns[static_cast<size_t>(s.host_ahead ? Bound::GpuCompute : Bound::PerOpHost)] += gap_queued;
    } else {
      s.ns[static_cast<size_t>(Bound::QueuedIdle)] += gap_queued;
    }
    gap_queued = 0;
  };
  bool idle = true;
  gap_start = w0;
  size_t e = 0;
  while (t < w1) {
    while (e < edges.size() && edges[e].t <= t) active[edges[e].kind] += edges[e].delta, ++e;
    const uint64_t next = e < edges.size() ? std::min(edges[e].t, w1) : w1;
    const uint64_t len = next - t;
    int compute = -1;
    for (int k : {0, 1, 2, 3, 5}) {  // the compute classes, most specific first
      if (active[static_cast<size_t>(k)] > 0) {
        compute = k;
        break;
      }
    }
    if (compute < 0 && active[6] > 0) compute = static_cast<int>(KernelClass::Other);
    const bool busy = compute >= 0 || active[7] > 0 || active[4] > 0;
    if (busy && idle) close_gap(t), idle = false;
    if (!busy && !idle) idle = true, gap_start = t;
    if (compute >= 0) {
      s.ns[static_cast<size_t>(Bound::GpuCompute)] += len;
      s.kernel_ns[static_cast<size_t>(compute)] += len;
    } else if (active[7] > 0) {
      s.ns[static_cast<size_t>(Bound::Copies)] += len;
    } else if (active[4] > 0) {
      s.ns[static_cast<size_t>(Bound::Communication)] += len;
      s.kernel_ns[static_cast<size_t>(KernelClass::Communication)] += len;
    } else if (active[8] > 0) {
      gap_queued += len;
    } else if (len) {
      if (!host_idle.empty() && host_idle.back().second == t)
        host_idle.back().second = next;
      else
        host_idle.emplace_back(t, next);
    }
    t = next;
  }
  if (idle) close_gap(w1);
  return host_idle;
}

// one piece: one sweep over the host's events, its steps sharing the open-event queues
void BoundsIndex::split_host(const Stretches& host_idle, uint64_t w0, StepBounds* out) const {
  StepBounds& s = *out;
  // The host's stretches: the innermost event over every thread (a higher level first, then
  // the latest start), runs of one event merged so that a glue stretch is judged whole.
  using Top = std::pair<uint64_t, uint32_t>;  // (start, index into host_)
  std::array<std::priority_queue<Top>, kNone> open;
  size_t next_event = std::lower_bound(host_.begin(), host_.end(), w0,
                                       [](const HostEvent& h, uint64_t x) { return h.start < x; }) -
                      host_.begin();
  // Events that began before the window and are still open in it: the long ones, and short
  // ones that began less than kLongNs before it.
  const auto open_at_w0 = [&](uint32_t i) {
    if (host_[i].start < w0 && host_[i].end > w0) open[host_[i].level].push({host_[i].start, i});
  };
  for (uint32_t i : long_host_) open_at_w0(i);
  for (size_t i =
           std::lower_bound(host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(next_event),
                            w0 > kLongNs ? w0 - kLongNs : 0,
                            [](const HostEvent&h, uint64_t x) { return h.start < x; }) -
           host_.begin();
       i < next_event; ++i)
    if (host_[i].end - host_[i].start <= kLongNs) open_at_w0(static_cast<uint32_t>(i));
  std::map<std::tuple<uint32_t, uint8_t, uint8_t>, uint64_t> items;  // (name, level, bound) -> ns
  std::map<std::pair<uint32_t, uint8_t>, uint64_t> cold;             // (name, level) -> ns
  // A stretch: time in a row with the GPU idle and no op or call open on any thread (only
  // Python frames and ranges, or nothing). Its glue is per-op when the stretch is short (R4).
  std::vector<std::pair<uint32_t, uint64_t>> stretch;  // (event or UINT32_MAX, ns), in order
  uint64_t stretch_ns = 0, stretch_end = 0;
  const auto add = [&](uint32_t event, uint64_t ns, bool long_glue) {
    Bound b = Bound::Untraced;
    uint32_t nm = UINT32_MAX;
    uint8_t level = kNone;
    if (event != UINT32_MAX) {
      const HostEvent& h = host_[event];
      b = h.glue && long_glue ? Bound::OtherHost : h.bound;
      nm = h.name, level = h.level;
    }
    s.ns[static_cast<size_t>(b)] += ns;
    items[{nm, level, static_cast<uint8_t>(b)}] += ns;
    if (event != UINT32_MAX && host_[event].cold) s.cold_ns += ns, cold[{nm, level}] += ns;
  };
  const auto end_stretch = [&] {
    for (const auto& [event, ns] : stretch) add(event, ns, stretch_ns >= o_.glue_ns);
    stretch.clear(), stretch_ns = 0;
  };
  for (const auto& [a, b] : host_idle) {
    for (uint64_t u = a; u < b;) {
      while (next_event < host_.size() && host_[next_event].start <= u) {
        if (host_[next_event].end > u)
          open[host_[next_event].level].push(
              {host_[next_event].start, static_cast<uint32_t>(next_event)});
        ++next_event;
      }
      uint64_t until = b;
      if (next_event < host_.size()) until = std::min(until, host_[next_event].start);
      uint32_t inner = UINT32_MAX;
      for (int level = kCall; level >= kSample; --level) {
        auto& q = open[static_cast<size_t>(level)];
        while (!q.empty() && host_[q.top().second].end <= u) q.pop();
        if (q.empty()) continue;
        until = std::min(until, host_[q.top().second].end);
        if (inner == UINT32_MAX) inner = q.top().second;
      }
      const bool in_op = inner != UINT32_MAX && host_[inner].level >= kOp;
      if (in_op || stretch_end != u) end_stretch();
      if (in_op) {
        add(inner, until - u, false);
      } else {
        if (!stretch.empty() && stretch.back().first == inner)
          stretch.back().second += until - u;
        else
          stretch.emplace_back(inner, until - u);
        stretch_ns += until - u, stretch_end = until;
      }
      u = until;
    }
  }
  end_stretch();
  static const char* kLevels[] = {"sample", "range", "frame", "op", "call", "none"};
  for (const auto& [key, ns] : items) {
    const auto& [nm, level, b] = key;
    s.host.push_back(
        {nm == UINT32_MAX ? std::string() : names_[nm], kLevels[level], static_cast<Bound>(b), ns});
  }
  for (const auto& [key, ns] : cold)
    s.cold.push_back({names_[key.first], kLevels[key.second], Bound::OtherHost, ns});
  for (auto* list : {&s.host, &s.cold}) {
    std::sort(list->begin(), list->end(),
              [](const HostWait& x, const HostWait& y) { return x.ns > y.ns; });
    if (list->size() > o_.host_items) list->resize(o_.host_items);
  }
}

StepBounds BoundsIndex::window(uint64_t w0, uint64_t w1) const {
  StepBounds s;
  s.start_ns = w0, s.wall_ns = w1 > w0 ? w1 - w0 : 0;
  if (!s.wall_ns) return s;
  split_host(sweep_gpu(gpu_edges(w0, w1, &s), w0, w1, &s), w0, &s);
  return s;
}

}  // namespace trace
