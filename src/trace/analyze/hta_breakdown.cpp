#include "trace/analyze/hta_breakdown.h"

#include "trace/analyze/hta_idle.h"
#include "trace/analyze/hta_temporal.h"

namespace trace {
namespace {

void temporal_figures(const HtaFrame& f, const HtaOptions& opt, HtaRank* out) {
  const HtaTemporal t = hta_temporal(f, opt.ts_order);
  out->int_wrapped |= t.int_wrapped;
  out->has_gpu = !f.gpu_ts.empty();
  if (!out->has_gpu) return;
  out->kernel_time_us = t.kernel_time.f();
  out->idle_us = t.idle.f();
  out->compute_us = t.compute.f();
  out->non_compute_us = t.non_compute.f();
}

void idle_figures(const HtaFrame& f, const HtaOptions& opt, HtaRank* out) {
  HtaIdleOptions io;
  io.consecutive_kernel_delay_us = opt.consecutive_kernel_delay_us;
  for (const HtaIdleStream& s : hta_idle(f, io, opt.ts_order, &out->int_wrapped)) {
    HtaIdle& i = out->idle_by_stream[s.stream];
    for (const HtaIdleCategory& c : s.categories)
      (c.type == HtaIdleType::HostWait     ? i.host_wait_us
       : c.type == HtaIdleType::KernelWait ? i.kernel_wait_us
                                           : i.other_us) = c.idle_us;
  }
}

void queue_figures(const HtaFrame& f, const HtaOptions& opt, HtaRank* out) {
  HtaQueue q = hta_queue(f, opt.max_queue_length, opt.ts_order);
  out->int_wrapped |= q.int_wrapped;
  out->queue_length = std::move(q.length);
  out->queue_error = std::move(q.length_error);
  out->full_queue = q.full;
  out->full_queue_error = std::move(q.full_error);
}

HtaRank one_rank(const HtaFrame& f, const HtaOptions& opt) {
  HtaRank out;
  temporal_figures(f, opt, &out);
  idle_figures(f, opt, &out);
  out.launch_delay = launch_delay_stats(hta_launch_rows(f, &out.int_wrapped));
  queue_figures(f, opt, &out);
  return out;
}

}  // namespace

std::map<int64_t, HtaRank> hta_breakdown(const std::vector<const ImportedTrace*>& traces,
                                         const HtaOptions& options) {
  std::map<int64_t, HtaRank> out;
  for (const auto& [rank, frame] : hta_frames(traces, options))
    out[rank] = one_rank(frame, options);
  return out;
}

}  // namespace trace
