#include <algorithm>
#include <cmath>
#include <cstdio>

#include "trace/export/diff_out.h"

namespace trace {
namespace {

constexpr size_t kItemWidth = 56;   // longer names (kernels' templates) are cut to this
constexpr size_t kItemsShown = 15;  // per section in the text; the JSON has every one

// Cut in the middle: kernels of one family differ at their ends (..._kernel, ..._split_k_kernel).
std::string cut(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  const size_t head = (width - 3) / 2;
  return s.substr(0, head) + "..." + s.substr(s.size() - (width - 3 - head));
}

// Counts as whole numbers, shares to three places, times to a tenth.
std::string number(double v, const std::string& figure) {
  char buf[48];
  if (figure == "share" || figure == "error")
    std::snprintf(buf, sizeof buf, "%.3f", v);
  else if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string ratio(std::optional<double> r) {
  if (!r) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", *r);
  return buf;
}

std::string pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string line(const std::vector<std::string>& cells, size_t item_width) {
  std::string out = "  " + pad(cells[0], item_width, false) + "  " + pad(cells[1], 16, false);
  for (size_t i = 2; i < cells.size(); ++i) out += pad(cells[i], 13, true);
  return out + "\n";
}

std::string section_text(const DiffSection& s) {
  std::string out = s.name + ": " + s.meaning + "\n";
  if (s.rows.empty()) return out + "  (none in either trace)\n";
  size_t width = 4;
  for (const auto& r : s.rows) width = std::max(width, std::min(r.item.size(), kItemWidth));
  out += line({"item", "figure", "A", "B", "B-A", "B/A"}, width);
  size_t items = 0;
  std::string last;
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const DiffRow& r = s.rows[i];
    const bool first_of_item = i == 0 || r.item != s.rows[i - 1].item;
    if (first_of_item && ++items > kItemsShown) {
      size_t more = 0;
      for (size_t j = i; j < s.rows.size(); ++j)
        more += j == i || s.rows[j].item != s.rows[j - 1].item;
      out += "  (" + std::to_string(more) + " more, smaller differences: in --json)\n";
      break;
    }
    out += line({first_of_item ? cut(r.item, kItemWidth) : "", r.figure, number(r.a, r.figure),
                 number(r.b, r.figure), number(r.diff(), r.figure), ratio(r.ratio())},
                width);
  }
  return out;
}

}  // namespace

std::string diff_text(const DiffInputs& in, const TraceDiff& d) {
  std::string out = "diff: A = " + in.a + "\n      B = " + in.b + "\n";
  out +=
      "steps: " + (d.match == "whole trace"
                       ? std::string("none matched, the whole traces compared")
                       : std::to_string(d.pairs.size()) + " matched " + d.match + " (A has " +
                             std::to_string(d.a_steps) + ", B " + std::to_string(d.b_steps) + ")");
  char share[64];
  std::snprintf(share, sizeof share, "%.0f %%", 100 * d.words_in_common);
  out += "; time in name words both have (kernels; ops without): " + std::string(share) + "\n";
  out += "A: " + d.a_verdict + "\nB: " + d.b_verdict + "\n";
  for (const auto& n : d.notes) out += "note: " + n + "\n";
  for (const auto& s : d.sections) out += "\n" + section_text(s);
  if (d.predictions.empty()) return out;
  out += "\nwhat-if on A beside B (each replayed from A; error = (predicted - B) / B)\n";
  size_t width = 8;
  for (const auto& p : d.predictions)
    width = std::max(width, std::min(p.scenario.size(), kItemWidth));
  out += "  " + pad("scenario", width, false) + "  " + pad("window", 24, false) +
         pad("A measured", 13, true) + pad("predicted", 13, true) + pad("B measured", 13, true) +
         pad("error", 10, true) + "\n";
  for (size_t i = 0; i < d.predictions.size(); ++i) {
    const DiffPrediction& p = d.predictions[i];
    const bool first = i == 0 || p.scenario != d.predictions[i - 1].scenario;
    const auto e = p.error();
    char err[32] = "-";
    if (e) std::snprintf(err, sizeof err, "%+.1f %%", 100 * *e);
    out += "  " + pad(first ? cut(p.scenario, kItemWidth) : "", width, false) + "  " +
           pad(cut(p.window, 24), 24, false) + pad(number(p.a_measured_us, "us"), 13, true) +
           pad(number(p.predicted_us, "us"), 13, true) +
           pad(number(p.b_measured_us, "us"), 13, true) + pad(err, 10, true) + "\n";
  }
  return out;
}

}  // namespace trace
