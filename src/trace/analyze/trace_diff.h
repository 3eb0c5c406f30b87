// Two traces of one program side by side (./attribute --diff A B): their steps matched where
// both have steps, and per section (the steps' time, launches and syncs, the syncs by call site,
// copies by kind, kernels by name, GPU idle by cause, the diagnosis' classes) each figure of A
// beside B's. With what-ifs, each prediction replayed from A beside B's measurement. The shape
// of HTA's and TraceLens's TraceDiff: a table per question, A | B | B-A | B/A.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"

namespace trace {

struct DiffRow {
  std::string item;    // the step, kernel, copy kind, call site, ... the row is about
  std::string figure;  // what is compared, with its unit ("wall_us", "count")
  double a = 0, b = 0;
  double diff() const { return b - a; }
  std::optional<double> ratio() const {  // B / A; none when A is 0
    return a != 0 ? std::optional<double>(b / a) : std::nullopt;
  }
};

struct DiffSection {
  std::string name;     // "steps", "summary", "syncs by call site", ...
  std::string meaning;  // what its rows are over
  std::vector<DiffRow> rows;
};

// One window of a what-if replayed from A, beside what B measured there.
struct DiffPrediction {
  std::string scenario, window;  // "replay" or the what-if; the matched step, or "total"
  double a_measured_us = 0, predicted_us = 0, b_measured_us = 0;
  std::optional<double> error() const {  // (predicted - B) / B
    return b_measured_us != 0
               ? std::optional<double>((predicted_us - b_measured_us) / b_measured_us)
               : std::nullopt;
  }
};

struct TraceDiff {
  // How the steps were matched: "by name", "by position", or "whole trace" (one or both
  // without steps: the whole traces are compared).
  std::string match;
  size_t a_steps = 0, b_steps = 0;
  std::vector<std::pair<size_t, size_t>> pairs;  // matched steps: indices into A's, B's steps
  double words_in_common = 0;                    // program_words.h
  std::string a_verdict, b_verdict;              // the diagnosis' headline of each
  std::vector<DiffSection> sections;
  std::vector<DiffPrediction> predictions;
  std::vector<std::string> notes;
};

TraceDiff diff_reports(const TraceReport& a, const TraceReport& b);

// Each window of each scenario of A's replay beside B's matched measurement.
void add_predictions(const replay::ReplayReport& a_replay, const TraceReport& b, TraceDiff* d);

}  // namespace trace
