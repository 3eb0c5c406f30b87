#include "trace/import/kineto/kineto_import.h"

#include <dirent.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>
#include <unordered_map>

#include "trace/import/common/finish_records.h"
#include "trace/import/kineto/event_pipeline.h"
#include "trace/import/kineto/json_event_stream.h"

namespace trace {

namespace {
// Eight ASCII digits at p -> their value, in a few multiplies (simdjson's and fast_float's SWAR
// trick); false when any of the eight is not a digit.
bool eight_digits(const char* p, uint64_t* out) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) v = __builtin_bswap64(v);
  if (((v & 0xF0F0F0F0F0F0F0F0ull) |
       (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
    return false;
  v = ((v & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  v = ((v & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  *out = ((v & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
  return true;
}
}  // namespace

bool us_text_to_ns(std::string_view t, int64_t* out) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  size_t i = 0;
  const bool neg = i < t.size() && t[i] == '-';
  if (neg) ++i;
  // Kineto's usual text, an integer of at most 16 digits, in one pass (eight digits at a time
  // where eight are left); what it cannot take (a fraction, an exponent, more digits, 9.3e15 us
  // and above) goes the long way below.
  if (t.size() > i && t.size() - i <= 16) {
    uint64_t v = 0, eight;
    size_t j = i;
    for (; t.size() - j >= 8 && eight_digits(t.data() + j, &eight); j += 8)
      v = v * 100000000 + eight;
    for (; j < t.size() && static_cast<unsigned char>(t[j] - '0') <= 9; ++j)
      v = v * 10 + static_cast<uint64_t>(t[j] - '0');
    if (j == t.size() && v <= static_cast<uint64_t>(INT64_MAX) / 1000) {
      *out = neg ? -static_cast<int64_t>(v * 1000) : static_cast<int64_t>(v * 1000);
      return true;
    }
  }
  // Up to 18 significant digits exactly; more digits only shift the exponent.
  uint64_t mant = 0;
  int digits = 0, exp10 = 3;  // the text is in us; we want ns
  bool any = false, round_up = false;
  const auto take = [&](char c, bool frac) {
    any = true;
    if (digits < 18) {
      mant = mant * 10 + static_cast<uint64_t>(c - '0');
      if (mant) ++digits;
      if (frac) --exp10;
    } else {
      if (!frac) ++exp10;
      if (digits == 18) round_up = c >= '5', ++digits;  // first dropped digit decides rounding
    }
  };
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], false);
  if (i < t.size() && t[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], true);
    if (i == start) return false;
  }
  if (!any) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    int e = 0;
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      e = std::min(e * 10 + (t[i++] - '0'), 10000);
    }
    if (i == start) return false;
    exp10 += eneg ? -e : e;
  }
  if (i != t.size()) return false;
  if (round_up) ++mant;
  if (mant == 0) return *out = 0, true;
  while (exp10 > 0) {
    if (mant > static_cast<uint64_t>(INT64_MAX) / 10) return false;
    mant *= 10, --exp10;
  }
  while (exp10 < 0) {
    if (exp10 < -20) return *out = 0, true;
    const uint64_t q = mant / 10, r = mant % 10;
    mant = q + (exp10 == -1 && r >= 5 ? 1 : 0);  // round half up at the last step
    ++exp10;
  }
  if (mant > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = neg ? -static_cast<int64_t>(mant) : static_cast<int64_t>(mant);
  return true;
}

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
  if (eq(c, "phase")) return Cat::Phase;  // our own --trace_dir files
  if (eq(c, "Trace")) return Cat::Trace;
  return Cat::Other;
}

template <size_t N>
bool starts_with(std::string_view s, const char (&p)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), p, N - 1) == 0;
}
bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
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

// A number's text as a double: correctly rounded when the text has a fraction or an exponent,
// else the integer, exact below 2^53 (as Python's json reads it). glibc's strtod rounds
// correctly and gives +-inf or 0 out of range; the "C" locale is in force (nothing here calls
// setlocale).
double text_to_double(std::string_view t) {
  const std::string text(t);
  return std::strtod(text.c_str(), nullptr);
}

// A string holding an integer (surrounding blanks allowed) -> that integer, else -1.
int64_t string_to_int(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) neg = s[0] == '-', s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
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

// What one batch of events becomes; merged into the ImportedTrace in document order.
struct Partial {
  ImportedTrace t;  // records, counters and listed events of this batch only
  bool rank_set = false;
  std::string clock;  // otherData.clock, when this batch held it
  uint64_t begin_end_events = 0;
  std::exception_ptr error;  // the batch's first bad event: merge rethrows it
};

// Parses events into a Partial. One per worker thread (each has its own simdjson parser).
class EventParser {
 public:
  EventParser(const std::string& name, const ImportOptions& opt) : name_(name), opt_(opt) {}

  void batch(const EventBatch& b, Partial* p) {
    if (b.top) {
      begin(p);
      try {
        top(b.key, b.whole());
      } catch (...) {
        p->error = std::current_exception();
      }
      return;
    }
    // The batch as one document; any failure, of the JSON or of an event, is left to the
    // element-by-element parse below, which reports the first bad event as it always has, so
    // the whole-batch parse only ever yields what that one would. False: nothing of it is kept.
    const auto whole = [&] {
      begin(p);
      try {
        whole_batch(b);
        return true;
      } catch (...) {
        *p = Partial();
        return false;
      }
    };
    if (b.region) {
      // Element by element as the splitter would have handed them over one at a time.
      if (b.separator_ok && whole()) return;
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
    if (opt_.batch_parse && whole()) return;
    begin(p);
    try {
      for (size_t i = 0; i < b.events.size(); ++i) event(b.slice(b.events[i]), b.first_index + i);
    } catch (...) {
      p->error = std::current_exception();
    }
  }

 private:
  void begin(Partial* p) {
    out_ = &p->t;
    part_ = p;
    string_ids_.clear();
  }

  // `s` as an index into this batch's EventListing::strings (merge() renumbers them).
  uint32_t string_id(std::string_view s) {
    auto& strings = out_->listing.strings;
    const auto [it, added] =
        string_ids_.try_emplace(std::string(s), static_cast<uint32_t>(strings.size()));
    if (added) strings.emplace_back(s);
    return it->second;
  }

  void whole_batch(const EventBatch& b) {
    auto doc =
        b.region
            ? parser_.iterate(simdjson::padded_string_view(
                  b.bytes.data() + b.region_at, b.region_size + 2, b.bytes.size() - b.region_at))
            : parser_.iterate(
                  simdjson::padded_string_view(b.bytes.data(), b.text_size(), b.bytes.size()));
    const size_t n = b.region ? b.region_elements : b.events.size();
    size_t i = 0;
    for (simdjson::ondemand::value v : doc.get_array()) {
      if (i == n) throw InputError("more values in the batch than events split");
      ++out_->events;
      // (A region's offsets are not kept: any error here is thrown away and named by the reread.)
      parse_event(v.get_object(), b.first_index + i, b.region ? 0 : b.events[i].offset);
      ++i;
    }
    if (i != n) throw InputError("fewer values in the batch than events split");
  }

  void event(const JsonSlice& s, uint64_t index) {
    ++out_->events;
    try {
      auto doc = parser_.iterate(simdjson::padded_string_view(s.data, s.size, s.capacity));
      parse_event(doc.get_object(), index, s.offset);
    } catch (const simdjson::simdjson_error& e) {
      throw InputError(name_ + ": event " + std::to_string(index) + " (byte offset " +
                       std::to_string(s.offset) + ") is not valid JSON: " + e.what());
    }
  }

  void top(std::string_view key, const JsonSlice& s) {
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

  void parse_event(simdjson::ondemand::object obj, uint64_t index, uint64_t offset);
  [[noreturn]] void bad(uint64_t index, uint64_t offset, const std::string& what) {
    throw InputError(name_ + ": event " + std::to_string(index) + " (byte offset " +
                     std::to_string(offset) + "): " + what);
  }

  const std::string& name_;
  const ImportOptions& opt_;
  ImportedTrace* out_ = nullptr;
  Partial* part_ = nullptr;
  simdjson::ondemand::parser parser_;
  // classify_api by name, remembered: a trace calls a few dozen APIs millions of times, and
  // classify_api searches the name for up to seven words (400 instructions a call here).
  std::unordered_map<std::string, ApiKind> api_kinds_;
  std::unordered_map<std::string, uint32_t> string_ids_;  // the batch's listed strings
  ApiKind api_kind(const std::string& name) {
    const auto it = api_kinds_.find(name);
    if (it != api_kinds_.end()) return it->second;
    const ApiKind k = classify_api(name);
    if (api_kinds_.size() < 4096) api_kinds_.emplace(name, k);  // bounded, whatever the input
    return k;
  }
};

// A key compared as it stands in the JSON text (simdjson's raw key, just past its opening
// quote): no unescaping, so a key written with escapes (\u0074s) is not recognised.
// (The key's length is a constant, so that the compare is a few loads rather than a call.)
template <size_t N>
bool key_is(const char* raw, const char (&k)[N]) {
  return std::memcmp(raw, k, N - 1) == 0 && raw[N - 1] == '"';
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
           (cat == Cat::CpuOp || cat == Cat::Annotation || cat == Cat::Trace || cat == Cat::Other);
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
    case Cat::Phase:
      r.ranges.push_back({start, end, thread, static_cast<uint16_t>(depth.present ? depth.i : 0),
                          std::string(name_view)});
      break;
    default:
      ++out_->ignored_events;
  }
}

// After the merge: clocks, steps, the correlation checks and the warnings.
void finish(ImportedTrace* out_, const std::string& clock_, uint64_t begin_end_events_) {
  RecordSet& r = out_->records;
  const bool ours = out_->producer.rfind("iris-gpu-overhead", 0) == 0;
  r.clock = ours && !clock_.empty() ? clock_ : "kineto";
  if (ours) {  // our writer puts GPU device d in process 100 + d and gives no args.device
    for (auto& k : r.kernels) k.device_id -= k.device_id >= 100 ? 100 : 0;
    for (auto& m : r.memcpys) m.device_id -= m.device_id >= 100 ? 100 : 0;
    for (auto& m : r.memsets) m.device_id -= m.device_id >= 100 ? 100 : 0;
  }
  settle_steps(&r);
  count_unmatched_correlations(out_);

  auto& w = out_->warnings;
  if (out_->hip)
    w.push_back(
        "HIP runtime names (an AMD ROCm trace): hipLaunchKernel, hipMemcpy*, hip*Synchronize are "
        "read as their CUDA "
        "counterparts; HIP copies name no pageable/pinned host memory (shown as 'other')");
  if (r.kernels.empty() && r.memcpys.empty() && r.memsets.empty())
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
  if (r.steps.empty()) w.push_back("no ProfilerStep#N ranges: the whole trace is one window");
}

}  // namespace

namespace {

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
  }
  append(&to->events, &from->events);
  to->ts_missing |= from->ts_missing, to->ts_fractional |= from->ts_fractional;
  to->dur_missing |= from->dur_missing, to->dur_fractional |= from->dur_fractional;
}

// Adds one batch's results to the trace, in document order; rethrows the batch's error.
// string_ids: the trace's listed strings so far.
void merge(ImportedTrace* out, std::string* clock, uint64_t* begin_end,
           std::unordered_map<std::string, uint32_t>* string_ids, Partial&& p) {
  if (p.error) std::rethrow_exception(p.error);
  ImportedTrace& t = p.t;
  RecordSet& r = out->records;
  append(&r.api, &t.records.api);
  append(&r.kernels, &t.records.kernels);
  append(&r.memcpys, &t.records.memcpys);
  append(&r.memsets, &t.records.memsets);
  append(&r.syncs, &t.records.syncs);
  append(&r.ranges, &t.records.ranges);
  append(&r.cpu_ops, &t.records.cpu_ops);
  append(&r.annotations, &t.records.annotations);
  append(&r.steps, &t.records.steps);
  append_listing(&out->listing, string_ids, &t.listing);
  out->events += t.events;
  out->ignored_events += t.ignored_events;
  out->negative_durations += t.negative_durations;
  out->hip |= t.hip;
  *begin_end += p.begin_end_events;
  if (p.rank_set) out->rank = t.rank;
  if (!t.producer.empty()) out->producer = std::move(t.producer);
  if (!p.clock.empty()) *clock = std::move(p.clock);
}

}  // namespace

ImportedTrace import_trace(ByteSource& source, const std::string& name,
                           const ImportOptions& options) {
  ImportedTrace out;
  out.file = name;
  JsonEventStream stream(source, name);
  const unsigned workers =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<EventParser> parsers;
  parsers.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) parsers.emplace_back(name, options);
  std::string clock;
  uint64_t begin_end = 0;
  std::unordered_map<std::string, uint32_t> string_ids;
  out.listing.listed = options.list_events;
  run_event_pipeline<Partial>(
      stream, workers, options.batch_parse ? options.region_bytes : 0,
      [](std::string_view k) { return k == "distributedInfo" || k == "otherData"; },
      [&](unsigned w, const EventBatch& b, Partial* p) { parsers[w].batch(b, p); },
      [&](Partial&& p) { merge(&out, &clock, &begin_end, &string_ids, std::move(p)); });
  out.bytes = stream.bytes();
  finish(&out, clock, begin_end);
  return out;
}

ImportedTrace import_trace(const std::string& path, const ImportOptions& options) {
  auto source = open_byte_source(path);
  return import_trace(*source, path, options);
}

std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& a : args) {
    struct stat st;
    if (::stat(a.c_str(), &st) != 0) throw InputError(a + ": no such file or folder");
    if (!S_ISDIR(st.st_mode)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> in_dir;
    if (DIR* d = ::opendir(a.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        const auto ends = [&](const char* suffix) {
          const size_t k = std::strlen(suffix);
          return n.size() > k && n.compare(n.size() - k, k, suffix) == 0;
        };
        if (ends(".json") || ends(".json.gz")) in_dir.push_back(a + "/" + n);
      }
      ::closedir(d);
    }
    if (in_dir.empty()) throw InputError(a + ": folder holds no *.json or *.json.gz trace");
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

}  // namespace trace
