// What each blocking call waits for (graph.h). A blocking call returns after the GPU work it
// waits for has ended; what that work is, is resolved from what was queued before the call:
//   cudaStreamSynchronize: the last work queued on its stream before the call started. The
//     stream is the cuda_sync row's (Stream Sync); without a row, the stream its thread queued
//     work on last (PyTorch syncs the current stream, the one `.item()`'s copy just went to).
//   cudaDeviceSynchronize (Context Sync): the last work queued on every stream.
//   cudaEventSynchronize: the last work queued on the event's stream before its cudaEventRecord
//     (Event Sync row: wait_on_stream, wait_on_cuda_event_record_corr_id); without them, every
//     stream, as a device sync.
//   a blocking copy (cudaMemcpy, an Async copy into pageable memory): its own copy, which stream
//     order puts after the work queued before it.
// In each case work that ended after the call returned is not what it waited for (the call
// could not have returned before it), and the latest earlier work on that stream is taken.
// The call's end then follows the later of its start (its own price: the recorded length
// when nothing was queued) and the end of that work (plus the wake-up seen in the trace); the
// binding rule (graph.h) decides which one keeps its recorded delay.
#include <string>

#include "trace/analyze/replay/builder.h"

namespace trace::replay {

void Builder::add_sync_waits() {
  IdMap rows(r.syncs.size());
  for (uint32_t i = 0; i < r.syncs.size(); ++i)
    if (r.syncs[i].kind != SyncKind::StreamWaitEvent && r.syncs[i].correlation_id)
      rows.insert(r.syncs[i].correlation_id, i);
  IdMap& by_corr = api_by_corr;

  std::vector<uint32_t> targets;
  for (uint32_t a = 0; a < r.api.size(); ++a) {
    if (!g.call_blocking[a] || g.call_node[a] == kNone) continue;
    ++g.stats.blocking_calls;
    const ApiRecord& call = r.api[a];
    const uint64_t s = call_start[a], e = call_end[a];
    targets.clear();
    const auto on_stream = [&](uint32_t res, uint64_t before) {
      const uint32_t v = last_queued(res, before, e);
      if (v != kNone) targets.push_back(v);
    };
    const auto every_stream = [&](uint64_t before) {
      for (uint32_t res = 0; res < g.resources.size(); ++res)
        if (g.resources[res].gpu) on_stream(res, before);
    };
    const auto stream_of = [&](uint32_t id) {
      auto it = stream_by_id.find(id);
      return it == stream_by_id.end() ? kNone : it->second;
    };
    bool from_row = false;
    if (call.kind == ApiKind::Memcpy && g.call_gpu_begin[a + 1] > g.call_gpu_begin[a]) {
      for (uint32_t k = g.call_gpu_begin[a]; k < g.call_gpu_begin[a + 1]; ++k)
        targets.push_back(g.call_gpu[k]);
      from_row = true;
    } else if (const uint32_t* row =
                   call.correlation_id ? rows.find(call.correlation_id) : nullptr) {
      const SyncRecord& y = r.syncs[*row];
      from_row = true;
      if (y.kind == SyncKind::Stream && stream_of(y.stream_id) != kNone) {
        on_stream(stream_of(y.stream_id), s);
      } else if (y.kind == SyncKind::Event && y.wait_stream != kNoStream &&
                 y.wait_record_correlation && stream_of(y.wait_stream) != kNone &&
                 by_corr.find(y.wait_record_correlation)) {
        on_stream(stream_of(y.wait_stream),
                  r.api[*by_corr.find(y.wait_record_correlation)].start_ns);
      } else {
        from_row = y.kind == SyncKind::Context;
        every_stream(s);
      }
    } else if (call.name.find("StreamSynchronize") != std::string::npos &&
               last_stream_of_call[a] != kNone) {
      on_stream(last_stream_of_call[a], s);
    } else if (call.kind == ApiKind::Memcpy && last_stream_of_call[a] != kNone) {
      on_stream(last_stream_of_call[a], s);  // a blocking copy whose own copy was not recorded
    } else {
      every_stream(s);
    }
    ++(from_row ? g.stats.sync_targets_from_rows : g.stats.sync_targets_guessed);
    if (targets.empty()) ++g.stats.syncs_waiting_on_nothing;
    const uint32_t end_node = g.call_node[a] + 1;
    for (uint32_t v : targets)
      edge(v, end_node, EdgeKind::SyncWait, static_cast<int64_t>(e) - g.observed_end(v));
  }
}

}  // namespace trace::replay
