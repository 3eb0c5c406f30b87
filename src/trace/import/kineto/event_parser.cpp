#include "trace/import/kineto/event_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "trace/import/kineto/kineto_numbers.h"

namespace trace {

namespace {

enum class Cat : uint8_t {
  Runtime,
  Driver,
  Kernel,
  Memcpy,
  Memset,
  Sync,
  CpuOp,
  Annotation,
  GpuAnnotation,
  PyFunction,
  Phase,
  Trace,
  Other
};

// s == literal, with the literal's length a constant: a few loads where string_view's == calls
// memcmp (category() made up to eight such calls an event).
template <size_t N>
bool eq(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

Cat category(std::string_view c) {
  if (eq(c, "cuda_runtime") || eq(c, "Runtime")) return Cat::Runtime;
  if (eq(c, "cuda_driver") || eq(c, "Driver")) return Cat::Driver;
  if (eq(c, "kernel") || eq(c, "Kernel")) return Cat::Kernel;
  if (eq(c, "gpu_memcpy") || eq(c, "Memcpy") || eq(c, "memcpy")) return Cat::Memcpy;
  if (eq(c, "gpu_memset") || eq(c, "Memset") || eq(c, "memset")) return Cat::Memset;
  if (eq(c, "cuda_sync")) return Cat::Sync;
  if (eq(c, "cpu_op") || eq(c, "Operator")) return Cat::CpuOp;
  if (eq(c, "user_annotation")) return Cat::Annotation;
  if (eq(c, "gpu_user_annotation")) return Cat::GpuAnnotation;
  if (eq(c, "python_function")) return Cat::PyFunction;
  if (eq(c, "phase")) return Cat::Phase;  // our own --trace_dir files
  if (eq(c, "Trace")) return Cat::Trace;
  return Cat::Other;
}

template <size_t N>
bool starts_with(std::string_view s, const char (&p)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), p, N - 1) == 0;
}

MemoryKind memory_word(std::string_view w) {
  if (w == "Pageable" || w == "pageable") return MemoryKind::Pageable;
  if (w == "Pinned" || w == "pinned") return MemoryKind::Pinned;
  if (w == "Device" || w == "device") return MemoryKind::Device;
  return MemoryKind::Other;
}

// "Memcpy DtoH (Device -> Pinned)", "Memcpy HtoD" (ours: kinds in args).
void parse_memcpy_name(std::string_view name, MemcpyRecord* m) {
  const auto kind = name.substr(std::min<size_t>(7, name.size()), 4);
  m->kind = kind == "HtoD"   ? CopyKind::HtoD
            : kind == "DtoH" ? CopyKind::DtoH
            : kind == "DtoD" ? CopyKind::DtoD
            : kind == "HtoH" ? CopyKind::HtoH
                             : CopyKind::Other;
  const size_t open = name.find('('), arrow = name.find(" -> "), close = name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos &&
      close != std::string_view::npos && open < arrow && arrow < close) {
    m->src = memory_word(name.substr(open + 1, arrow - open - 1));
    m->dst = memory_word(name.substr(arrow + 4, close - arrow - 4));
  }
}

SyncKind sync_kind(std::string_view n) {
  if (n == "Stream Sync") return SyncKind::Stream;
  if (n == "Event Sync") return SyncKind::Event;
  if (n == "Context Sync") return SyncKind::Context;
  if (n == "Stream Wait Event") return SyncKind::StreamWaitEvent;
  return SyncKind::Other;
}

struct Number {
  bool present = false, is_int = false;
  int64_t i = 0;
  double d = 0;
};

Number read_number(simdjson::ondemand::value v) {
  Number n;
  auto t = v.type();
  if (t.error() || t.value_unsafe() != simdjson::ondemand::json_type::number) return n;
  n.present = true;
  int64_t i;
  if (!v.get_int64().get(i)) {
    n.is_int = true, n.i = i, n.d = static_cast<double>(i);
    return n;
  }
  double d;
  if (!v.get_double().get(d))
    n.d = d, n.i = static_cast<int64_t>(std::max(-9.2e18, std::min(9.2e18, d)));
  return n;
}

// A key compared as it stands in the JSON text (simdjson's raw key, just past its opening
// quote): no unescaping, so a key written with escapes (\u0074s) is not recognised.
// (The key's length is a constant, so that the compare is a few loads rather than a call.)
template <size_t N>
bool key_is(const char* raw, const char (&k)[N]) {
  return std::memcmp(raw, k, N - 1) == 0 && raw[N - 1] == '"';
}

}  // namespace

void EventParser::batch(const EventBatch& b, Partial* p) {
  if (b.top) {
    begin(p);
    try {
      top(b.key, b.whole());
    } catch (...) {
      p->error = std::current_exception();
    }
    return;
  }
  if (b.region) {
    if (b.separator_ok && whole_region(b, p)) return;
    // Element by element as the splitter would have handed them over one at a time.
    begin(p);
    try {
      std::string text(b.bytes.data() + b.region_at + 1,
                       b.region_size);  // without the '[' and ']'
      if (b.blanked) text[b.blanked - b.region_at - 1] = ',';
      JsonEventStream::run_region(text, name_, b.region_offset, b.first_index,
                                  [&](const JsonSlice& s, uint64_t index) { event(s, index); });
    } catch (...) {
      p->error = std::current_exception();
    }
    return;
  }
  begin(p);
  try {
    for (size_t i = 0; i < b.events.size(); ++i) event(b.slice(b.events[i]), b.first_index + i);
  } catch (...) {
    p->error = std::current_exception();
  }
}

void EventParser::begin(Partial* p) {
  out_ = &p->t;
  part_ = p;
  string_ids_.clear();
  kernel_name_ids_.clear();
  frame_name_ids_.clear();
}

// `s` as an index into this batch's EventListing::strings (merge() renumbers them).
uint32_t EventParser::string_id(std::string_view s) {
  auto& strings = out_->listing.strings;
  const auto [id, added] = string_ids_.find_or_add(s, static_cast<uint32_t>(strings.size()));
  if (added) strings.emplace_back(s);
  return id;
}

// The region as one document. Any failure, of the JSON or of an event, is left to the
// element-by-element parse, which reports the first bad event as it always has, so this parse
// only ever yields what that one would.
bool EventParser::whole_region(const EventBatch& b, Partial* p) {
  begin(p);
  try {
    auto doc = parser_.iterate(simdjson::padded_string_view(
        b.bytes.data() + b.region_at, b.region_size + 2, b.bytes.size() - b.region_at));
    uint64_t i = 0;
    for (simdjson::ondemand::value v : doc.get_array()) {
      if (i == b.region_elements) throw InputError("more values in the region than split");
      ++out_->events;
      // (Offsets are not kept: any error here is thrown away and named by the reread.)
      parse_event(v.get_object(), b.first_index + i, 0);
      ++i;
    }
    if (i != b.region_elements) throw InputError("fewer values in the region than split");
    return true;
  } catch (...) {
    *p = Partial();
    return false;
  }
}

void EventParser::event(const JsonSlice& s, uint64_t index) {
  ++out_->events;
  try {
    auto doc = parser_.iterate(simdjson::padded_string_view(s.data, s.size, s.capacity));
    parse_event(doc.get_object(), index, s.offset);
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(name_ + ": event " + std::to_string(index) + " (byte offset " +
                     std::to_string(s.offset) + ") is not valid JSON: " + e.what());
  }
}

namespace {

// A bound on what a file can make us keep: no machine has more GPUs than this.
constexpr size_t kMaxDevices = 1024;

// One element of deviceProperties: the fields the replay's constants are looked up by; a field
// of another type is left unread, as a field this reader does not know.
DeviceProperties read_device(simdjson::ondemand::object obj) {
  DeviceProperties d;
  for (auto field : obj) {
    const std::string_view k = field.unescaped_key();
    simdjson::ondemand::value v = field.value();
    std::string_view str;
    int64_t i = 0;
    if (k == "name") {
      if (!v.get_string().get(str)) d.name = std::string(str.substr(0, 256));
    } else if (k == "id" || k == "computeMajor" || k == "computeMinor" || k == "totalGlobalMem") {
      if (v.get_int64().get(i) || i < 0) continue;
      if (k == "id") d.id = static_cast<uint32_t>(std::min<int64_t>(i, UINT32_MAX));
      if (k == "computeMajor") d.compute_major = static_cast<int32_t>(std::min<int64_t>(i, 1000));
      if (k == "computeMinor") d.compute_minor = static_cast<int32_t>(std::min<int64_t>(i, 1000));
      if (k == "totalGlobalMem") d.total_memory = static_cast<uint64_t>(i);
    }
  }
  return d;
}

}  // namespace

void EventParser::top(std::string_view key, const JsonSlice& s) {
  try {
    auto doc = parser_.iterate(simdjson::padded_string_view(s.data, s.size, s.capacity));
    if (key == "deviceProperties") {
      for (simdjson::ondemand::value v : doc.get_array())
        if (out_->devices.size() < kMaxDevices)
          out_->devices.push_back(read_device(v.get_object()));
      return;
    }
    auto obj = doc.get_object();
    for (auto field : obj) {
      const std::string_view k = field.unescaped_key();
      simdjson::ondemand::value v = field.value();
      if (key == "distributedInfo" && k == "rank") {
        const Number n = read_number(v);
        if (n.present) out_->rank = n.i, part_->rank_set = true;
      } else if (key == "otherData" && (k == "producer" || k == "clock")) {
        std::string_view str;
        if (!v.get_string().get(str))
          (k == "producer" ? out_->producer : part_->clock) = std::string(str);
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(name_ + ": top-level \"" + std::string(key) + "\" (byte offset " +
                     std::to_string(s.offset) + ") is not valid JSON: " + e.what());
  }
}

void EventParser::bad(uint64_t index, uint64_t offset, const std::string& what) {
  throw InputError(name_ + ": event " + std::to_string(index) + " (byte offset " +
                   std::to_string(offset) + "): " + what);
}

// A frame's name as an index into this batch's RecordSet::frame_names (merge() renumbers them).
// "<built-in method item of Tensor object at 0x7f...>": the object's address is dropped, so that
// one method on any object is one name (and one entry here).
uint32_t EventParser::frame_name_id(std::string_view name) {
  if (name.size() > 1 && name.front() == '<' && name.back() == '>') {
    const size_t at = name.rfind(" at 0x");
    if (at != std::string_view::npos) {
      frame_name_buf_.assign(name.substr(0, at));
      frame_name_buf_ += '>';
      name = frame_name_buf_;
    }
  }
  auto& names = out_->records.frame_names;
  const auto [id, added] = frame_name_ids_.find_or_add(name, static_cast<uint32_t>(names.size()));
  if (added) names.emplace_back(name);
  return id;
}

ApiKind EventParser::api_kind(const std::string& name) {
  const auto it = api_kinds_.find(name);
  if (it != api_kinds_.end()) return it->second;
  const ApiKind k = classify_api(name);
  if (api_kinds_.size() < 4096) api_kinds_.emplace(name, k);  // bounded, whatever the input
  return k;
}

// The steps of parse_event below are compiled into it, as when they were written in it: apart,
// their calls cost the import 1.6 % more instructions (callgrind, a 45 MB generated trace).
#define IRIS_PARSE_STEP __attribute__((always_inline)) inline

// One event's fields as read. The strings are views into the parser's buffer, valid until the
// next document is parsed.
struct EventFields {
  std::string_view name, cat_text, ts_text, dur_text;
  bool has_cat = false, has_name = false, has_ts = false, has_dur = false;
  Number pid, tid, correlation, stream, device, bytes, depth, wait_stream, wait_record;
  Number memory_bw;  // args "memory bandwidth (GB/s)" (copies and sets)
  // With list_events, "pid" and "tid" as written (HTA's columns keep text and fractions).
  ListedId pid_as_written, tid_as_written;
  std::string_view pid_text, tid_text;
  std::string_view stream_text;
  bool stream_is_text = false;
  std::string_view src_word, dst_word;
  char ph = 0;
  Cat cat = Cat::Other;
};

namespace {

// The args this reader uses (correlation, stream, device, bytes, ...); the rest are skipped.
IRIS_PARSE_STEP void read_args(simdjson::ondemand::value v, EventFields* f) {
  auto t = v.type();
  if (t.error() || t.value_unsafe() != simdjson::ondemand::json_type::object) return;
  for (auto arg : v.get_object()) {
    const char* k = arg.key().value().raw();
    simdjson::ondemand::value av = arg.value();
    if (key_is(k, "correlation"))
      f->correlation = read_number(av);
    else if (key_is(k, "stream")) {
      auto at = av.type();
      if (!at.error() && at.value_unsafe() == simdjson::ondemand::json_type::string) {
        std::string_view str;
        if (!av.get_string().get(str)) f->stream_text = str, f->stream_is_text = true;
        f->stream.present = true, f->stream.i = string_to_int(f->stream_text);
      } else
        f->stream = read_number(av);
    } else if (key_is(k, "device"))
      f->device = read_number(av);
    else if (key_is(k, "bytes"))
      f->bytes = read_number(av);
    else if (key_is(k, "memory bandwidth (GB/s)"))
      f->memory_bw = read_number(av);
    else if (key_is(k, "depth"))
      f->depth = read_number(av);
    else if (key_is(k, "wait_on_stream"))
      f->wait_stream = read_number(av);  // cuda_sync rows
    else if (key_is(k, "wait_on_cuda_event_record_corr_id"))
      f->wait_record = read_number(av);
    else if (key_is(k, "src") || key_is(k, "dst")) {
      std::string_view str;
      if (!av.get_string().get(str))
        (k[0] == 's' ? f->src_word : f->dst_word) = str;  // ours: "pinned", ...
    }
  }
}

// A pid or tid as pandas reads it: a number, text (its string in *text), null as missing.
ListedId as_written(simdjson::ondemand::value v, const Number& n, std::string_view* text) {
  ListedId id;
  if (n.present) {
    id.kind = n.is_int ? ListedId::kInt : ListedId::kFloat, id.i = n.i, id.d = n.d;
    return id;
  }
  auto t = v.type();
  if (t.error() || t.value_unsafe() == simdjson::ondemand::json_type::null) return id;
  id.kind = ListedId::kOther;
  if (t.value_unsafe() == simdjson::ondemand::json_type::string && !v.get_string().get(*text))
    id.kind = ListedId::kText;
  return id;
}

}  // namespace

// Unless listing, only complete events are read: the rest stop at their phase (false), and the
// args of categories that use none (cpu_op, user_annotation, ...) are skipped unread.
IRIS_PARSE_STEP bool EventParser::read_fields(simdjson::ondemand::object obj, uint64_t index,
                                              uint64_t offset, EventFields* f) {
  const bool listing = opt_.list_events;
  for (auto field : obj) {
    const char* key = field.key().value().raw();
    simdjson::ondemand::value v = field.value();
    const auto number_text = [&](const char* what) {
      auto t = v.type();
      if (t.error() || t.value_unsafe() != simdjson::ondemand::json_type::number)
        bad(index, offset, std::string("\"") + what + "\" is not a number");
      return v.raw_json_token();
    };
    switch (key[0]) {
      case 'p':
        if (key_is(key, "ph")) {
          std::string_view p = v.get_string();
          f->ph = p.size() == 1 ? p[0] : '?';
          if (!listing && f->ph != 'X') return false;
        } else if (key_is(key, "pid")) {
          f->pid = read_number(v);
          if (listing) f->pid_as_written = as_written(v, f->pid, &f->pid_text);
        }
        break;
      case 'c':
        if (key_is(key, "cat")) {
          f->cat_text = v.get_string();
          f->cat = category(f->cat_text);
          f->has_cat = true;
        }
        break;
      case 'n':
        if (key_is(key, "name")) {
          if (v.get_string().get(f->name)) bad(index, offset, "\"name\" is not a valid string");
          f->has_name = true;
        }
        break;
      case 't':
        if (key_is(key, "ts"))
          f->ts_text = number_text("ts"), f->has_ts = true;
        else if (key_is(key, "tid")) {
          f->tid = read_number(v);
          if (listing) f->tid_as_written = as_written(v, f->tid, &f->tid_text);
        }
        break;
      case 'd':
        if (key_is(key, "dur")) f->dur_text = number_text("dur"), f->has_dur = true;
        break;
      case 'a':
        if (!key_is(key, "args")) break;
        if (!listing && f->has_cat &&
            (f->cat == Cat::CpuOp || f->cat == Cat::Annotation || f->cat == Cat::PyFunction ||
             f->cat == Cat::Trace || f->cat == Cat::Other))
          break;  // a category that uses no args
        read_args(v, f);
        break;
      default:
        break;
    }
  }
  return true;
}

// Not a complete event: counted, not read further.
IRIS_PARSE_STEP void EventParser::ignore(const EventFields& f) {
  if (f.ph == 'B' || f.ph == 'E') ++part_->begin_end_events;
  ++out_->ignored_events;
}

// Whether the listed times were missing or fractional (EventListing), before they are read.
IRIS_PARSE_STEP void EventParser::note_listed_times(const EventFields& f) {
  const auto fractional = [](std::string_view t) {
    return t.find_first_of(".eE") != std::string_view::npos;
  };
  EventListing& l = out_->listing;
  l.ts_missing |= !f.has_ts, l.dur_missing |= !f.has_dur;
  l.ts_fractional |= f.has_ts && fractional(f.ts_text);
  l.dur_fractional |= f.has_dur && fractional(f.dur_text);
  l.pid_kinds |= static_cast<uint8_t>(1u << f.pid_as_written.kind);
  l.tid_kinds |= static_cast<uint8_t>(1u << f.tid_as_written.kind);
}

IRIS_PARSE_STEP void EventParser::list_event(const EventFields& f, uint64_t index) {
  ListedEvent e;
  e.index = index;
  e.ts_us = text_to_double(f.ts_text), e.dur_us = text_to_double(f.dur_text);
  if (f.stream.present)
    e.stream = f.stream.is_int || f.stream_is_text ? f.stream.i : static_cast<int64_t>(f.stream.d);
  if (f.correlation.present) e.correlation = f.correlation.i;
  e.category = string_id(f.cat_text);
  if (f.has_name) e.name = string_id(f.name);
  e.pid = f.pid_as_written, e.tid = f.tid_as_written;
  if (f.memory_bw.present) e.memory_bw_gbps = f.memory_bw.d;
  if (e.pid.kind == ListedId::kText) e.pid.i = string_id(f.pid_text);
  if (e.tid.kind == ListedId::kText) e.tid.i = string_id(f.tid_text);
  out_->listing.events.push_back(e);
}

IRIS_PARSE_STEP void EventParser::add_api(const EventFields& f, uint64_t start, uint64_t end,
                                          uint32_t corr, uint32_t thread) {
  ApiRecord a;
  a.start_ns = start, a.end_ns = end, a.correlation_id = corr, a.thread_id = thread;
  a.name = std::string(f.name);
  a.kind = api_kind(a.name);
  a.driver = f.cat == Cat::Driver || (starts_with(a.name, "cu") && !starts_with(a.name, "cuda"));
  if (starts_with(a.name, "hip")) out_->hip = true;
  out_->records.api.push_back(std::move(a));
}

IRIS_PARSE_STEP void EventParser::add_kernel(const EventFields& f, uint64_t start, uint64_t end,
                                             uint32_t corr, uint32_t device, uint32_t stream) {
  RecordSet& r = out_->records;
  r.kernels.push_back(
      {start, end, corr, device, stream, opt_.kernel_names ? std::string(f.name) : std::string()});
  if (!opt_.kernel_names && opt_.kernel_name_ids) {  // 1 + the batch's index (merge renumbers)
    const auto [id, added] =
        kernel_name_ids_.find_or_add(f.name, static_cast<uint32_t>(r.kernel_names.size() + 1));
    if (added) r.kernel_names.emplace_back(f.name);
    r.kernels.back().name_id = id;
  }
}

// The complete event [start, end] as the record of its category.
IRIS_PARSE_STEP void EventParser::add_record(const EventFields& f, uint64_t start, uint64_t end) {
  const uint32_t thread = f.tid.present ? static_cast<uint32_t>(f.tid.i) : 0;
  const uint32_t corr = f.correlation.present ? static_cast<uint32_t>(f.correlation.i) : 0;
  const uint32_t dev = f.device.present ? static_cast<uint32_t>(f.device.i)
                       : f.pid.present  ? static_cast<uint32_t>(f.pid.i)
                                        : 0;
  uint32_t str = f.tid.present ? static_cast<uint32_t>(f.tid.i) : 0;
  if (f.stream.present) str = f.stream.i < 0 ? kNoStream : static_cast<uint32_t>(f.stream.i);
  RecordSet& r = out_->records;
  const bool step = starts_with(f.name, "ProfilerStep#");
  switch (f.cat) {
    case Cat::Runtime:
    case Cat::Driver:
      add_api(f, start, end, corr, thread);
      break;
    case Cat::Kernel:
      add_kernel(f, start, end, corr, dev, str);
      break;
    case Cat::Memcpy: {
      MemcpyRecord m;
      m.start_ns = start, m.end_ns = end, m.correlation_id = corr, m.device_id = dev,
      m.stream_id = str;
      m.bytes = f.bytes.present && f.bytes.i > 0 ? static_cast<uint64_t>(f.bytes.i) : 0;
      parse_memcpy_name(f.name, &m);
      if (!f.src_word.empty()) m.src = memory_word(f.src_word);
      if (!f.dst_word.empty()) m.dst = memory_word(f.dst_word);
      r.memcpys.push_back(m);
      break;
    }
    case Cat::Memset:
      r.memsets.push_back(
          {start, end, corr, dev, str,
           f.bytes.present && f.bytes.i > 0 ? static_cast<uint64_t>(f.bytes.i) : 0});
      break;
    case Cat::Sync: {
      SyncRecord y{start, end, corr, str, sync_kind(f.name)};
      // -1 (Kineto's "not known") and absent stay kNoStream / 0.
      if (f.wait_stream.present && f.wait_stream.i >= 0 && f.wait_stream.i < kNoStream)
        y.wait_stream = static_cast<uint32_t>(f.wait_stream.i);
      if (f.wait_record.present && f.wait_record.i > 0 && f.wait_record.i <= UINT32_MAX)
        y.wait_record_correlation = static_cast<uint32_t>(f.wait_record.i);
      r.syncs.push_back(y);
      break;
    }
    case Cat::CpuOp:
      if (step) r.steps.push_back({start, end, std::string(f.name)});
      r.cpu_ops.push_back({start, end, thread, std::string(f.name)});
      break;
    case Cat::Annotation:
      if (step) r.steps.push_back({start, end, std::string(f.name)});
      r.annotations.push_back({start, end, thread, false, std::string(f.name)});
      break;
    case Cat::GpuAnnotation:
      r.annotations.push_back({start, end, str, true, std::string(f.name)});
      break;
    case Cat::PyFunction:
      r.py_frames.push_back({start, end, thread, frame_name_id(f.name)});
      break;
    case Cat::Phase:
      r.ranges.push_back({start, end, thread,
                          static_cast<uint16_t>(f.depth.present ? f.depth.i : 0),
                          std::string(f.name)});
      break;
    default:
      ++out_->ignored_events;
  }
}

void EventParser::parse_event(simdjson::ondemand::object obj, uint64_t index, uint64_t offset) {
  EventFields f;
  if (!read_fields(obj, index, offset, &f)) return ignore(f);
  const bool listing = opt_.list_events;
  if (listing) note_listed_times(f);
  int64_t ts = 0, dur = 0;
  if (f.has_ts && !us_text_to_ns(f.ts_text, &ts))
    bad(index, offset, "\"ts\" " + std::string(f.ts_text) + " is out of range");
  if (f.has_dur && !us_text_to_ns(f.dur_text, &dur))
    bad(index, offset, "\"dur\" " + std::string(f.dur_text) + " is out of range");
  if (listing && f.has_cat && f.has_dur && f.has_ts) list_event(f, index);

  if (f.ph != 'X') return ignore(f);
  if (!f.has_ts) bad(index, offset, "a complete event (\"ph\": \"X\") without \"ts\"");
  if (!f.has_dur) bad(index, offset, "a complete event (\"ph\": \"X\") without \"dur\"");
  if (ts < 0) bad(index, offset, "negative \"ts\" " + std::string(f.ts_text));
  if (dur < 0) ++out_->negative_durations, dur = 0;
  if (listing && !opt_.records) return;
  const uint64_t start = static_cast<uint64_t>(ts);
  add_record(f, start, start + static_cast<uint64_t>(dur));
}

}  // namespace trace
