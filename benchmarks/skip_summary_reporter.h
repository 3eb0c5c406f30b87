// The console display with skipped rows summarised: instead of one "ERROR OCCURRED" line per
// CUDA row on a machine without a GPU (about 195 with --devices=cpu), one line per family and
// reason at the end: "Memcpy: 144 rows skipped: no CUDA driver on this machine (no GPU)".
//
// Only rows whose message starts with "skipped: " (bench's way of saying "did not run, and
// why": Debian's Google Benchmark 1.7.1 has no SkipWithMessage) are folded; a real error is
// printed as Google Benchmark prints it. Only the console format is changed: with
// --benchmark_format=json/csv the display shows every row, and the --benchmark_out file
// always keeps every row (it has its own reporter).
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace bench {

class SkipSummaryReporter : public benchmark::BenchmarkReporter {
 public:
  SkipSummaryReporter() : inner_(benchmark::CreateDefaultDisplayReporter()) {
    fold_ = dynamic_cast<benchmark::ConsoleReporter*>(inner_.get()) != nullptr;
  }

  bool ReportContext(const Context& context) override {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    if (!fold_) return inner_->ReportRuns(runs);
    std::vector<Run> shown;
    for (const auto& run : runs) {
      if (run.error_occurred && run.error_message.rfind("skipped: ", 0) == 0) {
        const std::string name = run.benchmark_name();
        ++skipped_[{name.substr(0, name.find('/')), run.error_message}];
      } else {
        shown.push_back(run);
      }
    }
    if (!shown.empty()) inner_->ReportRuns(shown);
  }

  void Finalize() override {
    inner_->Finalize();
    if (skipped_.empty()) return;
    auto& out = GetOutputStream();
    out << "Rows that did not run (every one is in the --benchmark_out JSON with its message):\n";
    for (const auto& [key, count] : skipped_)
      out << "  " << key.first << ": " << count << (count == 1 ? " row " : " rows ") << key.second
          << "\n";
    out.flush();
  }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  bool fold_ = false;
  std::map<std::pair<std::string, std::string>, int> skipped_;  // (family, message) -> rows
};

}  // namespace bench
