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
  double words_in_common = 0;                    // words_in_common()
  std::string a_verdict, b_verdict;              // the diagnosis' headline of each
  std::vector<DiffSection> sections;
  std::vector<DiffPrediction> predictions;
  std::vector<std::string> notes;
};

// How alike the two traces' kernels are: each kernel name read as its words (letter runs, split
// at capitals, lower case, 3 letters or more, C++ and library words left out), each kernel's time
// spread over its words; the share of a trace's kernel time in words the other trace's kernels
// also have, the smaller of the two (op names, when either has no kernels). Words, not names: a
// compiler renames the kernels of one program (eager's `GeluCUDAKernelImpl` is Inductor's
// `triton_poi_fused_addmm_gelu_1`), but what they compute keeps its words.
double words_in_common(const TraceReport& a, const TraceReport& b);

// Below this, A and B are taken for two different programs (words_in_common). Evidence, every
// pair of the shared traces: the H100 toy block's four runs (eager, three torch.compile modes)
// 0.80-0.98 against each other; traces of different programs 0.48 at most. Its limit: a program
// of GEMMs alone (the A100 side-stream pair) is like any GEMM-heavy one by name (0.84-0.87).
inline constexpr double kMinWordsInCommon = 0.6;

TraceDiff diff_reports(const TraceReport& a, const TraceReport& b);

// Each window of each scenario of A's replay beside B's matched measurement.
void add_predictions(const replay::ReplayReport& a_replay, const TraceReport& b, TraceDiff* d);

}  // namespace trace
