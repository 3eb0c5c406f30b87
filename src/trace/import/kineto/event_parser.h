// One worker's parse of the events the splitter hands over (event_pipeline.h), into the
// records and counters of that batch alone; the import merges batches in document order.
// Two ways through a batch, each for a reason:
//  - a region (EventBatch::region: many whole events as they stand in the document) is parsed
//    as one simdjson document, one stage-1 index for the lot, which is what makes the parse
//    fast (docs/trace-tool.md, "Speed", has the figures);
//  - anything else, and any region that fails, is parsed event by event: each event its own
//    document, so that an error names the first bad event and its byte offset, exactly.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>

#include "trace/import/kineto/event_pipeline.h"
#include "trace/import/kineto/kineto_import.h"
#include "trace/import/kineto/string_ids.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct EventFields;  // one event's fields as read (event_parser.cpp)

// What one batch of events becomes; merged into the ImportedTrace in document order.
struct Partial {
  ImportedTrace t;  // records, counters and listed events of this batch only
  bool rank_set = false;
  std::string clock;  // otherData.clock, when this batch held it
  uint64_t begin_end_events = 0;
  std::exception_ptr error;  // the batch's first bad event: merge rethrows it
};

// Parses batches into Partials. One per worker thread (each has its own simdjson parser).
class EventParser {
 public:
  EventParser(const std::string& name, const ImportOptions& opt) : name_(name), opt_(opt) {}

  // Never throws: the batch's first error goes into p->error.
  void batch(const EventBatch& b, Partial* p);

 private:
  void begin(Partial* p);
  bool whole_region(const EventBatch& b, Partial* p);  // false: nothing of it kept
  void event(const JsonSlice& s, uint64_t index);
  void top(std::string_view key, const JsonSlice& s);
  // One event, in steps: its fields read, its times checked (and listed, when asked), its record.
  void parse_event(simdjson::ondemand::object obj, uint64_t index, uint64_t offset);
  bool read_fields(simdjson::ondemand::object obj, uint64_t index, uint64_t offset, EventFields* f);
  void ignore(const EventFields& f);
  void note_listed_times(const EventFields& f);
  void list_event(const EventFields& f, uint64_t index);
  void add_record(const EventFields& f, uint64_t start, uint64_t end);
  void add_api(const EventFields& f, uint64_t start, uint64_t end, uint32_t corr, uint32_t thread);
  void add_kernel(const EventFields& f, uint64_t start, uint64_t end, uint32_t corr,
                  uint32_t device, uint32_t stream);
  [[noreturn]] void bad(uint64_t index, uint64_t offset, const std::string& what);
  uint32_t string_id(std::string_view s);
  uint32_t frame_name_id(std::string_view name);
  ApiKind api_kind(const std::string& name);

  const std::string& name_;
  const ImportOptions& opt_;
  ImportedTrace* out_ = nullptr;
  Partial* part_ = nullptr;
  simdjson::ondemand::parser parser_;
  // classify_api by name, remembered: a trace calls a few dozen APIs millions of times, and
  // classify_api searches the name for up to seven words (400 instructions a call here).
  std::unordered_map<std::string, ApiKind> api_kinds_;
  StringIds string_ids_;        // the batch's listed strings
  StringIds kernel_name_ids_;   // the batch's kernel names
  StringIds frame_name_ids_;    // the batch's Python frame names
  std::string frame_name_buf_;  // a name without its address
};

}  // namespace trace
