#include "trace/export/html_page.h"

#include <algorithm>
#include <cstdio>

#include "trace/export/diagnosis_out.h"
#include "trace/export/replay_text.h"
#include "trace/model/units.h"

namespace trace {

namespace {

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double v, const char* fmt = "%.1f") {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0; }
td, th { border: 1px solid #ddd; padding: 3px 8px; vertical-align: top; }
td code { overflow-wrap: anywhere; }
th { background: #f4f4f4; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
ol.advice li { margin-bottom: 10px; } .fix { color: #075; } .muted { color: #777; }
code { background: #f4f4f4; padding: 0 3px; } svg text { font: 11px system-ui, sans-serif; }
.legend span { display: inline-block; margin-right: 14px; } .sw { width: 10px; height: 10px; display: inline-block; margin-right: 4px; }
)";

struct Part {
  const char* name;
  const char* color;
};
constexpr Part kHost[] = {{"launch calls", "#4a7fd4"},
                          {"blocked in syncs", "#d44a4a"},
                          {"blocking copies", "#e89b3c"},
                          {"other host work", "#b8c4d6"}};
constexpr Part kGpu[] = {{"busy", "#2a9d5c"},
                         {"idle: waiting for the host", "#f2c14e"},
                         {"idle: between queued work", "#c9b3e6"},
                         {"idle: other", "#dddddd"}};

std::string legend(const Part* parts, size_t n, const char* what) {
  std::string out = "<div class=\"legend\"><b>" + std::string(what) + ":</b> ";
  for (size_t i = 0; i < n; ++i)
    out += std::string("<span><i class=\"sw\" style=\"background:") + parts[i].color + "\"></i>" +
           parts[i].name + "</span>";
  return out + "</div>";
}

// Two stacked bars per step (host above, GPU below), scaled to the longest step.
std::string step_bars(const TraceReport& rep) {
  std::vector<const StepFigures*> rows;
  for (const auto& s : rep.steps) rows.push_back(&s);
  if (rows.empty()) rows.push_back(&rep.total);
  const size_t shown = std::min<size_t>(rows.size(), 40);
  uint64_t longest = 1;
  for (size_t i = 0; i < shown; ++i) longest = std::max(longest, rows[i]->a.window_ns);
  const int label = 150, width = 800, bar = 12, gap = 10;
  const int height = static_cast<int>(shown) * (2 * bar + gap) + 20;
  std::string svg = "<svg width=\"" + std::to_string(label + width + 90) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"time per step\">";
  const auto segs = [&](int y, const uint64_t* v, const Part* parts, size_t n) {
    double x = label;
    for (size_t k = 0; k < n; ++k) {
      const double w = static_cast<double>(v[k]) / static_cast<double>(longest) * width;
      if (w <= 0) continue;
      svg += "<rect x=\"" + num(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + num(w) +
             "\" height=\"" + std::to_string(bar) + "\" fill=\"" + parts[k].color + "\"><title>" +
             parts[k].name + ": " + num(us(v[k])) + " us</title></rect>";
      x += w;
    }
  };
  for (size_t i = 0; i < shown; ++i) {
    const Attribution& a = rows[i]->a;
    const int y = 10 + static_cast<int>(i) * (2 * bar + gap);
    const int64_t rest = std::max<int64_t>(0, a.host_rest_ns());
    const uint64_t host[] = {a.launch_api_ns, a.sync_api_ns, a.blocking_copy_ns,
                             static_cast<uint64_t>(rest)};
    const uint64_t gpu[] = {a.gpu_busy_ns, a.idle_host_wait_ns, a.idle_kernel_wait_ns,
                            a.idle_other_ns};
    svg += "<text x=\"0\" y=\"" + std::to_string(y + bar) + "\">" +
           esc(rows[i]->name.substr(0, 22)) + "</text>";
    segs(y, host, kHost, 4);
    segs(y + bar, gpu, kGpu, 4);
    svg +=
        "<text x=\"" +
        num(label + static_cast<double>(a.window_ns) / static_cast<double>(longest) * width + 4) +
        "\" y=\"" + std::to_string(y + bar + 4) + "\">" + num(us(a.window_ns)) + " us</text>";
  }
  svg += "</svg>";
  std::string out = legend(kHost, 4, "host") + legend(kGpu, 4, "GPU") + svg;
  if (shown < rows.size())
    out += "<p class=\"muted\">The first " + std::to_string(shown) + " of " +
           std::to_string(rows.size()) + " steps.</p>";
  return out;
}

std::string sites_table(const TraceReport& rep) {
  const SiteReport& s = rep.sites;
  const RecordSet& r = rep.trace->records;
  const bool would = !s.gpu_work;
  const auto& rows = would ? s.would_sync_sites : s.sites;
  if (s.stacks == SiteReport::Stacks::None)
    return rep.syncs.calls.empty()
               ? "<p>Nothing blocked.</p>"
               : "<p>No stacks in this trace: record them with "
                 "<code>torch.profiler.profile(with_stack=True)</code> to see where each sync "
                 "was made.</p>";
  if (rows.empty()) return "<p>Nothing blocked.</p>";
  std::string out = would ? "<p>This trace has no GPU work, so nothing blocked; these ops would "
                            "block on a GPU.</p>"
                          : "";
  out += "<table><tr><th>#</th><th>calls</th><th>" + std::string(would ? "host us" : "blocked us") +
         "</th><th>GPU busy us</th><th>caller</th><th>callee</th><th>op</th></tr>";
  const auto name = [&](uint32_t n) {
    return n == kNoFrame ? std::string("<span class=\"muted\">none</span>")
                         : "<code>" + esc(r.frame_names[n]) + "</code>";
  };
  for (size_t i = 0; i < rows.size() && i < 30; ++i) {
    const SiteRow& x = rows[i];
    out += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td class=\"n\">" +
           std::to_string(x.calls) + "</td><td class=\"n\">" + num(us(x.blocked_ns)) +
           "</td><td class=\"n\">" + num(us(x.gpu_queued_ns)) + "</td><td>" + name(x.caller) +
           "</td><td>" + name(x.callee) + "</td><td><code>" + esc(x.op) + "</code>" +
           (x.order > 1 ? " <span class=\"muted\">(" + std::to_string(x.order) +
                              (x.order == 2   ? "nd"
                               : x.order == 3 ? "rd"
                                              : "th") +
                              " in its step)</span>"
            : x.order == 0 ? " <span class=\"muted\">(the others in its step)</span>"
                           : std::string()) +
           "</td></tr>";
  }
  return out + "</table>";
}

std::string advice_list(const TraceReport& rep) {
  if (!rep.advice_ran) return "<p class=\"muted\">Advice: " + esc(rep.advice_skipped) + "</p>";
  if (rep.advice.empty())
    return "<p>No advice: no fix the replay supports saves 1% of the run or more.</p>";
  std::string out = "<ol class=\"advice\">";
  for (const Finding& f : rep.advice) {
    out +=
        "<li><b>" + esc(to_string(f.kind)) + "</b>: saves <b>" + num(us(f.saving_ns)) +
        " us</b> of " + num(us(f.total_ns)) + " us (" +
        num(f.total_ns ? 100.0 * static_cast<double>(f.saving_ns) / static_cast<double>(f.total_ns)
                       : 0.0) +
        "%), replayed with <code>--what-if " + esc(f.what_if) + "</code>";
    if (!f.where.empty()) out += "<br>where: <code>" + esc(f.where) + "</code>";
    out += "<br>" + esc(f.what) + "<br><span class=\"fix\">fix: " + esc(f.fix) + "</span>";
    if (!f.assumed.empty())
      out += "<br><span class=\"muted\">assumed: " + esc(f.assumed) + "</span>";
    out += "</li>";
  }
  return out + "</ol>";
}

std::string curve_chart(const replay::LogEveryCurve& c) {
  if (c.points.empty()) return "";
  double xmax = 0, ymax = 0, ymin = 1e300;
  for (const auto& p : c.points) {
    xmax = std::max(xmax, p.kept_per_step);
    ymax = std::max(ymax, p.predicted_ns), ymin = std::min(ymin, p.predicted_ns);
  }
  if (xmax <= 0) xmax = 1;
  // The axis spans the points (labelled at both ends): a few microseconds of a millisecond
  // step would draw as a flat line on an axis from 0.
  const double span = std::max(ymax - ymin, 0.01 * ymax);
  ymin -= 0.1 * span, ymax += 0.1 * span;
  const int w = 520, h = 260, left = 70, bottom = 40;
  const auto X = [&](double x) { return left + x / xmax * (w - left - 20); };
  const auto Y = [&](double y) {
    return h - bottom - (y - ymin) / (ymax - ymin) * (h - bottom - 20);
  };
  std::string svg = "<svg width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) +
                    "\" role=\"img\" aria-label=\"step time against syncs kept\">";
  svg += "<line x1=\"" + num(X(0)) + "\" y1=\"" + num(Y(ymin)) + "\" x2=\"" + num(X(xmax)) +
         "\" y2=\"" + num(Y(ymin)) + "\" stroke=\"#888\"/><line x1=\"" + num(X(0)) + "\" y1=\"" +
         num(Y(ymin)) + "\" x2=\"" + num(X(0)) + "\" y2=\"" + num(Y(ymax)) + "\" stroke=\"#888\"/>";
  std::vector<const replay::LogEveryPoint*> pts;
  for (const auto& p : c.points) pts.push_back(&p);
  std::sort(pts.begin(), pts.end(),
            [](auto* a, auto* b) { return a->kept_per_step < b->kept_per_step; });
  std::string path;
  for (const auto* p : pts) {
    path += (path.empty() ? "M" : " L") + num(X(p->kept_per_step)) + "," + num(Y(p->predicted_ns));
    svg += "<circle cx=\"" + num(X(p->kept_per_step)) + "\" cy=\"" + num(Y(p->predicted_ns)) +
           "\" r=\"4\" fill=\"#4a7fd4\"><title>every " +
           (p->every ? std::to_string(p->every) : std::string("never")) + ": " +
           num(p->predicted_ns / 1000.0) + " us</title></circle>";
  }
  svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#4a7fd4\"/>";
  svg += "<text x=\"" + num(X(xmax / 2) - 60) + "\" y=\"" + std::to_string(h - 8) +
         "\">syncs kept per step</text>";
  svg += "<text x=\"4\" y=\"14\">predicted step, us</text>";
  svg += "<text x=\"4\" y=\"" + num(Y(ymax) + 4) + "\">" + num(ymax / 1000.0, "%.4g") + "</text>";
  svg += "<text x=\"4\" y=\"" + num(Y(ymin) + 4) + "\">" + num(ymin / 1000.0, "%.4g") + "</text>";
  svg += "<text x=\"" + num(X(xmax) - 20) + "\" y=\"" + num(Y(ymin) + 16) + "\">" +
         num(xmax, "%.2g") + "</text>";
  svg += "</svg>";
  return "<p><code>--what-if " + esc(c.text) + "</code>: " + esc(log_every_why(c)) + "</p>" + svg;
}

}  // namespace

std::string html_curve_what_if(const TraceReport& rep) {
  if (rep.syncs.calls.empty() || !rep.sites.gpu_work) return "";
  if (rep.sites.stacks != SiteReport::Stacks::None && !rep.sites.sites.empty())
    return "log-every=1,2,5,10,never:site=1";
  return "log-every=1,2,5,10,never";
}

std::string html_page(const std::vector<HtmlTrace>& traces) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Where the time "
      "went: ./attribute</title><style>" +
      std::string(kStyle) + "</style></head><body>\n<h1>Where the time went</h1>\n";
  out +=
      "<p class=\"muted\">Written by <code>./attribute --html</code>. Every saving below is "
      "the trace replayed with the change (docs/what-if.md).</p>\n";
  for (const HtmlTrace& t : traces) {
    const TraceReport& rep = *t.report;
    const ImportedTrace& it = *rep.trace;
    out += "<h2>" + esc(it.file) + "</h2>\n<p>rank " + std::to_string(it.rank) + ", " +
           std::to_string(it.events) + " events; " + std::to_string(rep.steps.size()) +
           " steps; whole trace " + num(us(rep.total.wall_ns)) + " us, launch queue: <b>" +
           to_string(rep.total.queue.regime) + "</b>; " + std::to_string(rep.syncs.calls.size()) +
           " blocking calls held the host " + num(us(rep.syncs.blocked_ns)) + " us.</p>\n";
    out += "<h3>Diagnosis</h3>\n" + diagnosis_html(rep.diagnosis, esc) + "\n";
    out += "<h3>Advice</h3>\n" + advice_list(rep) + "\n";
    out += "<h3>Where each step's time went</h3>\n" + step_bars(rep) + "\n";
    out += "<h3>Blocking calls by call site</h3>\n" + sites_table(rep) + "\n";
    if (t.curve)
      out += "<h3>Step time against the syncs kept</h3>\n" + curve_chart(*t.curve) + "\n";
  }
  return out + "</body></html>\n";
}

}  // namespace trace
