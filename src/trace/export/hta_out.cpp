#include "trace/export/hta_out.h"

#include <cmath>
#include <cstdio>

namespace trace {

void write_hta_json(JsonOut& o, const std::map<int64_t, HtaRank>& ranks) {
  o.begin_object();
  for (const auto& [rank, r] : ranks) {
    o.key(std::to_string(rank)).begin_object();
    if (r.int_wrapped)
      o.key("int_wrapped").value(true);  // HTA's narrow int columns wrapped (hta_breakdown.h)
    o.key("temporal").begin_object();
    if (r.has_gpu) {
      o.key("idle_time_us").value(r.idle_us).key("compute_time_us").value(r.compute_us);
      o.key("non_compute_time_us")
          .value(r.non_compute_us)
          .key("kernel_time_us")
          .value(r.kernel_time_us);
    }
    o.end_object();
    o.key("idle_by_stream").begin_object();
    for (const auto& [stream, i] : r.idle_by_stream) {
      o.key(std::to_string(stream)).begin_object();
      o.key("host_wait_us")
          .value(i.host_wait_us)
          .key("kernel_wait_us")
          .value(i.kernel_wait_us)
          .key("other_us")
          .value(i.other_us);
      o.end_object();
    }
    o.end_object();
    const auto& s = r.launch_delay;
    o.key("launch_delay_us").begin_object();
    o.key("count").value(s.count);
    if (s.count)
      o.key("mean")
          .value(s.mean)
          .key("min")
          .value(s.min)
          .key("p50")
          .value(s.p50)
          .key("p90")
          .value(s.p90)
          .key("max")
          .value(s.max);
    o.end_object();
    // HTA's queue length summary and time blocked on a full queue (hta_queue.h).
    const auto number_or_null = [&](double v) {
      if (std::isnan(v) || std::isinf(v))
        o.null();
      else
        o.value(v);
    };
    o.key("queue_length").begin_object();
    for (const auto& [stream, q] : r.queue_length) {
      o.key(std::to_string(stream)).begin_object();
      o.key("count").value(q.count).key("mean").value(q.mean).key("std");
      number_or_null(q.std);
      o.key("min").value(q.min).key("p25").value(q.p25).key("p50").value(q.p50);
      o.key("p75").value(q.p75).key("max").value(q.max);
      o.end_object();
    }
    o.end_object();
    const auto& f = r.full_queue;
    o.key("blocked_on_full_queue").begin_object();
    o.key("max_queue_length").value(f.max_queue_length);
    if (f.present) {
      o.key("stream").value(f.stream).key("duration_us").value(f.duration_us);
      o.key("relative");
      number_or_null(f.relative);
    }
    o.end_object();
    if (!r.queue_error.empty() || !r.full_queue_error.empty()) {
      o.key("hta_errors").begin_object();  // where HTA 0.5.0 itself raises
      if (!r.queue_error.empty()) o.key("queue_length").value(r.queue_error);
      if (!r.full_queue_error.empty()) o.key("blocked_on_full_queue").value(r.full_queue_error);
      o.end_object();
    }
    o.end_object();
  }
  o.end_object();
}

std::string hta_table(const std::map<int64_t, HtaRank>& ranks, bool ns_rounding, HtaVersion v) {
  const char* hta = v == HtaVersion::V0_5 ? "HTA 0.5.0" : "HTA 0.6.1";
  std::string out;
  char line[512];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("Holistic Trace Analysis %s definitions (ns rounding %s)\n",
      v == HtaVersion::V0_5 ? "0.5.0" : "0.6.1", ns_rounding ? "on" : "off");
  for (const auto& [rank, r] : ranks) {
    add("\nrank %lld\n", static_cast<long long>(rank));
    if (r.int_wrapped)
      add("  note: %s narrows small integer timestamps to int8/16/32 and ts + dur wrapped around\n"
          "  there; these figures follow HTA's, and are not the true ones\n",
          hta);
    if (!r.has_gpu) {
      out += "  no GPU events: no temporal or idle breakdown\n";
      continue;
    }
    add("  temporal: span %.1f us = idle %.1f + compute %.1f + non-compute %.1f\n",
        r.kernel_time_us, r.idle_us, r.compute_us, r.non_compute_us);
    add("  %-8s %14s %14s %14s\n", "stream", "host wait us", "kernel wait us", "other us");
    for (const auto& [s, i] : r.idle_by_stream)
      add("  %-8lld %14.1f %14.1f %14.1f\n", static_cast<long long>(s), i.host_wait_us,
          i.kernel_wait_us, i.other_us);
    const auto& d = r.launch_delay;
    add("  launch delay: %llu launches, mean %.2f us, p50 %.2f, p90 %.2f, max %.2f\n",
        static_cast<unsigned long long>(d.count), d.mean, d.p50, d.p90, d.max);
    if (!r.queue_error.empty()) {
      add("  queue length: %s raises here (%s)\n", hta, r.queue_error.c_str());
    } else {
      for (const auto& [s, q] : r.queue_length)
        add("  queue length, stream %lld: %llu changes, mean %.2f, p50 %.1f, p75 %.1f, max %.0f\n",
            static_cast<long long>(s), static_cast<unsigned long long>(q.count), q.mean, q.p50,
            q.p75, q.max);
    }
    const auto& f = r.full_queue;
    if (!r.full_queue_error.empty())
      add("  blocked on a full queue (%lld): %s raises here (%s)\n",
          static_cast<long long>(f.max_queue_length), hta, r.full_queue_error.c_str());
    else if (f.present)
      add("  blocked on a full queue (%lld): stream %lld, %.1f us, %.4f of the trace\n",
          static_cast<long long>(f.max_queue_length), static_cast<long long>(f.stream),
          f.duration_us, f.relative);
    else
      add("  blocked on a full queue (%lld): never\n", static_cast<long long>(f.max_queue_length));
  }
  return out;
}

}  // namespace trace
