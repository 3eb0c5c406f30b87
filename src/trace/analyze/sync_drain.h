// What each blocking call drained (sync_causes.h), and what removing it could save given the
// regime of its step (launch_queue.h). Docs: docs/trace-tool.md, "What each sync drained".
//
// Per call: queue_depth, the pieces queued on the GPUs when it began; drained, the pieces that
// finished while it blocked; regime, that of the step it began in (the trace's without steps).
// Per cause: the median and largest depth its calls found, the pieces drained, the GPUs' idle
// after its calls, and saving_estimate_ns: per call the smaller of its blocked time and the GPU
// idle after it, summed. Why, to first order: with the call gone the host goes on at once, so
// the run shortens by what the host waited when the host is the bottleneck, and by the gap the
// GPU sat idle before the host refilled its queue when the GPU is. What it leaves out (the later
// waits a removal moves, other threads, the GPU work then overlapped) the replay follows.
//
// The advice names which term binds, by blocked time: own cost when the calls whose blocked
// time is the smaller hold at least kBindsShare of the cause's blocked time (the GPU waited for
// the host: the launch-bound case, where a sync finds little queued and costs its own price);
// the wait moves when the calls bounded by the idle after them hold that share (the GPU was busy
// again soon: the GPU-bound case, where removing a sync moves its wait to the next one); mixed
// otherwise. The regime of the steps is reported beside it; the replay
// (`--what-if no-syncs:op=NAME`) says how much, with every later wait moved.
#pragma once

#include <vector>

#include "trace/analyze/launch_queue.h"
#include "trace/analyze/sync_causes.h"

namespace trace {

// step_regimes: the regime of each RecordSet step (index as SyncCall::step); whole: the trace's.
void add_drain(SyncReport* syncs, const LaunchQueue& queue, const std::vector<Regime>& step_regimes,
               Regime whole);

constexpr double kBindsShare = 0.9;

// The advice for a cause from its blocked time and the part of it bounded by the idle after.
DrainAdvice drain_advice(uint64_t blocked_ns, uint64_t idle_bound_ns, bool gpu_work);

}  // namespace trace
