// The importer's fast paths against what they must not change: the 64-byte-block splitter
// (strings holding brackets and escaped quotes at every alignment, split across refills of
// any size), the parse workers (any number gives the same records in document order, and
// the first bad event in document order is the one reported), and the helpers of the
// attribution (sorted_order, IdMap, order_calls).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "trace/analyze/step_report.h"
#include "trace/export/report_json.h"
#include "trace/import/kineto/json_event_stream.h"
#include "trace/import/kineto/kineto_import.h"
#include "trace/model/correlation_index.h"
#include "trace/model/id_map.h"
#include "trace/model/sorted_order.h"
#include "trace_test_util.h"

using tracetest::data;
using tracetest::listing_text;

namespace {

// Hands out at most `step` bytes per read, so that every event straddles refills.
class TrickleSource : public trace::ByteSource {
 public:
  TrickleSource(std::string text, size_t step) : text_(std::move(text)), step_(step) {}
  size_t read(char* out, size_t n) override {
    const size_t k = std::min({n, step_, text_.size() - pos_});
    std::memcpy(out, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  bool gzip() const override { return false; }
  uint64_t bytes_read_raw() const override { return pos_; }

 private:
  std::string text_;
  size_t step_, pos_ = 0;
};

// JSON text of s (quote and backslash escaped).
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

// Names full of what the splitter must see through: brackets inside strings, escaped quotes
// and backslash runs (odd and even), at shifting offsets so that each lands on every byte of
// a 64-byte block and on block edges.
std::vector<std::string> tricky_names() {
  const char* pieces[] = {"{", "}", "[", "]", "\"", "\\", "\\\"", "\\\\", "}]\"{[", "\\\\\\\"x"};
  std::vector<std::string> names;
  for (int shift = 0; shift < 70; ++shift)
    for (const char* p : pieces)
      names.push_back(std::string(shift, 'a') + p + std::string(70 - shift, 'b') + p);
  return names;
}

std::string events_document(const std::vector<std::string>& names) {
  std::string doc = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < names.size(); ++i) {
    doc += i ? ",\n" : "";
    doc += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": " + quoted(names[i]) +
           ", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(10 * i + 1) +
           ", \"dur\": 1, \"args\": {\"x\": [[1, 2], {\"s\": " + quoted(names[i]) + "}]}}";
  }
  return doc + "\n], \"otherData\": {\"note\": \"}]\"}}";
}

trace::ImportedTrace import_with(trace::ByteSource& source, unsigned threads) {
  trace::ImportOptions o;
  o.threads = threads;
  return trace::import_trace(source, "doc.json", o);
}

std::string report_json(const trace::ImportedTrace& t) {
  trace::JsonOut out;
  trace::write_report_json(out, trace::build_report(t));
  return out.str();
}

}  // namespace

TEST(ImportSplitter, StringsWithBracketsAndEscapesAtEveryAlignmentAndRefill) {
  const auto names = tricky_names();
  const std::string doc = events_document(names);
  for (size_t step :
       {size_t{1}, size_t{7}, size_t{63}, size_t{64}, size_t{65}, size_t{4096}, doc.size()}) {
    TrickleSource src(doc, step);
    const auto t = import_with(src, 2);
    ASSERT_EQ(t.records.cpu_ops.size(), names.size()) << "read step " << step;
    for (size_t i = 0; i < names.size(); ++i)
      ASSERT_EQ(t.records.cpu_ops[i].name, names[i]) << "event " << i << ", read step " << step;
    EXPECT_EQ(t.bytes, doc.size());
  }
}

TEST(ImportSplitter, BracketsMustPairAcrossBlocks) {
  // A '}' that closes a '[' 100 bytes later, with a string of brackets between them.
  const std::string bad = "{\"traceEvents\": [{\"a\": [\"" + std::string(100, '{') + "\"}]}";
  const std::string msg = tracetest::import_error(bad);
  EXPECT_NE(msg.find("unbalanced '}'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte offset 126"), std::string::npos) << msg;  // where that '}' is
  // An escaped quote must not end the string: the '}' after it is inside, so the event is cut
  // short.
  const std::string open = "{\"traceEvents\": [{\"name\": \"x\\\"}]}";
  EXPECT_NE(tracetest::import_error(open).find("truncated"), std::string::npos);
}

TEST(ImportWorkers, AnyNumberGiveTheSameRecordsInOrder) {
  // 25 MB, many batches: one worker and three must give the same figures, byte for byte.
  const auto one = [&] {
    auto src = trace::open_byte_source(data("traces/a100-cuda-graphs-6streams.json.gz"));
    return import_with(*src, 1);
  }();
  auto src = trace::open_byte_source(data("traces/a100-cuda-graphs-6streams.json.gz"));
  const auto three = import_with(*src, 3);
  ASSERT_EQ(one.records.api.size(), three.records.api.size());
  for (size_t i = 0; i < one.records.api.size(); ++i) {
    ASSERT_EQ(one.records.api[i].start_ns, three.records.api[i].start_ns) << i;
    ASSERT_EQ(one.records.api[i].name, three.records.api[i].name) << i;
  }
  EXPECT_EQ(one.events, three.events);
  EXPECT_EQ(one.ignored_events, three.ignored_events);
  EXPECT_EQ(report_json(one), report_json(three));
}

TEST(ImportWorkers, RegionParseGivesWhatThePerEventParseGives) {
  // Every real trace, with and without its listed events, and the splitter's tricky names.
  std::vector<std::string> files = {data("traces/a100-cuda-graphs-6streams.json.gz"),
                                    data("traces/a100-alexnet-syncs.json.gz"),
                                    data("traces/mi250-rocm.json.gz"),
                                    data("traces/gp100-steps-annotations.json.gz"),
                                    data("traces/cpu-only.json.gz"),
                                    data("traces/a100-event-sync-multistream.json.gz")};
  for (const auto& f : files)
    for (bool listed : {false, true}) {
      trace::ImportOptions batch, per_event;
      batch.list_events = per_event.list_events = listed;
      per_event.region_parse = false;
      const auto a = trace::import_trace(f, batch), b = trace::import_trace(f, per_event);
      EXPECT_EQ(report_json(a), report_json(b)) << f;
      EXPECT_EQ(a.events, b.events) << f;
      EXPECT_EQ(listing_text(a.listing), listing_text(b.listing)) << f;
    }
  const std::string doc = events_document(tricky_names());
  auto one = trace::memory_byte_source(doc.data(), doc.size(), "doc.json");
  trace::ImportOptions per_event;
  per_event.region_parse = false;
  auto two = trace::memory_byte_source(doc.data(), doc.size(), "doc.json");
  EXPECT_EQ(report_json(trace::import_trace(*one, "doc.json")),
            report_json(trace::import_trace(*two, "doc.json", per_event)));
}

TEST(ImportWorkers, TheFirstBadEventInDocumentOrderIsReported) {
  // Over 2 MiB of events (several batches), bad ones in a late batch and an earlier one.
  std::vector<std::string> names(12000, std::string(150, 'n'));
  const std::string clean = events_document(names);
  std::string doc = clean;
  const auto break_event = [&](size_t i) {  // its "dur" becomes a string
    const std::string needle = "\"ts\": " + std::to_string(10 * i + 1) + ", \"dur\": 1";
    const size_t at = doc.find(needle);
    ASSERT_NE(at, std::string::npos);
    doc.replace(at, needle.size(), "\"ts\": " + std::to_string(10 * i + 1) + ", \"dur\": \"1\"");
  };
  break_event(11000);
  break_event(7000);
  for (unsigned threads : {1u, 2u, 4u}) {
    TrickleSource src(doc, 1 << 16);
    try {
      import_with(src, threads);
      FAIL() << "no error";
    } catch (const trace::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("event 7000 "), std::string::npos)
          << threads << " threads: " << e.what();
    }
  }
  // A bad event split before the document breaks off is reported, not the break.
  const std::string msg = tracetest::import_error(
      R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":"bad","dur":1},{"ph":"X")");
  EXPECT_NE(msg.find("event 0 (byte offset 16): \"ts\" is not a number"), std::string::npos) << msg;
  // A splitter error after good batches still comes out, once those are merged.
  TrickleSource cut(clean.substr(0, clean.size() - 40), 1 << 16);
  try {
    import_with(cut, 2);
    FAIL() << "no error";
  } catch (const trace::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

namespace {

// Every figure of an import (report and listed events), or "error: " + its message.
std::string figures(const std::string& doc, bool regions, size_t region_bytes, size_t step,
                    unsigned threads = 2) {
  try {
    trace::ImportOptions o;
    o.list_events = true;
    o.region_parse = regions;
    o.region_bytes = region_bytes;
    o.threads = threads;
    TrickleSource src(doc, step);
    const auto t = trace::import_trace(src, "doc.json", o);
    return report_json(t) + " events " + std::to_string(t.events) + " ignored " +
           std::to_string(t.ignored_events) + " listed " + listing_text(t.listing);
  } catch (const trace::InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// The single-event splitter's figures or error, and the regions' at every region size (1 byte:
// a region ends at every refill that holds a whole element) and read step.
void expect_regions_as_single_events(const std::string& doc, const std::string& what) {
  const std::string reference = figures(doc, false, 0, doc.size() + 1);
  for (size_t region_bytes : {size_t{1}, size_t{300}, size_t{256} << 10})
    for (size_t step : {size_t{1}, size_t{7}, size_t{64}, size_t{251}, doc.size() + 1})
      ASSERT_EQ(figures(doc, true, region_bytes, step), reference)
          << what << ", region_bytes " << region_bytes << ", read step " << step << "\n"
          << doc;
}

// A few events of every kind the importer reads, with the splitter's tricky strings.
std::string small_document() {
  return "{\"otherData\": {\"a\": \"]}\"}, \"traceEvents\": [\n"
         "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
         "\"tid\": 1, \"ts\": 10, \"dur\": 100},\n"
         "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
         "\"tid\": 1, \"ts\": 20, \"dur\": 5, "
         "\"args\": {\"correlation\": 7, \"x\": [[1, {\"s\": \"}]\\\"{\"}], []]}},\n"
         "  {\"ph\": \"i\", \"name\": \"[{\\\\\", \"ts\": 21},\n"
         "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\\"]\", \"pid\": 0, \"tid\": 7, "
         "\"ts\": 30, \"dur\": 10.5, "
         "\"args\": {\"correlation\": 7, \"device\": 0, \"stream\": 7}},\n"
         "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", "
         "\"pid\": 1, \"tid\": 1, \"ts\": 40, \"dur\": 20},\n"
         "  {\"ph\": \"B\", \"name\": \"b\", \"ts\": 50},{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", "
         "\"name\": \"Memcpy DtoH (Device -> Pinned)\", "
         "\"pid\": 0, \"tid\": 7, \"ts\": 45, \"dur\": 3, \"args\": {\"correlation\": 8, "
         "\"bytes\": 64, \"stream\": \"7\"}}\n"
         "], \"distributedInfo\": {\"rank\": 3}}";
}

}  // namespace

TEST(ImportRegions, GiveWhatSingleEventsGive) {
  expect_regions_as_single_events(small_document(), "small document");
  expect_regions_as_single_events(events_document(tricky_names()), "tricky names");
  expect_regions_as_single_events("[]", "empty bare array");
  expect_regions_as_single_events("{\"traceEvents\": [ ]}", "empty traceEvents");
  expect_regions_as_single_events("[{\"ph\": \"X\", \"ts\": 1, \"dur\": 1},{}]", "bare array");
  std::string deep =
      std::string(1023, '[') + std::string(1023, ']');  // an element 1024 deep: allowed
  expect_regions_as_single_events("{\"traceEvents\": [{\"a\": " + deep + "}, {\"b\": 1}]}",
                                  "1024 levels");
  // Real traces: the regions of the default size, read as a file is.
  for (const char* f : {"traces/a100-cuda-graphs-6streams.json.gz", "traces/mi250-rocm.json.gz"}) {
    trace::ImportOptions regions, single;
    regions.list_events = single.list_events = true;
    single.region_parse = false;
    const auto a = trace::import_trace(data(f), regions), b = trace::import_trace(data(f), single);
    EXPECT_EQ(report_json(a), report_json(b)) << f;
    EXPECT_EQ(a.events, b.events) << f;
    ASSERT_EQ(listing_text(a.listing), listing_text(b.listing)) << f;
  }
}

TEST(ImportRegions, TheSameFirstErrorAsSingleEvents) {
  const std::string ok = "{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 1}";
  const std::string deep =
      std::string(1024, '[') + std::string(1024, ']');  // 1025 levels in the event
  for (const std::string& events : std::vector<std::string>{
           ok + ", " + ok + ",\n]",     // a trailing comma
           ok + ",\n" + ok + " " + ok,  // a missing comma
           ok + "\n" + ok,              // a missing comma, only a newline between
           ok + ", 5, " + ok,           // elements that are not objects
           ok + ", \"}]{[\", " + ok, ok + ", [{\"ph\": \"X\"}], " + ok, ok + ", x, " + ok,
           ok + std::string(1, '\0') + ", " + ok,  // a NUL byte where a ',' goes
           ok + ", {\"a\": [1, 2}, " + ok,         // brackets of the wrong kind
           ok + ", {\"a\": \"x\\\"}\", " + ok,     // an escaped quote: the '}' is inside
           ok + "}, " + ok, ok + ", {\"a\": " + deep + "}",
           ok + ", {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": \"1\", \"dur\": 1}, " + ok + ", 7",
           ok + ", {\"ph\": \"X\", \"ts\": 1, \"dur\": tru}, {\"a\": [}",
           ok + ", " + ok.substr(0, 20),  // truncated inside an element
           ok + ", ",                     // truncated after a comma
           ok,                            // truncated after an element
       }) {
    for (const std::string& doc : {"{\"traceEvents\": [" + events,
                                   "{\"traceEvents\": [" + events + "]}", "[" + events + "]"}) {
      if (events != ok)
        EXPECT_EQ(figures(doc, false, 0, doc.size() + 1).rfind("error: ", 0), 0u) << doc;
      expect_regions_as_single_events(doc, "bad input");
    }
  }
}

// A file with two traceEvents arrays (the fuzzer made one): each counts its events from 0, in
// the regions and in the single events alike, so a bad event has one name either way.
TEST(ImportRegions, ASecondTraceEventsArrayCountsFromZero) {
  const std::string ok = "{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 1}";
  const std::string doc = "{\"traceEvents\": [" + ok + ", " + ok + ", " + ok +
                          "], \"traceEvents\": [" + ok + ", {\"ph\": tru}]}";
  expect_regions_as_single_events(doc, "two traceEvents arrays");
  EXPECT_NE(figures(doc, false, 0, doc.size() + 1).find("event 1 "), std::string::npos);
}

TEST(ImportRegions, EveryByteChangedGivesWhatSingleEventsGive) {
  // The small document with each byte deleted or replaced by each character that matters to a
  // splitter, and cut short after each byte: the same figures, or the same error.
  const std::string doc = small_document();
  const char replacements[] = {'"', '\\', '{', '}', '[', ']', ',', ' ', 'x', '\0', ':'};
  for (size_t i = 0; i < doc.size(); ++i) {
    std::vector<std::string> variants = {doc.substr(0, i) + doc.substr(i + 1),
                                         doc.substr(0, i + 1)};
    for (char c : replacements)
      if (doc[i] != c) variants.push_back(doc.substr(0, i) + c + doc.substr(i + 1));
    for (const auto& v : variants) {
      const std::string reference = figures(v, false, 0, v.size() + 1, 1);
      for (size_t step : {size_t{5}, v.size() + 1})
        ASSERT_EQ(figures(v, true, 1, step, 1), reference)
            << "byte " << i << ", read step " << step << "\n"
            << v;
    }
  }
}

TEST(ImportRegions, BracketIndexKernelsAgreeWithABytewiseScan) {
  // Random text over the characters that matter (backslash runs, quotes, brackets), read in
  // calls of random whole blocks: every kernel this CPU has gives the brackets a byte-by-byte
  // reading of JSON strings finds, and the same string state at the end.
  std::mt19937_64 rng(11);
  const char alphabet[] = {'"', '\\', '{', '}', '[', ']', 'a', ' ', '"', '\\'};
  int kernels_run[2] = {0, 0};
  for (int round = 0; round < 300; ++round) {
    std::string text(1 + rng() % 1000, ' ');
    const int quiet = static_cast<int>(rng() % 3);  // some texts without a backslash: the fast path
    for (char& c : text) {
      c = alphabet[rng() % (quiet == 0 ? 8 : 10)];
      if (quiet == 0 && c == '\\') c = 'a';
    }
    std::vector<uint32_t> expect;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '}' || c == '[' || c == ']') {
        expect.push_back(static_cast<uint32_t>(i));
      }
    }
    for (int k = 0; k < 16; ++k)
      text += "[\"}\\";  // the 64 bytes past the end a kernel reads must not count
    for (int kernel : {0, 1}) {
      std::vector<uint32_t> got, part;
      bool s = false, e = false, have = true;
      for (size_t at = 0, n; at < text.size() - 64 && have; at += n) {
        n = std::min<size_t>(64 * (1 + rng() % 4), text.size() - 64 - at);
        have = trace::detail::index_brackets_with(kernel, text.data() + at, n, &s, &e, &part);
        for (uint32_t p : part) got.push_back(static_cast<uint32_t>(at) + p);
      }
      if (!have) continue;
      ++kernels_run[kernel];
      ASSERT_EQ(got, expect) << "kernel " << kernel << ": " << text;
      EXPECT_EQ(s, in_string) << "kernel " << kernel << ": " << text;
      EXPECT_EQ(e, escaped) << "kernel " << kernel << ": " << text;
    }
  }
  EXPECT_EQ(kernels_run[0], 300);
  std::printf("bracket index kernels run: SSE2 %d, AVX2 %d texts\n", kernels_run[0],
              kernels_run[1]);
}

TEST(SortedOrder, EqualsAStableSortOnRunsRandomAndTies) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{5000}, size_t{100000}}) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<std::pair<uint64_t, uint64_t>> keys(n);
      for (size_t i = 0; i < n; ++i) {
        if (shape == 0)
          keys[i] = {rng() % 1000, rng() % 3};  // random, many ties
        else if (shape == 1)
          keys[i] = {(i % 997) * 10 + i / 997, 0};  // 100 interleaved ascending runs
        else
          keys[i] = {i / 3, (n - i) % 2};  // sorted by a, ties on a
      }
      std::vector<uint32_t> expect(n);
      for (uint32_t i = 0; i < n; ++i) expect[i] = i;
      std::stable_sort(expect.begin(), expect.end(),
                       [&](uint32_t x, uint32_t y) { return keys[x] < keys[y]; });
      EXPECT_EQ(trace::sorted_order(n, [&](size_t i) { return keys[i]; }), expect)
          << "n " << n << " shape " << shape;
    }
  }
}

TEST(IdMap, FirstValueWinsThroughGrowthAndStrides) {
  trace::IdMap m;
  // Consecutive ids and ids a power of two apart (every one on the same low bits).
  for (uint32_t i = 0; i < 50000; ++i) EXPECT_TRUE(m.insert(i, i + 1));
  for (uint32_t i = 1; i < 2000; ++i) EXPECT_TRUE(m.insert(i << 20, i));
  EXPECT_FALSE(m.insert(5, 99));
  EXPECT_EQ(m.size(), 50000u + 1999u);
  EXPECT_EQ(*m.find(5), 6u);
  EXPECT_EQ(*m.find(7u << 20), 7u);
  EXPECT_EQ(m.find(50000), nullptr);
  EXPECT_FALSE(m.contains(0xFFFFFFFFu));
  EXPECT_EQ(trace::IdMap().find(1), nullptr);
}

TEST(IdMap, NoLongWalksWhateverTheIds) {
  // 2^20 consecutive ids fill one run of slots; missing ids whose slots fall inside it (ids
  // just above the table's size fold onto its low slots) must not walk the run.
  trace::IdMap dense;
  for (uint32_t i = 1; i <= (1u << 20); ++i) dense.insert(i, i);
  EXPECT_FALSE(
      dense.contains(0));  // the first lookup checks the runs (and rehashes: not counted below)
  const uint64_t after_inserts = dense.probes();
  for (uint32_t i = 1; i <= 100000; ++i) EXPECT_FALSE(dense.contains((1u << 21) + i));
  EXPECT_LT(dense.probes() - after_inserts, 100000u * 8) << "lookups walked long runs";
  EXPECT_TRUE(dense.scrambled());
  EXPECT_EQ(*dense.find(12345), 12345u);
  // Ids on both sides of 2^31 that share slots under the fold: inserts must not walk either.
  trace::IdMap paired(1 << 15);
  for (uint32_t u = 0; u < 20000; ++u)
    paired.insert(0x7FFFFFFFu - u, u), paired.insert(0x80000000u + u, u);
  EXPECT_LT(paired.probes(), 40000u * 16) << "inserts walked long runs";
  EXPECT_EQ(paired.size(), 40000u);
  EXPECT_EQ(*paired.find(0x80000000u + 77), 77u);
  // Counters with gaps (Kineto's correlation ids) stay on the fast, unscrambled slots.
  trace::IdMap counters;
  for (uint32_t i = 0; i < 100000; ++i) counters.insert(1000 + 25 * i, i);
  EXPECT_TRUE(counters.contains(1000 + 25 * 99999));
  EXPECT_FALSE(counters.scrambled());
}

TEST(CorrelationIndex, AgreesWithIdMapWhateverTheIds) {
  // The same ids (repeats: the first record wins; 0: not indexed) through the index and through
  // IdMap, looked up inside the range, outside it and at its ends: counters at several strides,
  // counters in stretches far apart (a stitched trace), and ids scattered over 32 bits.
  std::mt19937 rng(7);
  struct Shape {
    const char* name;
    uint32_t stride, stretch, jump;
    bool paged;
  };
  for (const Shape& shape :
       {Shape{"every id", 1, 0, 0, true}, Shape{"stride 3", 3, 0, 0, true},
        Shape{"stride 5", 5, 0, 0, false}, Shape{"stretches", 2, 10000, 5000000, true},
        Shape{"scattered", 0, 0, 0, false}}) {
    const uint32_t n = 20000;
    std::vector<uint32_t> ids(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t at = rng() % n;
      ids[i] = shape.stride == 0 ? rng() | 1
                                 : 100 + shape.stride * at +
                                       (shape.stretch ? at / shape.stretch * shape.jump : 0);
      if (i % 97 == 0) ids[i] = 0;
    }
    trace::CorrelationIndex index(n, [&](size_t i) { return ids[i]; });
    EXPECT_EQ(index.paged(), shape.paged) << shape.name;
    trace::IdMap reference;
    for (uint32_t i = 0; i < n; ++i)
      if (ids[i]) reference.insert(ids[i], i);
    const auto same = [&](uint32_t key) {
      const uint32_t* a = index.find(key);
      const uint32_t* b = reference.find(key);
      return (a == nullptr) == (b == nullptr) && (a == nullptr || *a == *b);
    };
    const uint32_t hi = *std::max_element(ids.begin(), ids.end());
    for (const uint32_t key : {0u, 1u, hi, hi + 1, hi + 4096, 0xFFFFFFFFu})
      EXPECT_TRUE(same(key)) << shape.name << " " << key;
    for (const uint32_t k : ids) {
      ASSERT_TRUE(same(k)) << shape.name << " " << k;
      ASSERT_TRUE(same(k + 1)) << shape.name << " " << k + 1;
      ASSERT_TRUE(same(k - 1)) << shape.name << " " << k - 1;
    }
  }
  EXPECT_EQ(trace::CorrelationIndex(3, [](size_t) { return 0u; }).find(0),
            nullptr);  // no ids at all
}

TEST(OrderCalls, DriverCallNestedOnlyInARuntimeCallOfItsOwnThread) {
  const auto call = [](const char* name, uint64_t s, uint64_t e, uint32_t thread) {
    trace::ApiRecord a{
        s, e, 0, thread, trace::classify_api(name), name[1] == 'u' && name[2] != 'd', name};
    return a;
  };
  const std::vector<trace::ApiRecord> api = {
      call("cudaLaunchKernel", 100, 200, 1),
      call("cuLaunchKernel", 100, 150, 1),  // same start as its runtime call: nested
      call("cuLaunchKernel", 120, 130, 2),  // another thread at the same time: not nested
      call("cuLaunchKernel", 210, 220, 1),  // after the runtime call ended: not nested
      call("cudaMemcpyAsync", 300, 400, 1),
      call("cudaGetDevice", 310, 320, 1),   // a runtime call inside a runtime call, ended
      call("cuMemcpyAsync", 330, 390, 1),   // still inside the outer one: nested
      call("cuMemcpyAsync", 390, 410, 1)};  // outlives it: not nested
  const auto o = trace::order_calls(api);
  EXPECT_EQ(o.nested_driver,
            (std::vector<bool>{false, true, false, false, false, false, true, false}));
  EXPECT_EQ(o.by_start, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}
