// Full launch queues (graph.h, BuildOptions::full_queue): CUDA queues at most so many pieces of
// work per stream; a launch call made when its stream's queue is full does not return until the
// oldest piece finishes. The trace shows it as a long launch call that ends right after some
// work on its stream ended. Its wait becomes an edge from that work (QueueWait) and its own
// price a QueueCall, so faster kernels free the host sooner, as they would.
#include "trace/analyze/replay/builder.h"

namespace trace::replay {

void Builder::add_queue_waits() {
  const uint32_t h = g.host_count, depth = opt.full_queue;
  if (depth == 0) return;
  std::vector<uint8_t> waited(r.api.size(), 0);
  for (const auto& order : stream_ops) {
    for (size_t k = depth; k < order.size(); ++k) {
      const uint32_t call = ops[order[k] - h].call;
      if (call == kNone || waited[call] || r.api[call].kind != ApiKind::Launch) continue;
      // The piece `depth` places ahead in the stream's FIFO: the call waits for its end.
      const uint32_t oldest = order[k - depth];
      const uint32_t end_node = g.call_node[call] + 1;
      const int64_t freed = g.observed_end(oldest);
      if (freed <= g.observed[end_node - 1] || freed > g.observed[end_node]) continue;
      waited[call] = 1;
      edge(oldest, end_node, EdgeKind::QueueWait, g.observed[end_node] - freed);
      ++g.stats.queue_waits;
    }
  }
  if (!g.stats.queue_waits) return;
  for (Candidate& c : edges)  // the call's own price, now beside its wait
    if (c.kind == EdgeKind::LaunchCall && g.node_call[c.from] != kNone &&
        waited[g.node_call[c.from]])
      c.kind = EdgeKind::QueueCall;
}

}  // namespace trace::replay
