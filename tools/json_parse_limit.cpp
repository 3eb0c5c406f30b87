// ./json_parse_limit TRACE [--threads N] [--reps R]: how fast simdjson alone reads every field
// of a trace's events on N threads (default: one per hardware thread). This is the parse limit
// that ./attribute's import is measured against (experiments/attribute_speed.py):
// no splitter, no records, no attribution, only simdjson over the same bytes.
//
// Untimed: the file (plain or gzip) is read into memory and its traceEvents cut into chunks of
// about 1 MiB of whole events; each chunk, its bytes as they stand in the file, becomes a JSON
// array of its own ("[" + events + "]"). Timed, R times: N threads each parse a contiguous
// share of the chunks with simdjson on-demand and read every field (keys and strings
// unescaped, numbers converted, objects and arrays entered). Prints one JSON object on stdout;
// exit 2 on bad input.
#include <simdjson.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "trace/import/byte_source.h"
#include "trace/import/kineto/json_event_stream.h"

namespace {

// Reads one value whole; returns how many scalars it held (so the work cannot be optimised out).
uint64_t touch(simdjson::ondemand::value v) {
  switch (v.type()) {
    case simdjson::ondemand::json_type::object: {
      uint64_t n = 0;
      for (auto field : v.get_object()) {
        std::string_view key = field.unescaped_key();
        n += key.size() > 0;
        n += touch(field.value());
      }
      return n;
    }
    case simdjson::ondemand::json_type::array: {
      uint64_t n = 0;
      for (auto element : v.get_array()) n += touch(element.value());
      return n;
    }
    case simdjson::ondemand::json_type::string: {
      std::string_view s = v.get_string();
      return 1 + (s.size() & 1);
    }
    case simdjson::ondemand::json_type::number: {
      const simdjson::ondemand::number x = v.get_number();
      return 1 + (x.is_double() ? 0 : 1);
    }
    case simdjson::ondemand::json_type::boolean:
      return 1 + static_cast<bool>(v.get_bool());
    case simdjson::ondemand::json_type::null:
      return 1 + v.is_null();
  }
  return 0;
}

constexpr uint64_t kChunkBytes = 1u << 20;  // as the importer's batches (event_pipeline.h)

uint64_t parse_chunk(simdjson::ondemand::parser& parser, const simdjson::padded_string& chunk) {
  uint64_t n = 0;
  simdjson::ondemand::document doc = parser.iterate(chunk);
  for (auto event : doc.get_array()) n += touch(event.value());
  return n;
}

double cpu_seconds() {  // this process, all threads: the work, whatever the machine's load
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int fail(const std::string& what) {
  std::fprintf(stderr, "json_parse_limit: %s\n", what.c_str());
  return 2;
}

// Untimed: the file in memory, its traceEvents as arrays of about 1 MiB of whole events each
// (simdjson indexes a document whole before reading it, so one array per thread would stream
// its index through memory instead of cache). Throws trace::InputError.
std::vector<simdjson::padded_string> read_chunks(const std::string& path, uint64_t* doc_bytes) {
  std::string doc;
  {
    auto source = trace::open_byte_source(path);
    std::vector<char> chunk(1 << 20);
    while (const size_t got = source->read(chunk.data(), chunk.size()))
      doc.append(chunk.data(), got);
  }
  *doc_bytes = doc.size();
  std::vector<std::pair<uint64_t, uint64_t>> events;  // [begin, end) in doc
  {
    auto source = trace::memory_byte_source(doc.data(), doc.size(), path);
    trace::JsonEventStream stream(*source, path);
    stream.run(
        [&](const trace::JsonSlice& s, uint64_t) {
          events.push_back({s.offset, s.offset + s.size});
        },
        [](std::string_view, const trace::JsonSlice&) {});
  }
  std::vector<simdjson::padded_string> chunks;
  for (size_t first = 0; first < events.size();) {
    size_t last = first;
    while (last + 1 < events.size() && events[last + 1].second - events[first].first <= kChunkBytes)
      ++last;
    std::string chunk = "[";
    chunk.append(doc, events[first].first, events[last].second - events[first].first);
    chunk += "]";
    chunks.emplace_back(chunk);
    first = last + 1;
  }
  return chunks;
}

// One timed parse of every chunk: each thread a contiguous share, with a parser of its own.
struct Rep {
  double seconds = 0, cpu = 0;
  uint64_t scalars = 0;
  std::string error;  // the first simdjson error, "" for none
};
Rep parse_all(const std::vector<simdjson::padded_string>& chunks,
              std::vector<simdjson::ondemand::parser>* parsers) {
  const size_t threads = parsers->size();
  std::vector<uint64_t> counts(threads);
  std::vector<std::string> errors(threads);
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (size_t c = t * chunks.size() / threads; c < (t + 1) * chunks.size() / threads; ++c)
          counts[t] += parse_chunk((*parsers)[t], chunks[c]);
      } catch (const simdjson::simdjson_error& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  Rep rep;
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rep.cpu = cpu_seconds() - c0;
  for (const auto& e : errors)
    if (!e.empty() && rep.error.empty()) rep.error = e;
  for (uint64_t c : counts) rep.scalars += c;
  return rep;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--threads" || a == "--reps") && i + 1 < argc) {
      const int v = std::atoi(argv[++i]);
      if (v < 1) return fail(a + " needs a positive number");
      if (a == "--threads")
        threads = static_cast<unsigned>(v);
      else
        reps = v;
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("usage: json_parse_limit TRACE [--threads N] [--reps R]");
    } else {
      path = a;
    }
  }
  if (path.empty()) return fail("usage: json_parse_limit TRACE [--threads N] [--reps R]");

  std::vector<simdjson::padded_string> chunks;
  uint64_t doc_bytes = 0;
  try {
    chunks = read_chunks(path, &doc_bytes);
  } catch (const trace::InputError& e) {
    return fail(e.what());
  }
  if (chunks.empty()) return fail(path + ": no traceEvents to parse");

  std::vector<double> seconds, cpu;
  uint64_t scalars = 0;
  threads = static_cast<unsigned>(std::min<size_t>(threads, chunks.size()));
  std::vector<simdjson::ondemand::parser> parsers(threads);
  for (int r = 0; r < reps; ++r) {
    const Rep rep = parse_all(chunks, &parsers);
    seconds.push_back(rep.seconds);
    cpu.push_back(rep.cpu);
    if (!rep.error.empty()) return fail(path + ": simdjson: " + rep.error);
    scalars = rep.scalars;
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "{\"tool\": \"json_parse_limit\", \"bytes\": %llu, \"threads\": %u, \"reps\": %d, "
      "\"seconds_median\": %.6f, \"seconds_min\": %.6f, \"seconds_max\": %.6f, \"mb_per_s\": %.1f, "
      "\"cpu_seconds_median\": %.6f, "
      "\"simdjson_implementation\": \"%s\", \"scalars\": %llu}\n",
      static_cast<unsigned long long>(doc_bytes), threads, reps, median, sorted.front(),
      sorted.back(), static_cast<double>(doc_bytes) / 1e6 / median, cpu[cpu.size() / 2],
      simdjson::get_active_implementation()->name().c_str(),
      static_cast<unsigned long long>(scalars));
  return 0;
}
