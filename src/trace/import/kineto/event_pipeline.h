// The importer's threads: one splits the document into batches of whole events
// (json_event_stream.h, with gzip when the file is compressed), `workers` threads parse the
// batches independently, and the calling thread merges their results in document order.
// Why this shape: on a 2-core machine the parse is most of the work and the split the rest;
// one parser thread behind one splitter left a core half idle. Batches are independent, so
// parsing them on every core and merging in order gives the records in the document's own
// order, as one thread would, with the first error in document order reported.
//
// Memory stays bounded: at most 2 x workers + 2 batches (~1 MiB of JSON each) are split but
// not yet merged, and their byte buffers are recycled instead of freed and faulted in again.
#pragma once

#include <simdjson.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "trace/import/kineto/json_event_stream.h"

namespace trace {

// A run of consecutive events, or one top-level value, or a region (below). Events are
// stored back to back, each at its place, to be parsed each on its own.
struct EventBatch {
  struct Event {
    uint32_t at = 0, size = 0;  // bytes[at, at + size): the event's JSON text
    uint64_t offset = 0;        // its byte offset in the document
  };
  uint64_t seq = 0;
  uint64_t first_index = 0;  // index in traceEvents of events[0]
  ByteBuffer bytes;          // the events (or the top-level value), SIMDJSON_PADDING spaces after
  std::vector<Event> events;
  bool top = false;  // a top-level value: bytes hold it alone, at offset top_offset
  uint64_t top_offset = 0;
  std::string key;
  // A region of traceEvents (JsonEventStream::RegionSink), in place of `events`: bytes are the
  // buffer it was read into, where "[" + its text + "]" now stands from region_at (the text
  // at region_at + 1, region_size bytes), its leading separator (the ',' after the element
  // before it) blanked to a space, so that it reads as one array of region_elements elements.
  // region_offset is the text's document offset; blanked the blanked byte's index in bytes
  // (0: none); separator_ok false when the text does not open with the separator it needs
  // (then only the element-by-element reading, which names the error, may read it).
  bool region = false;
  uint64_t region_elements = 0, region_offset = 0;
  size_t region_at = 0, region_size = 0, blanked = 0;
  bool separator_ok = true;
  size_t text_size() const { return bytes.size() - simdjson::SIMDJSON_PADDING; }
  JsonSlice slice(const Event& e) const {
    return {bytes.data() + e.at, e.size, bytes.size() - e.at, e.offset};
  }
  JsonSlice whole() const { return {bytes.data(), text_size(), bytes.size(), top_offset}; }
};

// Result: what parse() makes of one batch (movable). parse(worker, batch, result) runs on
// worker number `worker` (0 .. workers-1, so each can keep a parser of its own) and must not
// throw: it records its error in the result, which merge() rethrows. merge() runs on the
// calling thread, in batch order. `keep_top(key)`: which top-level values the
// splitter hands over (others are skipped). region_bytes > 0: traceEvents split into regions
// (EventBatch::region, JsonEventStream::run) instead of batches of single events, wherever the
// splitter can.
template <typename Result>
void run_event_pipeline(JsonEventStream& stream, unsigned workers, size_t region_bytes,
                        const std::function<bool(std::string_view)>& keep_top,
                        const std::function<void(unsigned, const EventBatch&, Result*)>& parse,
                        const std::function<void(Result&&)>& merge) {
  constexpr size_t kBatchBytes = 1u << 20;
  if (workers == 0) workers = 1;
  const size_t max_in_flight = 2 * static_cast<size_t>(workers) + 2;
  // One lock; a condition variable per kind of waiter, each woken only when it can go on: the
  // workers (a batch to parse, or the end), the merging thread (the next batch in order parsed,
  // the end, or a worker's error), the splitter (room for another batch, or cancelled). One
  // variable woken for everything woke every thread for every batch: some 2000 wake-ups and
  // context switches on a 274 MB trace, each resuming with cold caches on a loaded machine.
  std::mutex m;
  std::condition_variable work_cv, done_cv, room_cv;
  std::deque<EventBatch> todo;
  std::map<uint64_t, Result> done;     // parsed, waiting for their turn to merge
  std::vector<ByteBuffer> spare;       // byte buffers to reuse: for batches of events
  std::vector<ByteBuffer> spare_read;  // for the splitter to read regions into (kept full size)
  uint64_t pushed = 0, merged = 0;
  bool split_done = false, cancelled = false;
  std::exception_ptr split_error;

  struct Cancelled {};
  std::thread splitter([&] {
    EventBatch b;
    const auto fresh = [&] { b = EventBatch(); };
    const auto start = [&] {  // a batch of events or a top-level value: bytes reserved up front
      {
        std::lock_guard<std::mutex> lock(m);
        if (!spare.empty()) b.bytes = std::move(spare.back()), spare.pop_back();
      }
      b.bytes.clear();
      b.bytes.reserve(kBatchBytes + (64u << 10));
    };
    const auto push = [&] {
      if (!b.region) b.bytes.resize(b.bytes.size() + simdjson::SIMDJSON_PADDING, ' ');
      std::unique_lock<std::mutex> lock(m);
      room_cv.wait(lock, [&] { return pushed - merged < max_in_flight || cancelled; });
      if (cancelled) throw Cancelled();
      b.seq = pushed++;
      todo.push_back(std::move(b));
      work_cv.notify_one();
    };
    const auto append = [&](const JsonSlice& s) {
      b.bytes.insert(b.bytes.end(), s.data, s.data + s.size);
    };
    const auto add_event = [&](const JsonSlice& s, uint64_t index) {
      if (b.events.empty()) start(), b.events.reserve(8192), b.first_index = index;
      b.events.push_back(
          {static_cast<uint32_t>(b.bytes.size()), static_cast<uint32_t>(s.size), s.offset});
      append(s);
      if (b.bytes.size() >= kBatchBytes) push(), fresh();
    };
    const auto add_top = [&](std::string_view key,
                             const JsonSlice& s) {  // a batch of its own, in document order
      if (!b.events.empty()) push(), fresh();
      start();
      b.top = true, b.key = std::string(key), b.top_offset = s.offset;
      append(s);
      push(), fresh();
    };
    JsonEventStream::RegionSink regions;  // a batch of its own each, in the buffer it was read into
    regions.min_bytes = region_bytes;
    regions.buffer = [&] {
      std::lock_guard<std::mutex> lock(m);
      ByteBuffer v;
      if (!spare_read.empty()) v = std::move(spare_read.back()), spare_read.pop_back();
      return v;
    };
    regions.take = [&](JsonRegion&& r) {
      if (!b.events.empty()) push(), fresh();
      b.region = true, b.first_index = r.first_index, b.region_elements = r.elements,
      b.region_offset = r.text.offset;
      b.bytes = std::move(r.buffer);
      b.region_at = r.at - 1, b.region_size = r.text.size;
      b.bytes[r.at - 1] = '[';
      b.bytes[r.at + r.text.size] = ']';
      if (r.first_index >
          0) {  // after an element: whitespace, then the ',' before this region's first
        size_t i = r.at;
        const size_t end = r.at + r.text.size;
        while (i < end && (b.bytes[i] == ' ' || b.bytes[i] == '\n' || b.bytes[i] == '\r' ||
                           b.bytes[i] == '\t'))
          ++i;
        if (i < end && b.bytes[i] == ',')
          b.bytes[i] = ' ', b.blanked = i;
        else
          b.separator_ok = false;
      }
      push(), fresh();
    };
    std::exception_ptr error;
    try {
      fresh();
      stream.run(
          add_event,
          [&](std::string_view k, const JsonSlice& s) {
            if (keep_top(k)) add_top(k, s);
          },
          region_bytes ? &regions : nullptr);
      if (!b.events.empty()) push();
    } catch (const Cancelled&) {
    } catch (...) {
      error = std::current_exception();
      // The events split before the error come first: one of them may be bad too.
      try {
        if (!b.events.empty()) push();
      } catch (...) {
      }
    }
    std::lock_guard<std::mutex> lock(m);
    split_done = true, split_error = error;
    work_cv.notify_all();
    done_cv.notify_all();
  });

  // A worker that fails outside parse() (out of memory) stops the pipeline with its error.
  std::exception_ptr worker_error;
  std::vector<std::thread> pool;
  const auto work = [&](unsigned w) {
    try {
      for (;;) {
        EventBatch b;
        {
          std::unique_lock<std::mutex> lock(m);
          work_cv.wait(lock, [&] { return !todo.empty() || split_done || cancelled; });
          if (cancelled || todo.empty()) return;  // empty here means the splitter is done
          b = std::move(todo.front());
          todo.pop_front();
        }
        Result r;
        parse(w, b, &r);
        std::lock_guard<std::mutex> lock(m);
        done.emplace(b.seq, std::move(r));
        (b.region ? spare_read : spare).push_back(std::move(b.bytes));
        if (b.seq == merged) done_cv.notify_one();  // the one the merging thread waits for
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!worker_error) worker_error = std::current_exception();
      cancelled = true;
      work_cv.notify_all(), done_cv.notify_all(), room_cv.notify_all();
    }
  };

  const auto stop = [&] {
    {
      std::lock_guard<std::mutex> lock(m);
      cancelled = true;
      work_cv.notify_all(), done_cv.notify_all(), room_cv.notify_all();
    }
    splitter.join();
    for (auto& t : pool)
      if (t.joinable()) t.join();
  };
  try {
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work, w);
    for (;;) {
      Result r;
      {
        std::unique_lock<std::mutex> lock(m);
        done_cv.wait(lock, [&] {
          return done.count(merged) || (split_done && merged == pushed) || worker_error;
        });
        if (worker_error) std::rethrow_exception(worker_error);
        auto it = done.find(merged);
        if (it == done.end()) break;  // every batch merged and the splitter finished
        r = std::move(it->second);
        done.erase(it);
      }
      merge(std::move(r));  // may throw the batch's error
      std::lock_guard<std::mutex> lock(m);
      ++merged;
      room_cv.notify_one();
    }
  } catch (...) {
    stop();
    throw;
  }
  stop();
  if (split_error) std::rethrow_exception(split_error);
}

}  // namespace trace
