#include "trace/export/advice_out.h"

#include <cstdio>

namespace trace {

std::string advice_text(const TraceReport& rep) {
  if (!rep.advice_ran)
    return rep.advice_skipped.empty() ? "" : "\n  advice: " + rep.advice_skipped + "\n";
  if (rep.advice.empty())
    return rep.sites.gpu_work
               ? "\n  advice: none (no fix the replay supports saves 1% of the run or more)\n"
               : "\n  advice: none (no GPU work in this trace: nothing to wait for)\n";
  std::string out =
      "\n  advice (each saving replayed: ./attribute --what-if SPEC shows it, step by step):\n";
  int n = 0;
  for (const Finding& f : rep.advice) {
    char head[256];
    std::snprintf(head, sizeof head, "    %d. %s: saves %s of %s (%.1f%%)", ++n, to_string(f.kind),
                  ms_or_us(f.saving_ns).c_str(), ms_or_us(f.total_ns).c_str(),
                  f.total_ns
                      ? 100.0 * static_cast<double>(f.saving_ns) / static_cast<double>(f.total_ns)
                      : 0.0);
    out += head;
    out += " [--what-if " + f.what_if + "]\n";
    if (!f.where.empty()) out += "       where: " + f.where + "\n";
    out += "       what:  " + f.what + "\n";
    out += "       fix:   " + f.fix + "\n";
    if (!f.assumed.empty()) out += "       assumed: " + f.assumed + "\n";
  }
  return out;
}

void write_advice_json(JsonOut& o, const TraceReport& rep) {
  o.key("advice");
  if (!rep.advice_ran) {
    o.begin_object().key("skipped").value(rep.advice_skipped).end_object();
    return;
  }
  o.begin_array();
  for (const Finding& f : rep.advice) {
    o.begin_object();
    o.key("kind").value(to_string(f.kind));
    o.key("where").value(f.where).key("what").value(f.what).key("fix").value(f.fix);
    o.key("what_if").value(f.what_if);
    o.key("saving_us").value(static_cast<double>(f.saving_ns) / 1000.0);
    o.key("total_us").value(static_cast<double>(f.total_ns) / 1000.0);
    o.key("assumed").value(f.assumed);
    o.end_object();
  }
  o.end_array();
}

}  // namespace trace
