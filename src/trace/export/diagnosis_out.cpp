#include "trace/export/diagnosis_out.h"

#include <cstdio>

#include "trace/analyze/finding.h"
#include "trace/model/units.h"

namespace trace {
namespace {

std::string ms(uint64_t ns) { return ms_or_us(static_cast<int64_t>(ns)); }

// Where the verdict comes from: the steady steps, or the whole trace.
std::string scope(const Diagnosis& d) {
  if (d.whole_trace) return "the whole trace (no steps found)";
  std::string out = std::to_string(d.windows - d.cold_windows) + " steady step(s) of " +
                    std::to_string(d.windows) + ", median " + ms(d.steady_step_ns);
  if (!d.steps_from.empty()) out += "; no ProfilerStep: steps are " + d.steps_from;
  if (d.cold_windows) out += "; " + std::to_string(d.cold_windows) + " cold step(s) left out";
  return out;
}

std::string saving(const Diagnosis& d, const Diagnosed& f) {
  if (!f.saving_ns) return "";
  return "up to " + ms(f.saving_ns) + (d.whole_trace ? " over the trace" : " a step") +
         (f.assumption.empty() ? "" : " (if " + f.assumption + ")");
}

std::string replayed(const Diagnosed& f) {
  if (f.replayed_ns < 0) return "";
  return "replayed: saves " + ms_or_us(f.replayed_ns) + " over the trace [--what-if " + f.what_if +
         "]";
}

// A warm-up worth a line: 1 ms, or 5 % of the profile (a first call's few us are noise).
bool shows_warm_up(const Diagnosis& d) {
  return d.cold_ns >= 1'000'000 || d.cold_ns * 20 >= d.all_wall_ns;
}

}  // namespace

std::string diagnosis_text(const Diagnosis& d) {
  std::string out = "\n  diagnosis: " + verdict_line(d) + "\n";
  if (!d.gpu) return out;
  out += "    from " + scope(d) + "\n";
  if (shows_warm_up(d)) {
    out += "    warm-up: " + ms(d.cold_ns) + " of cold-start work, left out of the verdict";
    if (!d.cold_items.empty())
      out += " (largest: " + d.cold_items.front().name + " " + ms(d.cold_items.front().ns) + ")";
    out += "\n";
  }
  int n = 0;
  for (const auto& f : d.findings) {
    out += "    " + std::to_string(++n) + ". " + f.what;
    if (!f.where.empty()) out += ", in " + f.where;
    out += "\n       fix: " + f.fix + "\n";
    for (const std::string& s : {saving(d, f), replayed(f)})
      if (!s.empty()) out += "       " + s + "\n";
  }
  for (const auto& c : d.caveats) out += "    caveat: " + c + "\n";
  return out;
}

void write_diagnosis_json(JsonOut& o, const Diagnosis& d) {
  o.key("diagnosis").begin_object();
  o.key("gpu").value(d.gpu).key("headline").value(verdict_line(d));
  o.key("verdict").value(d.gpu ? to_string(d.verdict) : "");
  o.key("verdict_share").value(d.steady.share(d.verdict));
  o.key("runner_up").value(d.gpu ? to_string(d.runner_up) : "");
  o.key("runner_up_share").value(d.steady.share(d.runner_up));
  o.key("regime").value(d.regime).key("launch_bound").value(d.launch_bound);
  o.key("windows").value(static_cast<uint64_t>(d.windows));
  o.key("cold_windows").value(static_cast<uint64_t>(d.cold_windows));
  o.key("whole_trace").value(d.whole_trace);
  o.key("step_us").value(us(d.steady_step_ns));
  o.key("launch_calls_us").value(us(d.launch_call_ns));
  o.key("classes").begin_array();
  for (size_t i = 0; i < kBounds; ++i)
    o.begin_object()
        .key("class")
        .value(to_string(static_cast<Bound>(i)))
        .key("us")
        .value(us(d.steady.ns[i]))
        .key("share")
        .value(d.steady.share(static_cast<Bound>(i)))
        .end_object();
  o.end_array();
  o.key("cold_us").value(us(d.cold_ns)).key("cold_profile").value(d.cold_profile);
  o.key("cold_items").begin_array();
  for (const auto& h : d.cold_items) {
    o.begin_object().key("name").value(h.name).key("level").value(h.level);
    o.key("us").value(us(h.ns)).end_object();
  }
  o.end_array();
  o.key("findings").begin_array();
  for (const auto& f : d.findings) {
    o.begin_object().key("what").value(f.what).key("where").value(f.where);
    o.key("fix").value(f.fix).key("saving_us").value(us(f.saving_ns));
    o.key("assumption").value(f.assumption).key("what_if").value(f.what_if);
    o.key("replayed_saving_us");
    if (f.replayed_ns >= 0)
      o.value(static_cast<double>(f.replayed_ns) / 1000.0);
    else
      o.null();
    o.end_object();
  }
  o.end_array();
  o.key("caveats").begin_array();
  for (const auto& c : d.caveats) o.value(c);
  o.end_array().end_object();
}

std::string diagnosis_html(const Diagnosis& d, std::string (*esc)(const std::string&)) {
  std::string out = "<p class=\"verdict\"><b>" + esc(verdict_line(d)) + "</b>";
  if (d.gpu) out += "<br><span class=\"muted\">from " + esc(scope(d)) + "</span>";
  out += "</p>\n";
  if (shows_warm_up(d))
    out +=
        "<p>Warm-up: " + esc(ms(d.cold_ns)) + " of cold-start work, left out of the verdict.</p>\n";
  if (!d.findings.empty()) {
    out += "<ol class=\"advice\">";
    for (const auto& f : d.findings)
      out += "<li>" + esc(f.what) + (f.where.empty() ? "" : ", in " + esc(f.where)) +
             "<br><span class=\"fix\">fix: " + esc(f.fix) + "</span>" +
             (f.saving_ns ? "<br>" + esc(saving(d, f)) : "") +
             (f.replayed_ns >= 0 ? "<br>" + esc(replayed(f)) : "") + "</li>";
    out += "</ol>\n";
  }
  for (const auto& c : d.caveats) out += "<p class=\"muted\">Caveat: " + esc(c) + "</p>\n";
  return out;
}

}  // namespace trace
