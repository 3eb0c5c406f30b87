#include "trace/export/call_sites_out.h"

#include <cstdio>

#include "trace/model/units.h"

namespace trace {

namespace {

const char* stacks_label(SiteReport::Stacks s) {
  switch (s) {
    case SiteReport::Stacks::Python:
      return "python";
    case SiteReport::Stacks::Native:
      return "native";
    case SiteReport::Stacks::None:
      break;
  }
  return "none";
}

constexpr const char* kHowToRecord =
    "record them with torch.profiler.profile(with_stack=True), or nsys profile "
    "--cudabacktrace=all (native frames)";

std::string name_of(const RecordSet& r, uint32_t n) {
  return n == kNoFrame ? std::string() : r.frame_names[n];
}

// savings: per row, the replayed saving of removing it (ns, -1: not replayed), or nullptr.
std::string rows_text(const TraceReport& rep, const std::vector<SiteRow>& rows, const char* cost,
                      const std::vector<int64_t>* savings) {
  const RecordSet& r = rep.trace->records;
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "    %6s %12s %10s %7s %12s  %s\n", "calls", cost, "GPU busy us",
                "steps", "saves us", "site (caller -> callee, op)");
  out += line;
  const double steps = static_cast<double>(rep.steps.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const SiteRow& s = rows[i];
    std::string apis;
    for (const auto& a : s.apis) apis += (apis.empty() ? "" : ", ") + a;
    // The replayed saving of removing it (no-syncs:site=N), for the sites advice tried.
    const bool replayed = savings && i < savings->size() && (*savings)[i] >= 0;
    char saves[32] = "-";
    if (replayed)
      std::snprintf(saves, sizeof saves, "%.1f", static_cast<double>((*savings)[i]) / 1000.0);
    std::snprintf(line, sizeof line, "    %6llu %12.1f %10.1f %6.0f%% %12s  %s [%s]\n",
                  static_cast<unsigned long long>(s.calls), us(s.blocked_ns), us(s.gpu_queued_ns),
                  steps > 0 ? 100.0 * static_cast<double>(s.steps) / steps : 100.0, saves,
                  site_label(r, s).c_str(), apis.c_str());
    out += line;
    std::string where;
    if (s.module != kNoFrame) where += "in " + name_of(r, s.module);
    if (s.user != kNoFrame && s.user != s.caller)
      where += std::string(where.empty() ? "" : "; ") + "your code: " + name_of(r, s.user);
    if (!where.empty()) out += "                                                 " + where + "\n";
  }
  return out;
}

}  // namespace

std::string call_sites_text(const TraceReport& rep) {
  const SiteReport& s = rep.sites;
  const bool calls = !rep.syncs.calls.empty(), would = !s.would_sync.empty();
  if (!calls && !would) return "";
  if (s.stacks == SiteReport::Stacks::None)
    return std::string("\n  call sites: no stacks in this trace (") + kHowToRecord + ")\n";
  std::string out;
  char line[512];
  if (calls) {
    const bool python = s.stacks == SiteReport::Stacks::Python;
    std::snprintf(line, sizeof line,
                  "\n  blocking calls by call site (%s stacks; the caller frame is the innermost "
                  "frame outside %s; saves: removing the site, replayed, for the sites advice "
                  "tried):\n",
                  stacks_label(s.stacks),
                  python ? "torch, the standard library and builtins, named by its function's "
                           "first line"
                         : "the CUDA libraries and the C library");
    out += line;
    out += rows_text(rep, s.sites, "blocked us", &rep.site_saving_ns);
    if (s.without_caller || s.without_stack) {
      std::snprintf(line, sizeof line,
                    "    %llu calls have frames around them but no caller frame (the stack holds "
                    "only torch, standard-library or builtin frames, or was cut at the "
                    "profiler's start); %llu have no frame around them\n",
                    static_cast<unsigned long long>(s.without_caller),
                    static_cast<unsigned long long>(s.without_stack));
      out += line;
    }
  }
  if (would) {
    out +=
        "\n  ops that would block on a GPU (this trace has no GPU work, so nothing blocked), by "
        "call site:\n";
    out += rows_text(rep, s.would_sync_sites, "host us", nullptr);
  }
  return out;
}

namespace {

void site_rows_json(JsonOut& o, const TraceReport& rep, const std::vector<SiteRow>& rows,
                    const char* cost_key, const std::vector<int64_t>* savings) {
  const RecordSet& r = rep.trace->records;
  const double steps = static_cast<double>(rep.steps.size());
  const double wall = static_cast<double>(rep.steps_wall_ns);
  o.begin_array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const SiteRow& s = rows[i];
    o.begin_object();
    o.key("site").value(site_label(r, s));
    o.key("replayed_saving_us");  // removing it, replayed (null: not tried)
    if (savings && i < savings->size() && (*savings)[i] >= 0)
      o.value(static_cast<double>((*savings)[i]) / 1000.0);
    else
      o.null();
    const auto frame = [&](const char* key, uint32_t n) {
      o.key(key);
      if (n == kNoFrame)
        o.null();
      else
        o.value(r.frame_names[n]);
    };
    frame("caller", s.caller);
    frame("callee", s.callee);
    frame("user_frame", s.user);
    frame("module", s.module);
    o.key("op").value(s.op).key("order").value(static_cast<uint64_t>(s.order));
    o.key("calls").value(s.calls).key("occurrences").value(s.occurrences);
    o.key(cost_key).value(us(s.blocked_ns)).key("gpu_queued_us").value(us(s.gpu_queued_ns));
    o.key("share_of_steps").value(wall > 0 ? static_cast<double>(s.blocked_ns) / wall : 0.0);
    o.key("steps").value(s.steps);
    o.key("steps_share").value(steps > 0 ? static_cast<double>(s.steps) / steps : 1.0);
    o.key("apis").begin_array();
    for (const auto& a : s.apis) o.value(a);
    o.end_array();
    o.end_object();
  }
  o.end_array();
}

}  // namespace

void write_call_sites_json(JsonOut& o, const TraceReport& rep) {
  const SiteReport& s = rep.sites;
  o.key("call_sites").begin_object();
  o.key("stacks").value(stacks_label(s.stacks));
  if (s.stacks == SiteReport::Stacks::None) o.key("how_to_record").value(kHowToRecord);
  o.key("without_caller").value(s.without_caller).key("without_stack").value(s.without_stack);
  o.key("sites");
  site_rows_json(o, rep, s.sites, "blocked_us", &rep.site_saving_ns);
  o.key("gpu_work").value(s.gpu_work);
  o.key("would_sync");
  site_rows_json(o, rep, s.would_sync_sites, "host_us", nullptr);
  o.end_object();
}

void write_call_site_of(JsonOut& o, const TraceReport& rep, size_t i) {
  const SiteReport& s = rep.sites;
  const RecordSet& r = rep.trace->records;
  o.key("site");
  if (i < s.site_of_call.size() && s.site_of_call[i] >= 0)
    o.value(static_cast<uint64_t>(s.site_of_call[i]));
  else
    o.null();
  const CallSite* c = i < s.calls.size() ? &s.calls[i] : nullptr;
  o.key("caller");
  if (c && c->caller >= 0)
    o.value(r.frame_names[c->stack[c->caller]]);
  else
    o.null();
  o.key("stack").begin_array();
  if (c)
    for (uint32_t n : c->stack) o.value(r.frame_names[n]);
  o.end_array();
  o.key("stack_cut").value(c && c->stack_cut);
}

}  // namespace trace
