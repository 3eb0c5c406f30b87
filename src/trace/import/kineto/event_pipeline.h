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

// The pipeline's threads and what they share (run_event_pipeline, below, runs one). One lock; a
// condition variable per kind of waiter, each woken only when it can go on: the workers (a
// batch to parse, or the end), the merging thread (the next batch in order parsed, the end, or a
// worker's error), the splitter (room for another batch, or cancelled). One variable woken for
// everything woke every thread for every batch: some 2000 wake-ups and context switches on a
// 274 MB trace, each resuming with cold caches on a loaded machine.
template <typename Result>
class EventPipeline {
 public:
  using KeepTop = std::function<bool(std::string_view)>;
  using Parse = std::function<void(unsigned, const EventBatch&, Result*)>;
  using Merge = std::function<void(Result&&)>;

  EventPipeline(JsonEventStream& stream, unsigned workers, size_t region_bytes,
                const KeepTop& keep_top, const Parse& parse, const Merge& merge)
      : stream_(stream),
        workers_(workers == 0 ? 1 : workers),
        region_bytes_(region_bytes),
        max_in_flight_(2 * static_cast<size_t>(workers_) + 2),
        keep_top_(keep_top),
        parse_(parse),
        merge_(merge) {}

  // Splits, parses and merges the whole document; rethrows the first error in document order.
  void run() {
    splitter_ = std::thread([this] { split(); });
    try {
      for (unsigned w = 0; w < workers_; ++w) pool_.emplace_back([this, w] { work(w); });
      merge_in_order();
    } catch (...) {
      stop();
      throw;
    }
    stop();
    if (split_error_) std::rethrow_exception(split_error_);
  }

 private:
  static constexpr size_t kBatchBytes = 1u << 20;
  struct Cancelled {};

  // The splitter thread: the document into batches, in order; its error kept for run().
  void split() {
    JsonEventStream::RegionSink regions;  // a batch of its own each, in the buffer it was read into
    regions.min_bytes = region_bytes_;
    regions.buffer = [this] {
      std::lock_guard<std::mutex> lock(m_);
      ByteBuffer v;
      if (!spare_read_.empty()) v = std::move(spare_read_.back()), spare_read_.pop_back();
      return v;
    };
    regions.take = [this](JsonRegion&& r) { take_region(std::move(r)); };
    std::exception_ptr error;
    try {
      b_ = EventBatch();
      stream_.run([this](const JsonSlice& s, uint64_t index) { add_event(s, index); },
                  [this](std::string_view k, const JsonSlice& s) {
                    if (keep_top_(k)) add_top(k, s);
                  },
                  region_bytes_ ? &regions : nullptr);
      if (!b_.events.empty()) push();
    } catch (const Cancelled&) {
    } catch (...) {
      error = std::current_exception();
      // The events split before the error come first: one of them may be bad too.
      try {
        if (!b_.events.empty()) push();
      } catch (...) {
      }
    }
    std::lock_guard<std::mutex> lock(m_);
    split_done_ = true, split_error_ = error;
    work_cv_.notify_all();
    done_cv_.notify_all();
  }

  // A batch of events or a top-level value: bytes (a spare buffer's, when one is free) reserved
  // up front.
  void start() {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!spare_.empty()) b_.bytes = std::move(spare_.back()), spare_.pop_back();
    }
    b_.bytes.clear();
    b_.bytes.reserve(kBatchBytes + (64u << 10));
  }

  // Hands the batch to the workers once there is room; throws Cancelled when the run stopped.
  void push() {
    if (!b_.region) b_.bytes.resize(b_.bytes.size() + simdjson::SIMDJSON_PADDING, ' ');
    std::unique_lock<std::mutex> lock(m_);
    room_cv_.wait(lock, [&] { return pushed_ - merged_ < max_in_flight_ || cancelled_; });
    if (cancelled_) throw Cancelled();
    b_.seq = pushed_++;
    todo_.push_back(std::move(b_));
    work_cv_.notify_one();
  }
  void push_fresh() { push(), b_ = EventBatch(); }

  void append(const JsonSlice& s) { b_.bytes.insert(b_.bytes.end(), s.data, s.data + s.size); }

  void add_event(const JsonSlice& s, uint64_t index) {
    // A batch numbers its events from its first; a second traceEvents array counts from 0 again.
    if (!b_.events.empty() && index != b_.first_index + b_.events.size()) push_fresh();
    if (b_.events.empty()) start(), b_.events.reserve(8192), b_.first_index = index;
    b_.events.push_back(
        {static_cast<uint32_t>(b_.bytes.size()), static_cast<uint32_t>(s.size), s.offset});
    append(s);
    if (b_.bytes.size() >= kBatchBytes) push_fresh();
  }

  void add_top(std::string_view key, const JsonSlice& s) {  // a batch of its own, in order
    if (!b_.events.empty()) push_fresh();
    start();
    b_.top = true, b_.key = std::string(key), b_.top_offset = s.offset;
    append(s);
    push_fresh();
  }

  // A region as one batch, in its own buffer, bracketed to read as an array (EventBatch).
  void take_region(JsonRegion&& r) {
    if (!b_.events.empty()) push_fresh();
    b_.region = true, b_.first_index = r.first_index, b_.region_elements = r.elements,
    b_.region_offset = r.text.offset;
    b_.bytes = std::move(r.buffer);
    b_.region_at = r.at - 1, b_.region_size = r.text.size;
    b_.bytes[r.at - 1] = '[';
    b_.bytes[r.at + r.text.size] = ']';
    if (r.first_index > 0) {  // after an element: whitespace, then the ',' before this region's
      size_t i = r.at;
      const size_t end = r.at + r.text.size;
      while (i < end && (b_.bytes[i] == ' ' || b_.bytes[i] == '\n' || b_.bytes[i] == '\r' ||
                         b_.bytes[i] == '\t'))
        ++i;
      if (i < end && b_.bytes[i] == ',')
        b_.bytes[i] = ' ', b_.blanked = i;
      else
        b_.separator_ok = false;
    }
    push_fresh();
  }

  // A worker thread: batches parsed as they come. One that fails outside parse() (out of memory)
  // stops the pipeline with its error.
  void work(unsigned w) {
    try {
      for (;;) {
        EventBatch b;
        {
          std::unique_lock<std::mutex> lock(m_);
          work_cv_.wait(lock, [&] { return !todo_.empty() || split_done_ || cancelled_; });
          if (cancelled_ || todo_.empty()) return;  // empty here means the splitter is done
          b = std::move(todo_.front());
          todo_.pop_front();
        }
        Result r;
        parse_(w, b, &r);
        std::lock_guard<std::mutex> lock(m_);
        done_.emplace(b.seq, std::move(r));
        (b.region ? spare_read_ : spare_).push_back(std::move(b.bytes));
        if (b.seq == merged_) done_cv_.notify_one();  // the one the merging thread waits for
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      if (!worker_error_) worker_error_ = std::current_exception();
      cancelled_ = true;
      work_cv_.notify_all(), done_cv_.notify_all(), room_cv_.notify_all();
    }
  }

  // The calling thread: each parsed batch merged in document order, until the last.
  void merge_in_order() {
    for (;;) {
      Result r;
      {
        std::unique_lock<std::mutex> lock(m_);
        done_cv_.wait(lock, [&] {
          return done_.count(merged_) || (split_done_ && merged_ == pushed_) || worker_error_;
        });
        if (worker_error_) std::rethrow_exception(worker_error_);
        auto it = done_.find(merged_);
        if (it == done_.end()) break;  // every batch merged and the splitter finished
        r = std::move(it->second);
        done_.erase(it);
      }
      merge_(std::move(r));  // may throw the batch's error
      std::lock_guard<std::mutex> lock(m_);
      ++merged_;
      room_cv_.notify_one();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      cancelled_ = true;
      work_cv_.notify_all(), done_cv_.notify_all(), room_cv_.notify_all();
    }
    splitter_.join();
    for (auto& t : pool_)
      if (t.joinable()) t.join();
  }

  JsonEventStream& stream_;
  const unsigned workers_;
  const size_t region_bytes_, max_in_flight_;
  const KeepTop& keep_top_;
  const Parse& parse_;
  const Merge& merge_;
  std::thread splitter_;
  std::vector<std::thread> pool_;
  EventBatch b_;  // the batch being split (the splitter thread's alone)

  // Guards everything below; on a cache line of its own, so that the splitter's writes to b_
  // (every event) do not move the line the other threads lock.
  alignas(64) std::mutex m_;
  std::condition_variable work_cv_, done_cv_, room_cv_;
  std::deque<EventBatch> todo_;
  std::map<uint64_t, Result> done_;     // parsed, waiting for their turn to merge
  std::vector<ByteBuffer> spare_;       // byte buffers to reuse: for batches of events
  std::vector<ByteBuffer> spare_read_;  // for the splitter to read regions into (kept full size)
  uint64_t pushed_ = 0, merged_ = 0;
  bool split_done_ = false, cancelled_ = false;
  std::exception_ptr split_error_, worker_error_;
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
  EventPipeline<Result>(stream, workers, region_bytes, keep_top, parse, merge).run();
}

}  // namespace trace
