#include "trace/import/kineto/event_parser.h"

#include <algorithm>
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

void EventParser::top(std::string_view key, const JsonSlice& s) {
  try {
    auto doc = parser_.iterate(simdjson::padded_string_view(s.data, s.size, s.capacity));
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

void EventParser::parse_event(simdjson::ondemand::object obj, uint64_t index, uint64_t offset) {
  // Strings stay valid in the parser's buffer until the next document is parsed.
  std::string_view name_view, cat_view;
  std::string_view ts_text, dur_text;
  bool has_cat = false, has_name = false, has_ts = false, has_dur = false;
  Number pid, tid, correlation, stream, device, bytes, depth, wait_stream, wait_record;
  std::string_view stream_text;
  bool stream_is_text = false;
  std::string_view src_word, dst_word;
  char ph_buf = 0;
  Cat cat = Cat::Other;
  const bool listing = opt_.list_events;
  // Unless listing, only complete events are read: the rest stop at their phase, and the args
  // of categories that use none (cpu_op, user_annotation, ...) are skipped unread.
  const auto ignore = [&] {  // not a complete event: counted, not read further
    if (ph_buf == 'B' || ph_buf == 'E') ++part_->begin_end_events;
    ++out_->ignored_events;
  };
  const auto args_unused = [&] {
    return !listing && has_cat &&
           (cat == Cat::CpuOp || cat == Cat::Annotation || cat == Cat::PyFunction ||
            cat == Cat::Trace || cat == Cat::Other);
  };
  for (auto field : obj) {
    const char* key = field.key().value().raw();
    simdjson::ondemand::value v = field.value();
    const auto number_text = [&](const char* what, std::string_view* text, bool* has) {
      auto t = v.type();
      if (t.error() || t.value_unsafe() != simdjson::ondemand::json_type::number)
        bad(index, offset, std::string("\"") + what + "\" is not a number");
      *text = v.raw_json_token();
      *has = true;
    };
    switch (key[0]) {
      case 'p':
        if (key_is(key, "ph")) {
          std::string_view p = v.get_string();
          ph_buf = p.size() == 1 ? p[0] : '?';
          if (!listing && ph_buf != 'X') return ignore();
        } else if (key_is(key, "pid")) {
          pid = read_number(v);
        }
        break;
      case 'c':
        if (key_is(key, "cat")) {
          cat_view = v.get_string();
          cat = category(cat_view);
          has_cat = true;
        }
        break;
      case 'n':
        if (key_is(key, "name")) {
          if (v.get_string().get(name_view)) bad(index, offset, "\"name\" is not a valid string");
          has_name = true;
        }
        break;
      case 't':
        if (key_is(key, "ts"))
          number_text("ts", &ts_text, &has_ts);
        else if (key_is(key, "tid"))
          tid = read_number(v);
        break;
      case 'd':
        if (key_is(key, "dur")) number_text("dur", &dur_text, &has_dur);
        break;
      case 'a': {
        if (!key_is(key, "args") || args_unused()) break;
        auto t = v.type();
        if (t.error() || t.value_unsafe() != simdjson::ondemand::json_type::object) break;
        for (auto arg : v.get_object()) {
          const char* k = arg.key().value().raw();
          simdjson::ondemand::value av = arg.value();
          if (key_is(k, "correlation"))
            correlation = read_number(av);
          else if (key_is(k, "stream")) {
            auto at = av.type();
            if (!at.error() && at.value_unsafe() == simdjson::ondemand::json_type::string) {
              std::string_view str;
              if (!av.get_string().get(str)) stream_text = str, stream_is_text = true;
              stream.present = true, stream.i = string_to_int(stream_text);
            } else
              stream = read_number(av);
          } else if (key_is(k, "device"))
            device = read_number(av);
          else if (key_is(k, "bytes"))
            bytes = read_number(av);
          else if (key_is(k, "depth"))
            depth = read_number(av);
          else if (key_is(k, "wait_on_stream"))
            wait_stream = read_number(av);  // cuda_sync rows
          else if (key_is(k, "wait_on_cuda_event_record_corr_id"))
            wait_record = read_number(av);
          else if (key_is(k, "src") || key_is(k, "dst")) {
            std::string_view str;
            if (!av.get_string().get(str))
              (k[0] == 's' ? src_word : dst_word) = str;  // ours: "pinned", ...
          }
        }
        break;
      }
      default:
        break;
    }
  }
  if (listing) {
    const auto fractional = [](std::string_view t) {
      return t.find_first_of(".eE") != std::string_view::npos;
    };
    EventListing& l = out_->listing;
    l.ts_missing |= !has_ts, l.dur_missing |= !has_dur;
    l.ts_fractional |= has_ts && fractional(ts_text);
    l.dur_fractional |= has_dur && fractional(dur_text);
  }

  int64_t ts = 0, dur = 0;
  if (has_ts && !us_text_to_ns(ts_text, &ts))
    bad(index, offset, "\"ts\" " + std::string(ts_text) + " is out of range");
  if (has_dur && !us_text_to_ns(dur_text, &dur))
    bad(index, offset, "\"dur\" " + std::string(dur_text) + " is out of range");

  if (listing && has_cat && has_dur && has_ts) {
    ListedEvent e;
    e.index = index;
    e.ts_us = text_to_double(ts_text), e.dur_us = text_to_double(dur_text);
    if (stream.present)
      e.stream = stream.is_int || stream_is_text ? stream.i : static_cast<int64_t>(stream.d);
    if (correlation.present) e.correlation = correlation.i;
    e.category = string_id(cat_view);
    if (has_name) e.name = string_id(name_view);
    out_->listing.events.push_back(e);
  }

  if (ph_buf != 'X') return ignore();
  if (!has_ts) bad(index, offset, "a complete event (\"ph\": \"X\") without \"ts\"");
  if (!has_dur) bad(index, offset, "a complete event (\"ph\": \"X\") without \"dur\"");
  if (ts < 0) bad(index, offset, "negative \"ts\" " + std::string(ts_text));
  if (dur < 0) ++out_->negative_durations, dur = 0;
  if (listing && !opt_.records) return;
  const uint64_t start = static_cast<uint64_t>(ts), end = start + static_cast<uint64_t>(dur);
  const uint32_t thread = tid.present ? static_cast<uint32_t>(tid.i) : 0;
  const uint32_t corr = correlation.present ? static_cast<uint32_t>(correlation.i) : 0;
  const uint32_t dev = device.present ? static_cast<uint32_t>(device.i)
                       : pid.present  ? static_cast<uint32_t>(pid.i)
                                      : 0;
  uint32_t str = tid.present ? static_cast<uint32_t>(tid.i) : 0;
  if (stream.present) str = stream.i < 0 ? kNoStream : static_cast<uint32_t>(stream.i);
  RecordSet& r = out_->records;
  const bool step = starts_with(name_view, "ProfilerStep#");
  switch (cat) {
    case Cat::Runtime:
    case Cat::Driver: {
      ApiRecord a;
      a.start_ns = start, a.end_ns = end, a.correlation_id = corr, a.thread_id = thread;
      a.name = std::string(name_view);
      a.kind = api_kind(a.name);
      a.driver = cat == Cat::Driver || (starts_with(a.name, "cu") && !starts_with(a.name, "cuda"));
      if (starts_with(a.name, "hip")) out_->hip = true;
      r.api.push_back(std::move(a));
      break;
    }
    case Cat::Kernel:
      r.kernels.push_back(
          {start, end, corr, dev, str, opt_.kernel_names ? std::string(name_view) : std::string()});
      if (!opt_.kernel_names && opt_.kernel_name_ids) {  // 1 + the batch's index (merge renumbers)
        const auto [id, added] = kernel_name_ids_.find_or_add(
            name_view, static_cast<uint32_t>(r.kernel_names.size() + 1));
        if (added) r.kernel_names.emplace_back(name_view);
        r.kernels.back().name_id = id;
      }
      break;
    case Cat::Memcpy: {
      MemcpyRecord m;
      m.start_ns = start, m.end_ns = end, m.correlation_id = corr, m.device_id = dev,
      m.stream_id = str;
      m.bytes = bytes.present && bytes.i > 0 ? static_cast<uint64_t>(bytes.i) : 0;
      parse_memcpy_name(name_view, &m);
      if (!src_word.empty()) m.src = memory_word(src_word);
      if (!dst_word.empty()) m.dst = memory_word(dst_word);
      r.memcpys.push_back(m);
      break;
    }
    case Cat::Memset:
      r.memsets.push_back({start, end, corr, dev, str,
                           bytes.present && bytes.i > 0 ? static_cast<uint64_t>(bytes.i) : 0});
      break;
    case Cat::Sync: {
      SyncRecord y{start, end, corr, str, sync_kind(name_view)};
      // -1 (Kineto's "not known") and absent stay kNoStream / 0.
      if (wait_stream.present && wait_stream.i >= 0 && wait_stream.i < kNoStream)
        y.wait_stream = static_cast<uint32_t>(wait_stream.i);
      if (wait_record.present && wait_record.i > 0 && wait_record.i <= UINT32_MAX)
        y.wait_record_correlation = static_cast<uint32_t>(wait_record.i);
      r.syncs.push_back(y);
      break;
    }
    case Cat::CpuOp:
      if (step) r.steps.push_back({start, end, std::string(name_view)});
      r.cpu_ops.push_back({start, end, thread, std::string(name_view)});
      break;
    case Cat::Annotation:
      if (step) r.steps.push_back({start, end, std::string(name_view)});
      r.annotations.push_back({start, end, thread, false, std::string(name_view)});
      break;
    case Cat::GpuAnnotation:
      r.annotations.push_back({start, end, str, true, std::string(name_view)});
      break;
    case Cat::PyFunction:
      r.py_frames.push_back({start, end, thread, frame_name_id(name_view)});
      break;
    case Cat::Phase:
      r.ranges.push_back({start, end, thread, static_cast<uint16_t>(depth.present ? depth.i : 0),
                          std::string(name_view)});
      break;
    default:
      ++out_->ignored_events;
  }
}
}  // namespace trace
