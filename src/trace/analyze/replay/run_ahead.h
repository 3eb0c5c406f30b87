// What-if: a host range run ahead by worker processes, as DataLoader(num_workers=N) runs its
// loading beside the training step (simulate.h's Prefetch): the host time inside the range
// leaves the thread, which then waits only for what the workers have not finished.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/analyze/replay/graph.h"
#include "trace/analyze/replay/simulate.h"

namespace trace::replay {

// What run_ahead found, for the output to state.
struct RunAheadFacts {
  uint64_t ranges = 0;   // instances moved to the workers
  uint64_t threads = 0;  // threads they were on: one loader each
  uint64_t kept = 0;     // instances left on their thread: they queue or wait for GPU work
};

// DataLoader's default prefetch_factor: batches asked ahead per worker.
constexpr uint32_t kPrefetchPerWorker = 2;

// The instances of one range (`ranges`, as replay_graph.h places them), each thread's in order,
// loaded by `workers` workers. An instance that launches, copies or waits for GPU work stays on
// its thread (a worker process holds no CUDA work of the step), and so do those after it.
Scenario run_ahead(const Graph& graph, const std::vector<SpanNodes>& ranges, uint32_t workers,
                   RunAheadFacts* facts);

}  // namespace trace::replay
