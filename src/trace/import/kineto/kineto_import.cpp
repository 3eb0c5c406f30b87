#include "trace/import/kineto/kineto_import.h"

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "trace/import/common/finish_records.h"
#include "trace/import/kineto/event_parser.h"
#include "trace/import/kineto/event_pipeline.h"
#include "trace/import/kineto/json_event_stream.h"

namespace trace {

namespace {

// After the merge: clocks, steps, the correlation checks and the warnings. Without records
// (ImportOptions::records) only the file's own warnings: the rest would describe no records.
void finish(ImportedTrace* out_, const std::string& clock_, uint64_t begin_end_events_,
            bool records) {
  RecordSet& r = out_->records;
  const bool ours = out_->producer.rfind("iris-gpu-overhead", 0) == 0;
  r.clock = ours && !clock_.empty() ? clock_ : "kineto";
  if (ours) {  // our writer puts GPU device d in process 100 + d and gives no args.device
    for (auto& k : r.kernels) k.device_id -= k.device_id >= 100 ? 100 : 0;
    for (auto& m : r.memcpys) m.device_id -= m.device_id >= 100 ? 100 : 0;
    for (auto& m : r.memsets) m.device_id -= m.device_id >= 100 ? 100 : 0;
  }
  if (records) {
    settle_steps(&r);
    count_unmatched_correlations(out_);
  }

  auto& w = out_->warnings;
  if (out_->hip)
    w.push_back(
        "HIP runtime names (an AMD ROCm trace): hipLaunchKernel, hipMemcpy*, hip*Synchronize are "
        "read as their CUDA "
        "counterparts; HIP copies name no pageable/pinned host memory (shown as 'other')");
  if (records && r.kernels.empty() && r.memcpys.empty() && r.memsets.empty())
    w.push_back("no GPU events (kernel, gpu_memcpy, gpu_memset) in this trace: host figures only");
  if (out_->unmatched_correlations)
    w.push_back(std::to_string(out_->unmatched_correlations) +
                " GPU events have a correlation id that matches no runtime/driver call (kept as "
                "GPU work; no launch delay for them)");
  if (out_->launches_without_gpu)
    w.push_back(std::to_string(out_->launches_without_gpu) +
                " launch calls have no GPU event with their correlation id (launched outside the "
                "profiled window, or not recorded)");
  if (out_->negative_durations)
    w.push_back(std::to_string(out_->negative_durations) +
                " events had a negative \"dur\", taken as 0");
  if (begin_end_events_)
    w.push_back(
        std::to_string(begin_end_events_) +
        " begin/end (\"ph\": \"B\"/\"E\") events ignored: only complete events (\"X\") are read");
  if (records && r.steps.empty())
    w.push_back("no ProfilerStep#N ranges: the whole trace is one window");
}

template <typename T>
void append(std::vector<T>* to, std::vector<T>* from) {
  if (to->empty()) {
    *to = std::move(*from);
    return;
  }
  if (to->size() + from->size() > to->capacity())
    to->reserve(std::max(4 * to->capacity(), to->size() + from->size()));
  to->insert(to->end(), std::make_move_iterator(from->begin()),
             std::make_move_iterator(from->end()));
}

// A batch's listed events after the trace's, its strings renumbered into the trace's.
void append_listing(EventListing* to, std::unordered_map<std::string, uint32_t>* ids,
                    EventListing* from) {
  std::vector<uint32_t> renumber(from->strings.size());
  for (size_t i = 0; i < from->strings.size(); ++i) {
    const auto [it, added] =
        ids->try_emplace(from->strings[i], static_cast<uint32_t>(to->strings.size()));
    if (added) to->strings.push_back(std::move(from->strings[i]));
    renumber[i] = it->second;
  }
  for (auto& e : from->events) {
    if (e.name != ListedEvent::kNone) e.name = renumber[e.name];
    if (e.category != ListedEvent::kNone) e.category = renumber[e.category];
    if (e.pid.kind == ListedId::kText) e.pid.i = renumber[static_cast<size_t>(e.pid.i)];
    if (e.tid.kind == ListedId::kText) e.tid.i = renumber[static_cast<size_t>(e.tid.i)];
  }
  append(&to->events, &from->events);
  to->ts_missing |= from->ts_missing, to->ts_fractional |= from->ts_fractional;
  to->dur_missing |= from->dur_missing, to->dur_fractional |= from->dur_fractional;
  to->pid_kinds |= from->pid_kinds, to->tid_kinds |= from->tid_kinds;
}

// A batch's names appended to the trace's where new: each batch name's index in `to` (+ base).
std::vector<uint32_t> renumber_names(std::vector<std::string>* to,
                                     std::unordered_map<std::string, uint32_t>* ids,
                                     std::vector<std::string>* from, uint32_t base) {
  std::vector<uint32_t> renumber(from->size());
  for (size_t i = 0; i < from->size(); ++i) {
    const auto [it, added] = ids->try_emplace((*from)[i], static_cast<uint32_t>(to->size() + base));
    if (added) to->push_back(std::move((*from)[i]));
    renumber[i] = it->second;
  }
  return renumber;
}

// The trace's names so far, by kind: listed strings, kernel names (1 + index), frame names.
struct NameIds {
  std::unordered_map<std::string, uint32_t> strings, kernels, frames;
};

// Adds one batch's results to the trace, in document order; rethrows the batch's error.
void merge(ImportedTrace* out, std::string* clock, uint64_t* begin_end, NameIds* ids, Partial&& p) {
  if (p.error) std::rethrow_exception(p.error);
  ImportedTrace& t = p.t;
  RecordSet& r = out->records;
  append(&r.api, &t.records.api);
  if (!t.records.kernel_names.empty()) {  // the batch's name ids renumbered into the trace's
    const auto renumber =
        renumber_names(&r.kernel_names, &ids->kernels, &t.records.kernel_names, 1);
    for (auto& k : t.records.kernels)
      if (k.name_id) k.name_id = renumber[k.name_id - 1];
  }
  if (!t.records.frame_names.empty()) {
    const auto renumber = renumber_names(&r.frame_names, &ids->frames, &t.records.frame_names, 0);
    for (auto& f : t.records.py_frames) f.name_id = renumber[f.name_id];
  }
  append(&r.py_frames, &t.records.py_frames);
  append(&r.kernels, &t.records.kernels);
  append(&r.memcpys, &t.records.memcpys);
  append(&r.memsets, &t.records.memsets);
  append(&r.syncs, &t.records.syncs);
  append(&r.ranges, &t.records.ranges);
  append(&r.cpu_ops, &t.records.cpu_ops);
  append(&r.annotations, &t.records.annotations);
  append(&r.steps, &t.records.steps);
  append_listing(&out->listing, &ids->strings, &t.listing);
  out->events += t.events;
  out->ignored_events += t.ignored_events;
  out->negative_durations += t.negative_durations;
  out->hip |= t.hip;
  *begin_end += p.begin_end_events;
  if (p.rank_set) out->rank = t.rank;
  append(&out->devices, &t.devices);
  if (!t.producer.empty()) out->producer = std::move(t.producer);
  if (!p.clock.empty()) *clock = std::move(p.clock);
}

}  // namespace

ImportedTrace import_trace(ByteSource& source, const std::string& name,
                           const ImportOptions& options) {
  ImportedTrace out;
  out.file = name;
  out.records.step_phase = options.step_phase;
  JsonEventStream stream(source, name);
  const unsigned workers =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<EventParser> parsers;
  parsers.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) parsers.emplace_back(name, options);
  std::string clock;
  uint64_t begin_end = 0;
  NameIds ids;
  out.listing.listed = options.list_events;
  run_event_pipeline<Partial>(
      stream, workers, options.region_parse ? options.region_bytes : 0,
      [](std::string_view k) {
        return k == "distributedInfo" || k == "otherData" || k == "deviceProperties";
      },
      [&](unsigned w, const EventBatch& b, Partial* p) { parsers[w].batch(b, p); },
      [&](Partial&& p) { merge(&out, &clock, &begin_end, &ids, std::move(p)); });
  out.bytes = stream.bytes();
  finish(&out, clock, begin_end, options.records || !options.list_events);
  return out;
}

ImportedTrace import_trace(const std::string& path, const ImportOptions& options) {
  auto source = open_byte_source(path);
  return import_trace(*source, path, options);
}

}  // namespace trace
