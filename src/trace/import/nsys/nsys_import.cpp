#include "trace/import/nsys/nsys_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/import/common/finish_records.h"
#include "trace/import/nsys/nsys_schema.h"
#include "trace/import/nsys/nsys_values.h"

namespace trace {

namespace {

using nsys::Column;

constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr const char* kNvtx = "NVTX_EVENTS";
constexpr const char* kCallchains = "CUDA_CALLCHAINS";
constexpr const char* kSamples = "COMPOSITE_EVENTS";
constexpr const char* kSampleChains = "SAMPLING_CALLCHAINS";
constexpr const char* kGpus = "TARGET_INFO_GPU";

// A value that must fit 32 bits (a device, a stream): out of range is bad input, except the
// stream -1 CUPTI writes for work on no stream (kNoStream, as in a Kineto trace).
uint32_t u32(const SqliteDb::Rows& row, int i, const char* column) {
  const int64_t v = row.req_int(i, column);
  if (v == -1 || v == 0xFFFFFFFFll) return kNoStream;
  if (v < 0 || v > 0xFFFFFFFFll)
    row.bad(column, "holds " + std::to_string(v) + ", out of the range of an id");
  return static_cast<uint32_t>(v);
}

// One NVTX range as read, named once every domain is known.
struct PendingRange {
  int64_t start = 0;
  std::optional<int64_t> end;
  int64_t type = 0, global_tid = 0, domain = 0;
  std::string text;
  bool has_text = false;
};

class Reader {
 public:
  Reader(const SqliteDb& db, const NsysOptions& options, ImportedTrace* out)
      : db_(db), opt_(options), out_(out) {}

  void run() {
    const nsys::ExportInfo info = nsys::check_export(db_);
    out_->producer = "Nsight Systems " +
                     (info.product.empty() ? std::string("(version not recorded)") : info.product) +
                     ", export schema " +
                     (info.schema.empty() ? std::string("(not recorded)") : info.schema);
    const bool any = db_.has_table(kRuntime) || db_.has_table(kKernel) || db_.has_table(kNvtx);
    if (!any)
      db_.fail(std::string("an Nsight Systems export with nothing this reads: no ") + kRuntime +
               ", " + kKernel + " or " + kNvtx + " table (recorded without -t cuda or -t nvtx?)");
    strings();
    if (db_.has_table(kRuntime)) api();
    if (db_.has_table(kKernel)) kernels();
    if (db_.has_table(kMemcpy)) memcpys();
    if (db_.has_table(kMemset)) memsets();
    if (db_.has_table(kSync)) syncs();
    if (db_.has_table(kNvtx)) nvtx();
    if (db_.has_table(kSamples) && db_.has_table(kSampleChains)) samples();
    if (db_.has_table(kGpus)) gpus();
    shift_times();
    finish();
  }

 private:
  void strings() {
    auto row =
        db_.query(nsys::select_sql(db_, "StringIds", {{"id", true}, {"value", true}}), "StringIds");
    while (row.next()) {
      const int64_t id = row.req_int(1, "id");
      const auto v = row.opt_text(2, "value");
      strings_.emplace(id, v ? nsys::utf8(*v) : std::string());
    }
  }

  std::string string_at(const std::optional<int64_t>& id) {
    if (!id) return std::string();
    auto it = strings_.find(*id);
    if (it != strings_.end()) return it->second;
    ++missing_strings_;
    return "(string " + std::to_string(*id) + " missing)";
  }

  // Times are read as signed ns and kept as their two's complement until shift_times().
  uint64_t time(int64_t v) {
    min_ = std::min(min_, v), max_ = std::max(max_, v);
    return static_cast<uint64_t>(v);
  }
  std::pair<uint64_t, uint64_t> span(int64_t start, int64_t end) {
    if (end < start) ++out_->negative_durations, end = start;
    return {time(start), time(end)};
  }

  // Correlation ids are per process: keyed by (process, id) when the export holds several.
  uint32_t correlation(uint32_t pid, const std::optional<int64_t>& id) {
    if (!id || *id <= 0) return 0;  // none
    const auto key = std::make_pair(multi_process_ ? pid : 0u, *id);
    auto it = correlations_.find(key);
    if (it != correlations_.end()) return it->second;
    if (correlations_.size() >= 0xFFFFFFF0u) db_.fail("more than 4 billion correlation ids");
    const uint32_t mine = static_cast<uint32_t>(correlations_.size() + 1);
    correlations_.emplace(key, mine);
    return mine;
  }

  // A thread is its OS thread id, unless another process's thread has the same id (two
  // machines, containers): then one above the 24-bit range.
  uint32_t thread(const std::optional<int64_t>& global_tid) {
    const int64_t g = global_tid.value_or(0);
    const uint64_t key = static_cast<uint64_t>(g) & 0xFFFFFFFFFFFFull;  // pid and tid
    auto it = threads_.find(key);
    if (it != threads_.end()) return it->second;
    const uint32_t tid = nsys::tid_of(g);
    uint32_t mine = tid;
    if (!tid_owner_.emplace(tid, key).second)
      mine = 0x1000000u + static_cast<uint32_t>(shared_tids_++);
    threads_.emplace(key, mine);
    return mine;
  }

  void api() {
    auto row = db_.query(nsys::select_sql(db_, kRuntime,
                                          {{"start", true},
                                           {"end", true},
                                           {"globalTid", true},
                                           {"correlationId", true},
                                           {"nameId", true},
                                           {"eventClass", false},
                                           {"callchainId", false}}),
                         kRuntime);
    struct Raw {
      uint32_t pid;
      std::optional<int64_t> corr;
    };
    std::vector<Raw> raw;
    std::unordered_map<uint32_t, bool> pids;
    while (row.next()) {
      ++out_->events;
      const auto cls = row.opt_int(6, "eventClass");
      if (cls && *cls == nsys::kCudaBacktrace) {
        ++backtrace_copies_;
        // The copy carries the call's stack: kept by correlation, joined to the call below.
        const auto chain = row.opt_int(7, "callchainId");
        const auto corr = row.opt_int(4, "correlationId");
        if (chain && corr)
          backtraces_.push_back(
              {nsys::pid_of(row.opt_int(3, "globalTid").value_or(0)), *corr, *chain});
        continue;
      }
      ApiRecord a;
      std::tie(a.start_ns, a.end_ns) = span(row.req_int(1, "start"), row.req_int(2, "end"));
      const auto gtid = row.opt_int(3, "globalTid");
      a.thread_id = thread(gtid);
      a.name = nsys::api_name(string_at(row.req_int(5, "nameId")));
      a.kind = classify_api(a.name);
      a.driver = cls ? *cls == nsys::kCudaDriver
                     : (a.name.rfind("cu", 0) == 0 && a.name.rfind("cuda", 0) != 0);
      raw.push_back({nsys::pid_of(gtid.value_or(0)), row.opt_int(4, "correlationId")});
      pids[raw.back().pid] = true;
      out_->records.api.push_back(std::move(a));
    }
    multi_process_ = pids.size() > 1;
    auto& api = out_->records.api;
    for (size_t i = 0; i < api.size(); ++i) {
      api[i].correlation_id = correlation(raw[i].pid, raw[i].corr);
      if (api[i].correlation_id) call_of_.emplace(api[i].correlation_id, static_cast<uint32_t>(i));
    }
    if (!backtraces_.empty() && db_.has_table(kCallchains)) call_stacks();
  }

  // CUDA_CALLCHAINS: each backtrace's frames (stackDepth 0 innermost), joined to its call.
  void call_stacks() {
    std::unordered_map<int64_t, std::vector<std::pair<int64_t, NativeFrame>>> chains;
    for (const auto& b : backtraces_) chains[b.chain];
    auto row = db_.query(nsys::select_sql(db_, kCallchains,
                                          {{"id", true},
                                           {"symbol", true},
                                           {"module", true},
                                           {"unresolved", false},
                                           {"stackDepth", true}}),
                         kCallchains);
    std::unordered_map<int64_t, uint32_t> name_ids;  // StringIds id -> frame_names index
    auto& names = out_->records.frame_names;
    const auto name = [&](int64_t id) {
      const auto [it, added] = name_ids.try_emplace(id, static_cast<uint32_t>(names.size()));
      if (added) names.push_back(string_at(id));
      return it->second;
    };
    while (row.next()) {
      const auto it = chains.find(row.req_int(1, "id"));
      if (it == chains.end()) continue;
      NativeFrame f;
      f.symbol_id = name(row.req_int(2, "symbol"));
      f.module_id = name(row.req_int(3, "module"));
      f.unresolved = row.opt_int(4, "unresolved").value_or(0) != 0;
      it->second.push_back({row.req_int(5, "stackDepth"), f});
    }
    for (const auto& b : backtraces_) {
      const uint32_t corr = correlation(b.pid, b.corr);
      const auto call = call_of_.find(corr);
      auto chain = chains.find(b.chain);
      if (call == call_of_.end() || chain->second.empty()) continue;
      auto& frames = chain->second;
      std::sort(frames.begin(), frames.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      CallStack cs;
      cs.api_index = call->second;
      for (const auto& [depth, f] : frames) cs.frames.push_back(f);
      out_->records.call_stacks.push_back(std::move(cs));
    }
  }

  // CPU samples: each sample named by its innermost frame in the program's own code (a module
  // that is no shared library and no [vdso]/[kernel] pseudo-module); samples without one name
  // nothing. A sample stands for the time to the next one on its thread, at most twice the
  // thread's median interval; runs of one name are one stretch (RecordSet::sampled).
  void samples() {
    std::unordered_map<int64_t, std::pair<int64_t, std::string>> own;  // id -> (depth, symbol)
    auto chain = db_.query(
        nsys::select_sql(db_, kSampleChains,
                         {{"id", true}, {"symbol", true}, {"module", true}, {"stackDepth", true}}),
        kSampleChains);
    std::unordered_map<int64_t, bool> program_module;  // per module string: the program's own
    while (chain.next()) {
      const int64_t module_id = chain.req_int(3, "module");
      auto [m, first] = program_module.try_emplace(module_id, false);
      if (first) {
        const std::string module = string_at(module_id);
        m->second =
            !module.empty() && module.front() != '[' && module.find(".so") == std::string::npos;
      }
      if (!m->second) continue;
      const int64_t depth = chain.req_int(4, "stackDepth");
      auto [it, added] = own.try_emplace(chain.req_int(1, "id"), depth, std::string());
      if (added || depth < it->second.first)
        it->second = {depth, string_at(chain.req_int(2, "symbol"))};
    }
    auto row = db_.query(
        nsys::select_sql(db_, kSamples, {{"id", true}, {"start", true}, {"globalTid", true}}),
        kSamples);
    std::map<uint32_t, std::vector<std::pair<int64_t, const std::string*>>> by_thread;
    while (row.next()) {
      ++out_->events;
      const auto it = own.find(row.req_int(1, "id"));
      by_thread[thread(row.opt_int(3, "globalTid"))].push_back(
          {row.req_int(2, "start"), it == own.end() ? nullptr : &it->second.second});
    }
    for (auto& [tid, list] : by_thread) {
      std::sort(list.begin(), list.end());
      // In unsigned arithmetic: the times are someone else's, and may span all of int64.
      std::vector<uint64_t> gaps;
      for (size_t i = 1; i < list.size(); ++i)
        gaps.push_back(static_cast<uint64_t>(list[i].first) -
                       static_cast<uint64_t>(list[i - 1].first));
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                       gaps.end());
      const uint64_t period = gaps.empty() ? 0 : gaps[gaps.size() / 2];
      const auto after = [](int64_t t, uint64_t ns) {  // t + ns, at most INT64_MAX
        const uint64_t room =
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - static_cast<uint64_t>(t);
        return ns >= room ? std::numeric_limits<int64_t>::max()
                          : static_cast<int64_t>(static_cast<uint64_t>(t) + ns);
      };
      auto& out = out_->records.sampled;
      for (size_t i = 0; i < list.size(); ++i) {
        const auto& [t, name] = list[i];
        if (!name) continue;
        const int64_t next = i + 1 < list.size() ? list[i + 1].first : after(t, period);
        const uint64_t twice = period > UINT64_MAX / 2 ? UINT64_MAX : 2 * period;
        const auto [start, end] = span(t, std::min(next, after(t, twice)));
        if (!out.empty() && out.back().thread_id == tid && out.back().end_ns == start &&
            out.back().name == *name)
          out.back().end_ns = end;
        else
          out.push_back({start, end, tid, 0, *name});
      }
    }
  }

  // The columns every GPU table shares, in this order after rowid.
  struct Gpu {
    uint64_t start, end;
    uint32_t correlation, device, stream;
  };
  Gpu gpu(const SqliteDb::Rows& row) {
    Gpu g;
    std::tie(g.start, g.end) = span(row.req_int(1, "start"), row.req_int(2, "end"));
    g.device = u32(row, 3, "deviceId");
    g.stream = u32(row, 4, "streamId");
    g.correlation = correlation(nsys::pid_of(row.opt_int(6, "globalPid").value_or(0)),
                                row.opt_int(5, "correlationId"));
    ++out_->events;
    return g;
  }
  static constexpr Column kStart{"start", true}, kEnd{"end", true}, kDevice{"deviceId", true},
      kStream{"streamId", true}, kCorrelation{"correlationId", true}, kPid{"globalPid", false};

  void kernels() {
    auto row = db_.query(
        nsys::select_sql(
            db_, kKernel,
            {kStart, kEnd, kDevice, kStream, kCorrelation, kPid, {"demangledName", true}}),
        kKernel);
    while (row.next()) {
      const Gpu g = gpu(row);
      const int64_t name_id = row.req_int(7, "demangledName");
      out_->records.kernels.push_back({g.start, g.end, g.correlation, g.device, g.stream,
                                       opt_.kernel_names ? string_at(name_id) : std::string()});
    }
  }

  static uint64_t byte_count(const SqliteDb::Rows& row, int i) {
    return static_cast<uint64_t>(std::max<int64_t>(0, row.req_int(i, "bytes")));
  }

  void memcpys() {
    auto row = db_.query(nsys::select_sql(db_, kMemcpy,
                                          {kStart,
                                           kEnd,
                                           kDevice,
                                           kStream,
                                           kCorrelation,
                                           kPid,
                                           {"bytes", true},
                                           {"copyKind", true},
                                           {"srcKind", false},
                                           {"dstKind", false}}),
                         kMemcpy);
    while (row.next()) {
      const Gpu g = gpu(row);
      MemcpyRecord m;
      m.start_ns = g.start, m.end_ns = g.end, m.correlation_id = g.correlation,
      m.device_id = g.device, m.stream_id = g.stream;
      m.bytes = byte_count(row, 7);
      m.kind = nsys::copy_kind(row.req_int(8, "copyKind"));
      const auto src = row.opt_int(9, "srcKind"), dst = row.opt_int(10, "dstKind");
      m.src = src ? nsys::memory_kind(*src) : MemoryKind::Other;
      m.dst = dst ? nsys::memory_kind(*dst) : MemoryKind::Other;
      out_->records.memcpys.push_back(m);
    }
  }

  // The GPUs the target had, for the replay's published constants (what it looks them up by).
  void gpus() {
    auto row = db_.query(nsys::select_sql(db_, kGpus,
                                          {{"id", true},
                                           {"name", false},
                                           {"computeMajor", false},
                                           {"computeMinor", false},
                                           {"totalMemory", false}}),
                         kGpus);
    const auto small = [&](int i, const char* column) {
      const auto v = row.opt_int(i, column);
      return v && *v > 0 && *v < 1000 ? static_cast<int32_t>(*v) : 0;
    };
    while (row.next() && out_->devices.size() < 1024) {
      DeviceProperties d;
      d.id = u32(row, 1, "id");
      if (const auto name = row.opt_text(2, "name")) d.name = nsys::utf8(*name).substr(0, 256);
      d.compute_major = small(3, "computeMajor");
      d.compute_minor = small(4, "computeMinor");
      const auto mem = row.opt_int(5, "totalMemory");
      d.total_memory = mem && *mem > 0 ? static_cast<uint64_t>(*mem) : 0;
      out_->devices.push_back(std::move(d));
    }
  }

  void memsets() {
    auto row = db_.query(
        nsys::select_sql(db_, kMemset,
                         {kStart, kEnd, kDevice, kStream, kCorrelation, kPid, {"bytes", true}}),
        kMemset);
    while (row.next()) {
      const Gpu g = gpu(row);
      out_->records.memsets.push_back(
          {g.start, g.end, g.correlation, g.device, g.stream, byte_count(row, 7)});
    }
  }

  void syncs() {
    auto row = db_.query(
        nsys::select_sql(db_, kSync, {kStart, kEnd, kDevice, kStream, kCorrelation, kPid}), kSync);
    while (row.next()) {
      const Gpu g = gpu(row);
      auto call = call_of_.find(g.correlation);
      const SyncKind kind = call == call_of_.end()
                                ? SyncKind::Other
                                : nsys::sync_kind_of_call(out_->records.api[call->second].name);
      out_->records.syncs.push_back({g.start, g.end, g.correlation, g.stream, kind});
    }
  }

  void nvtx() {
    auto row = db_.query(nsys::select_sql(db_, kNvtx,
                                          {{"start", true},
                                           {"end", true},
                                           {"eventType", true},
                                           {"text", true},
                                           {"textId", false},
                                           {"globalTid", true},
                                           {"domainId", true}}),
                         kNvtx);
    std::vector<PendingRange> ranges;
    std::map<std::pair<uint32_t, int64_t>, std::string> domains;  // (process, domainId) -> name
    int64_t last =
        std::numeric_limits<int64_t>::min();  // the last NVTX timestamp: where an open range ends
    while (row.next()) {
      ++out_->events;
      PendingRange p;
      p.start = row.req_int(1, "start");
      p.end = row.opt_int(2, "end");
      last = std::max({last, p.start, p.end.value_or(p.start)});
      p.type = row.req_int(3, "eventType");
      p.global_tid = row.opt_int(6, "globalTid").value_or(0);
      p.domain = row.opt_int(7, "domainId").value_or(0);
      // A registered string (textId) wins over the text column, as in nsys stats.
      const auto text_id = row.opt_int(5, "textId");
      if (text_id)
        p.text = string_at(text_id), p.has_text = true;
      else if (const auto t = row.opt_text(4, "text"))
        p.text = nsys::utf8(*t), p.has_text = true;
      if (p.type == nsys::kNvtxDomainCreate) {
        domains.emplace(std::make_pair(nsys::pid_of(p.global_tid), p.domain), p.text);
      } else if (p.type == nsys::kNvtxPushPopRange || p.type == nsys::kNvtxStartEndRange ||
                 p.type == nsys::kNvtxtPushPopRange || p.type == nsys::kNvtxtStartEndRange) {
        ranges.push_back(std::move(p));
      } else {
        ++out_->ignored_events;  // marks, thread names, categories
      }
    }
    RecordSet& r = out_->records;
    std::vector<size_t> phases;  // indexes into r.ranges, the caller's phases
    for (const auto& p : ranges) {
      auto d = domains.find({nsys::pid_of(p.global_tid), p.domain});
      const std::string* domain = d == domains.end() ? nullptr : &d->second;
      const std::string text = p.has_text ? p.text : std::string("(unnamed)");
      const std::string name = nsys::op_name(domain ? *domain + ":" + text : text);
      if (!p.end) ++open_ranges_;
      const auto [start, end] = span(p.start, p.end.value_or(std::max(last, p.start)));
      const uint32_t tid = thread(p.global_tid);
      if (p.type == nsys::kNvtxPushPopRange || p.type == nsys::kNvtxtPushPopRange)
        r.cpu_ops.push_back({start, end, tid, name});
      else
        r.annotations.push_back({start, end, tid, false, name});
      if (text.rfind("ProfilerStep#", 0) == 0) r.steps.push_back({start, end, text});
      if (domain && !opt_.phase_domain.empty() && *domain == opt_.phase_domain) {
        phases.push_back(r.ranges.size());
        r.ranges.push_back({start, end, tid, 0, text});
      }
    }
    set_depths(phases);
  }

  // A phase's depth: how many of the phases on its thread hold it (0 = outermost).
  void set_depths(const std::vector<size_t>& phases) {
    auto& h = out_->records.ranges;
    std::vector<size_t> order(phases);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (h[a].thread_id != h[b].thread_id) return h[a].thread_id < h[b].thread_id;
      return h[a].start_ns != h[b].start_ns ? h[a].start_ns < h[b].start_ns
                                            : h[a].end_ns > h[b].end_ns;
    });
    std::vector<size_t> open;
    for (size_t k = 0; k < order.size(); ++k) {
      HostRange& x = h[order[k]];
      if (k > 0 && h[order[k - 1]].thread_id != x.thread_id) open.clear();
      while (!open.empty() && h[open.back()].end_ns < x.end_ns) open.pop_back();
      x.depth = static_cast<uint16_t>(std::min<size_t>(open.size(), 0xFFFF));
      open.push_back(order[k]);
    }
  }

  // Nanoseconds before the session's start (a range opened before it) are negative: every
  // time moves by the same amount so that the earliest is 0, differences unchanged.
  void shift_times() {
    if (min_ >= 0) return;
    if (max_ > std::numeric_limits<int64_t>::max() + min_)
      db_.fail("its times span more than 2^63 ns");
    const uint64_t by =
        static_cast<uint64_t>(-(min_ + 1)) + 1;  // -min_, without overflow at INT64_MIN
    RecordSet& r = out_->records;
    const auto move = [by](auto& v) {
      for (auto& x : v) x.start_ns += by, x.end_ns += by;
    };
    move(r.api), move(r.kernels), move(r.memcpys), move(r.memsets), move(r.syncs), move(r.ranges),
        move(r.cpu_ops);
    move(r.annotations), move(r.steps), move(r.sampled);
    out_->warnings.push_back("times moved " + std::to_string(by) +
                             " ns later: the export has times before its session's start");
  }

  void finish() {
    RecordSet& r = out_->records;
    r.clock = "nsys";
    r.step_phase = opt_.step_phase;
    settle_steps(&r);
    count_unmatched_correlations(out_);
    auto& w = out_->warnings;
    if (backtrace_copies_)
      w.push_back(std::to_string(backtrace_copies_) +
                  " CUDA API calls recorded a second time with their call stacks (eventClass " +
                  "67, nsys --cudabacktrace) are counted once; nsys stats cudaapisum counts both");
    if (r.kernels.empty() && r.memcpys.empty() && r.memsets.empty())
      w.push_back("no GPU events (kernels, copies, memsets) in this export: host figures only");
    if (out_->unmatched_correlations)
      w.push_back(std::to_string(out_->unmatched_correlations) +
                  " GPU events have a correlation id that matches no runtime/driver call (launched "
                  "before the recorded window?)");
    if (out_->launches_without_gpu)
      w.push_back(std::to_string(out_->launches_without_gpu) +
                  " launch calls have no GPU event with their correlation id (ran after the "
                  "recorded window, or not recorded)");
    if (out_->negative_durations)
      w.push_back(std::to_string(out_->negative_durations) +
                  " rows end before they start: taken as 0 ns long");
    if (open_ranges_)
      w.push_back(std::to_string(open_ranges_) +
                  " NVTX ranges never end: taken to end at the last NVTX time, as nsys stats does");
    if (missing_strings_)
      w.push_back(std::to_string(missing_strings_) + " names point to no row of StringIds");
    if (shared_tids_)
      w.push_back(std::to_string(shared_tids_) +
                  " threads share a thread id with a thread of another process: numbered from " +
                  std::to_string(0x1000000u) + " up");
    if (r.steps.empty())
      w.push_back("no ProfilerStep#N " + step_phases_named() +
                  "ranges: the whole export is one window (--step-range NAME: the NVTX ranges "
                  "named NAME are the steps)");
  }

  // "or DOMAIN PHASE " when the caller named its step phase, for the warning of no steps.
  std::string step_phases_named() const {
    if (opt_.step_phase.empty()) return std::string();
    return "or " + (opt_.phase_domain.empty() ? std::string() : opt_.phase_domain + " ") +
           opt_.step_phase + " ";
  }

  const SqliteDb& db_;
  const NsysOptions& opt_;
  ImportedTrace* out_;
  std::unordered_map<int64_t, std::string> strings_;
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, int64_t>& k) const {
      // In uint64_t: a file's correlation can be any int64, and signed overflow is undefined.
      return std::hash<uint64_t>()(static_cast<uint64_t>(k.second) * 1000003u + k.first);
    }
  };
  std::unordered_map<std::pair<uint32_t, int64_t>, uint32_t, PairHash> correlations_;
  std::unordered_map<uint32_t, uint32_t> call_of_;  // correlation -> index in api
  struct Backtrace {
    uint32_t pid;
    int64_t corr, chain;
  };
  std::vector<Backtrace> backtraces_;  // the backtrace copies' callchains, by correlation
  std::unordered_map<uint64_t, uint32_t> threads_;
  std::unordered_map<uint32_t, uint64_t> tid_owner_;
  bool multi_process_ = false;
  int64_t min_ = 0, max_ = 0;
  uint64_t backtrace_copies_ = 0, open_ranges_ = 0, missing_strings_ = 0, shared_tids_ = 0;
};

}  // namespace

ImportedTrace import_nsys_sqlite(const SqliteDb& db, uint64_t bytes, const NsysOptions& options) {
  ImportedTrace out;
  out.file = db.name();
  out.format = "SQLite";
  out.syncs_named_by_call = true;
  out.bytes = bytes;
  Reader(db, options, &out).run();
  return out;
}

ImportedTrace import_nsys_sqlite(const std::string& path, const NsysOptions& options) {
  struct stat st;
  const uint64_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return import_nsys_sqlite(SqliteDb::open_file(path), bytes, options);
}

}  // namespace trace
