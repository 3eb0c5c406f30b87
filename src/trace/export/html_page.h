// ./attribute --html FILE: one self-contained page a person reads (no network, no script): per
// trace the advice, where each step's time went (host and GPU bars, drawn as inline SVG), the
// blocking calls by call site, and the replayed curve of step time against the syncs kept.
#pragma once

#include <string>
#include <vector>

#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"

namespace trace {

struct HtmlTrace {
  const TraceReport* report = nullptr;
  // The log-every curve of the most blocked site (or of every sync), when one was replayed.
  const replay::LogEveryCurve* curve = nullptr;
};

std::string html_page(const std::vector<HtmlTrace>& traces);

// The --what-if that html_page's curve replays for a report: the most blocked site's, or every
// blocking sync's without stacks; "" when nothing blocked.
std::string html_curve_what_if(const TraceReport& report);

}  // namespace trace
