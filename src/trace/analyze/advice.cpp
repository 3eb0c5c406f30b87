#include "trace/analyze/advice.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/what_if.h"

namespace trace {

namespace {

std::string count(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A site that reads a value back to the host: the op or the Python call that made it says so.
bool reads_a_value(const RecordSet& r, const SiteRow& s) {
  static const std::set<std::string> ops = {"aten::item",          "aten::_local_scalar_dense",
                                            "aten::is_nonzero",    "aten::to",
                                            "aten::_to_copy",      "aten::copy_",
                                            "aten::cpu",           "aten::nonzero",
                                            "aten::masked_select", "aten::tolist"};
  if (ops.count(s.op)) return true;
  if (s.callee == kNoFrame) return false;
  const std::string& c = r.frame_names[s.callee];
  for (const char* word : {"item", "cpu", "tolist", "numpy", "print", "__format__", "__repr__"})
    if (c.find(word) != std::string::npos) return true;
  return false;
}

struct Candidate {
  Finding f;
  replay::WhatIf w;
  int site = -1;  // the call-site row it removes, if any
};
using Candidates = std::vector<Candidate>;

void add(Candidates* cands, Finding f, const std::string& spec, int site = -1) {
  f.what_if = spec;
  cands->push_back({std::move(f), replay::parse_what_if(spec), site});
}

// Blocking call sites, the most blocked first (by op without stacks).
void add_sync_sites(const TraceReport& rep, const AdviceOptions& opt, Candidates* cands) {
  const RecordSet& r = rep.trace->records;
  const SiteReport& sites = rep.sites;
  if (sites.stacks != SiteReport::Stacks::None) {
    for (size_t i = 0; i < sites.sites.size() && i < opt.sites; ++i) {
      const SiteRow& s = sites.sites[i];
      bool waits = false, pageable = false;
      for (uint32_t m : s.members) {
        waits |= rep.syncs.calls[m].waits_for_gpu;
        pageable |= rep.syncs.calls[m].kind == Blocking::CopyPageable;
      }
      // A site that copies to or from pageable memory (and syncs for it): its fix is pinned
      // memory and non_blocking (pin-copies), not reading a value less often.
      if (!waits || pageable) continue;
      Finding f;
      f.kind = reads_a_value(r, s) ? Finding::Kind::ValueRead : Finding::Kind::Sync;
      f.where = site_label(r, s);
      f.what = count(s.calls, "blocking call", "blocking calls") + " (" +
               count(s.occurrences, "occurrence", "occurrences") + ") held the host " +
               ms_or_us(static_cast<int64_t>(s.blocked_ns)) + ", " +
               ms_or_us(static_cast<int64_t>(s.gpu_queued_ns)) + " of it with GPU work running";
      f.fix = f.kind == Finding::Kind::ValueRead
                  ? "read the value less often (log every N steps), or keep it on the GPU and "
                    "read it once at the end"
                  : "remove this sync, or move it out of the step";
      add(cands, f, "no-syncs:site=" + std::to_string(i + 1), static_cast<int>(i));
    }
    return;
  }
  size_t n = 0;
  for (const auto& c : rep.syncs.by_cause) {
    if (c.op == "(no op)" || n == opt.sites) continue;
    ++n;
    Finding f;
    f.kind = Finding::Kind::Sync;
    f.where = c.op;
    f.what = count(c.calls, "blocking call", "blocking calls") + " under " + c.op +
             " held the host " + ms_or_us(static_cast<int64_t>(c.blocked_ns));
    f.fix =
        "find where the program calls it (record with stacks to see the line), then read the "
        "value less often or keep it on the GPU";
    add(cands, f, "no-syncs:op=" + c.op);
  }
}

// Copies to or from pageable host memory.
void add_pageable_copies(const RecordSet& r, Candidates* cands) {
  uint64_t pageable = 0;
  for (const auto& m : r.memcpys)
    pageable += (m.kind == CopyKind::HtoD && m.src == MemoryKind::Pageable) ||
                (m.kind == CopyKind::DtoH && m.dst == MemoryKind::Pageable);
  if (!pageable) return;
  Finding f;
  f.kind = Finding::Kind::PageableCopies;
  f.what = count(pageable, "copy", "copies") +
           " between the GPU and pageable host memory: each one is staged through a pinned "
           "buffer and holds the host";
  f.fix =
      "pin the host memory (DataLoader(pin_memory=True), tensor.pin_memory()) and copy with "
      "non_blocking=True";
  add(cands, f, "pin-copies");
}

// Device-wide syncs where more than one stream ran.
void add_device_syncs(const TraceReport& rep, Candidates* cands) {
  const RecordSet& r = rep.trace->records;
  std::set<uint32_t> streams;
  for (const auto& k : r.kernels) streams.insert(k.stream_id);
  for (const auto& m : r.memcpys) streams.insert(m.stream_id);
  uint64_t device_syncs = 0;
  for (const auto& c : rep.syncs.calls)
    device_syncs += c.api.find("DeviceSynchronize") != std::string::npos ||
                    c.api.find("CtxSynchronize") != std::string::npos;
  if (!device_syncs || streams.size() <= 1) return;
  Finding f;
  f.kind = Finding::Kind::DeviceSync;
  f.what = count(device_syncs, "device-wide sync waits", "device-wide syncs wait") + " for all " +
           std::to_string(streams.size()) + " streams";
  f.fix =
      "wait for the stream that holds the result (torch.cuda.current_stream().synchronize()) "
      "or for an event recorded after it, not the whole device";
  add(cands, f, "stream-syncs");
}

// A step the GPU waits on the per-op host path for (the diagnosis' verdict, R8): what a CUDA
// graph removes. Never from a cold profile, nor where the host waits on other work.
void add_launch_bound(const TraceReport& rep, Candidates* cands) {
  const Diagnosis& d = rep.diagnosis;
  const bool bound = d.launch_bound || (d.verdict == Bound::PerOpHost && d.host_side());
  if (!bound || d.cold_profile || !rep.total.a.launches) return;
  Finding f;
  f.kind = Finding::Kind::LaunchBound;
  char b[256];
  std::snprintf(
      b, sizeof b,
      "launch-bound: the GPU's queue was empty %.0f%% of the time while the host "
      "made %llu launch calls",
      rep.total.queue.gpus.empty()
          ? 100.0
          : 100.0 * std::min_element(rep.total.queue.gpus.begin(), rep.total.queue.gpus.end(),
                                     [](const GpuQueue& x, const GpuQueue& y) {
                                       return x.depth.empty_share() < y.depth.empty_share();
                                     })
                        ->depth.empty_share(),
      static_cast<unsigned long long>(rep.total.a.launches));
  f.what = b;
  f.fix =
      "capture the step in a CUDA graph (torch.cuda.graphs, or torch.compile(mode="
      "\"reduce-overhead\")), or do more work per launch (a larger batch, fused ops)";
  add(cands, f, "graph-steps");
}

// Whether any outermost range (or frame) named `name` queues GPU work on its thread: then it is
// part of the step's GPU path (a module's forward, `## backward ##`), not work a worker can take.
bool queues_gpu_work(const RecordSet& r, const ThreadStarts& issues, const std::string& name) {
  for (const auto& s : replay::named_regions(r, name))
    if (issues.inside(s.thread, s.start_ns, s.end_ns)) return true;
  return false;
}

// Worker processes enough to load one step's host work while the rest of the step runs: the
// work over the rest, rounded up to a power of two (DataLoader's usual counts), at most 8.
uint32_t workers_for(int64_t work_ns, int64_t step_ns) {
  const int64_t rest = std::max<int64_t>(1, step_ns - work_ns);
  uint32_t n = 1;
  while (n < 8 && static_cast<int64_t>(n) * rest < work_ns) n *= 2;
  return n;
}

// Host work the GPU waits on in a range, an op or a Python frame that queues no GPU work (the
// diagnosis' other host work, R10: data loading, preprocessing, IO), each of the two largest:
// run ahead by worker processes, as DataLoader workers run loading and the preprocessing in a
// Dataset. Never from a cold profile.
void add_host_work(const TraceReport& rep, Candidates* cands) {
  const Diagnosis& d = rep.diagnosis;
  if (!d.gpu || d.cold_profile || !d.steady.wall_ns) return;
  const ThreadStarts issues = issue_starts(rep.trace->records);
  size_t added = 0;
  for (const auto& h : d.steady.host) {  // the most time first
    const double share = static_cast<double>(h.ns) / static_cast<double>(d.steady.wall_ns);
    if (share < 0.05 || added == 2) break;
    const std::string level = h.level;
    if (h.bound != Bound::OtherHost || h.name.empty() ||
        (level != "range" && level != "op" && level != "frame") ||
        queues_gpu_work(rep.trace->records, issues, h.name))
      continue;
    Finding f;
    f.kind = Finding::Kind::HostWork;
    f.where = h.name;
    char b[128];
    std::snprintf(b, sizeof b, "the GPU waits %.0f%% of the steady steps while the host runs ",
                  100.0 * share);
    f.what = b + h.name + " (" + level + ")";
    const uint32_t workers = workers_for(h.ns, d.steady.wall_ns);
    const std::string n = std::to_string(workers);
    f.fix = "run it ahead of the step in " + count(workers, "worker process", "worker processes") +
            " (DataLoader(num_workers=" + n +
            "), with the preprocessing in the Dataset) or move "
            "it to the GPU; a CUDA graph does not remove it";
    add(cands, f, "workers=" + n + ":range=" + h.name);
    ++added;
  }
}

// Every candidate replayed on one graph; those that save enough, the largest savings first.
std::vector<Finding> replayed(const ImportedTrace& t, const Candidates& cands,
                              const AdviceOptions& opt, std::vector<int64_t>* site_saving_ns) {
  std::vector<replay::WhatIf> what_ifs;
  for (const auto& c : cands) what_ifs.push_back(c.w);
  const replay::ReplayReport replay = replay::replay_trace(t, what_ifs);
  std::vector<Finding> out;
  for (size_t i = 0; i < cands.size() && i < replay.what_ifs.size(); ++i) {
    const auto& x = replay.what_ifs[i];
    Finding f = cands[i].f;
    f.total_ns = x.total.replayed_ns;
    f.saving_ns = x.total.replayed_ns - x.total.predicted_ns;
    f.assumed = x.note;
    if (site_saving_ns && cands[i].site >= 0) {
      if (site_saving_ns->size() <= static_cast<size_t>(cands[i].site))
        site_saving_ns->resize(static_cast<size_t>(cands[i].site) + 1, -1);
      (*site_saving_ns)[static_cast<size_t>(cands[i].site)] = f.saving_ns;
    }
    if (f.saving_ns < opt.min_saving_ns ||
        static_cast<double>(f.saving_ns) < opt.min_share * static_cast<double>(f.total_ns))
      continue;
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) { return a.saving_ns > b.saving_ns; });
  if (out.size() > opt.max_findings) out.resize(opt.max_findings);
  return out;
}

}  // namespace

std::string ms_or_us(int64_t ns) {
  char b[64];
  if (ns >= 1000000)
    std::snprintf(b, sizeof b, "%.1f ms", static_cast<double>(ns) / 1e6);
  else
    std::snprintf(b, sizeof b, "%.1f us", static_cast<double>(ns) / 1e3);
  return b;
}

const char* to_string(Finding::Kind k) {
  switch (k) {
    case Finding::Kind::ValueRead:
      return "value read";
    case Finding::Kind::Sync:
      return "sync";
    case Finding::Kind::PageableCopies:
      return "pageable copies";
    case Finding::Kind::DeviceSync:
      return "device-wide sync";
    case Finding::Kind::HostWork:
      return "host work";
    case Finding::Kind::LaunchBound:
      break;
  }
  return "launch-bound";
}

std::vector<Finding> advise(const TraceReport& rep, const AdviceOptions& opt,
                            std::vector<int64_t>* site_saving_ns) {
  const RecordSet& r = rep.trace->records;
  if (r.kernels.empty() && r.memcpys.empty() && r.memsets.empty()) return {};
  Candidates cands;
  add_sync_sites(rep, opt, &cands);
  add_pageable_copies(r, &cands);
  add_device_syncs(rep, &cands);
  add_launch_bound(rep, &cands);
  add_host_work(rep, &cands);
  if (cands.empty()) return {};
  return replayed(*rep.trace, cands, opt, site_saving_ns);
}

void add_advice(TraceReport* rep, AdviceMode mode) {
  if (mode == AdviceMode::On || (mode == AdviceMode::BySize && rep->trace->bytes < kAdviceBytes)) {
    rep->advice = advise(*rep, {}, &rep->site_saving_ns);
    rep->advice_ran = true;
    // The diagnosis' host-work findings get the replayed saving of making their item free.
    for (auto& d : rep->diagnosis.findings)
      for (const auto& a : rep->advice)
        if (!d.item.empty() && a.kind == Finding::Kind::HostWork && a.where == d.item)
          d.what_if = a.what_if, d.replayed_ns = a.saving_ns;
    return;
  }
  rep->advice_skipped = mode == AdviceMode::Off
                            ? "not asked for (--no-advice)"
                            : "not given by default for a trace of 100 MB or more, whose replay "
                              "takes a while: --advice asks for it";
}

}  // namespace trace
