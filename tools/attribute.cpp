// ./attribute TRACE... (or --diff A B): where the time went in a PyTorch profiler (Kineto) trace,
// an Nsight Systems export or one of bench's own --trace_dir files (run/run.h does the work: the
// Python package calls the same run). This file is the flags and the printing. Exit 2 on bad input
// or flags, with nothing written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attribute_usage.h"
#include "capture/bench_names.h"
#include "trace/export/write_file.h"
#include "trace/import/byte_source.h"  // escape_non_utf8
#include "trace/run/run.h"

namespace {

std::string indented(const std::string& lines, const std::string& by) {
  std::string out;
  for (size_t at = 0, nl; at < lines.size(); at = nl + 1) {
    nl = lines.find('\n', at);
    out += by + lines.substr(at, nl - at + 1);
  }
  return out;
}

// tools/attribute_usage.txt, with the what-if specs the replay parses where it says so.
const std::string kUsage = [] {
  std::string usage = kUsageText;  // attribute_usage.h, made by CMake from the .txt
  const std::string mark = "<what-if specs>\n";
  return usage.replace(usage.find(mark), mark.size(),
                       indented(trace::replay::kWhatIfSpecs, "                      "));
}();

int usage_error(const std::string& what) {
  std::fprintf(stderr, "attribute: %s\n%s", trace::escape_non_utf8(what).c_str(), kUsage.c_str());
  return 2;
}

struct Flags {
  trace::RunOptions run;
  std::string json_path, html_path, step_every, max_queue;
  std::vector<std::string> what_ifs;
  bool quiet = false, timing = false, help = false;
};

// A flag that takes a value: its words when it is missing or empty, and the numbers it accepts.
struct Valued {
  CLI::Option* option;
  const char* value;
  const char* range = nullptr;
  std::optional<int64_t>* number = nullptr;
};

// Parses argv into flags; returns -1 to go on, else the exit code (help: 0, bad flags: 2).
int parse(int argc, char** argv, Flags* f) {
  CLI::App app{"", "attribute"};
  app.set_help_flag();
  trace::RunOptions& o = f->run;
  const Valued valued[] = {
      {app.add_option("--json", f->json_path), "a file name"},
      {app.add_option("--html", f->html_path), "a file name"},
      {app.add_option("--step-range", o.step_range), "a range name"},
      {app.add_option("--step-starts", o.step_starts), "a range name"},
      {app.add_option("--step-every", f->step_every), "a number", trace::kStepEveryRange,
       &o.step_every},
      {app.add_option("--hta-max-queue", f->max_queue), "a number", trace::kMaxQueueRange,
       &o.hta_max_queue},
      {app.add_option("--what-if", f->what_ifs)->allow_extra_args(false), "a SPEC"}};
  app.add_flag("-h,--help", f->help);
  app.add_flag("--hta{0.6}", o.hta_version);  // --hta=0.5: that release's rules
  app.add_flag("--hta-no-rounding", o.hta_no_rounding);
  app.add_flag("--replay", o.replay);
  app.add_flag("--diff", o.diff);
  app.add_flag_function("--advice", [&](int64_t) { o.advice = trace::AdviceMode::On; });
  app.add_flag_function("--no-advice", [&](int64_t) { o.advice = trace::AdviceMode::Off; });
  app.add_flag("--quiet", f->quiet);
  app.add_flag("--time", f->timing);
  app.add_option("TRACE", o.inputs);
  for (int i = 1; i < argc; ++i)  // "--json=": CLI11 would take the next argument as its value
    for (const Valued& v : valued)
      if (argv[i] == v.option->get_name() + "=")
        return usage_error(v.option->get_name() + " needs " + v.value);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ArgumentMismatch& e) {  // a flag without its value: CLI11 names it first
    for (const Valued& v : valued)
      if (std::string(e.what()).rfind(v.option->get_name() + ":", 0) == 0)
        return usage_error(v.option->get_name() + " needs " + v.value);
    return usage_error(e.what());
  } catch (const CLI::ParseError& e) {  // CLI11's "not expected": name the first we do not know
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a.size() > 1 && a[0] == '-' && !app.get_option_no_throw(a.substr(0, a.find('='))))
        return usage_error("unknown flag " + a);
    }
    return usage_error(e.what());
  }
  if (f->help) return std::fputs(kUsage.c_str(), stdout), 0;
  for (const Valued& v : valued) {
    for (const auto& given : v.option->results())  // given, but empty (--json=)
      if (given.empty()) return usage_error(v.option->get_name() + " needs " + v.value);
    if (!v.number || v.option->results().empty()) continue;
    const std::string& text = v.option->results().back();
    char* end = nullptr;
    *v.number = std::strtoll(text.c_str(), &end, 10);
    if (*end)
      return usage_error(v.option->get_name() + ": expected " + v.range + ", got '" + text + "'");
  }
  for (const auto& spec : f->what_ifs) {
    try {
      o.what_ifs.push_back(trace::replay::parse_what_if(spec));
    } catch (const std::invalid_argument& e) {
      return usage_error(e.what());
    }
  }
  o.html = !f->html_path.empty();
  o.step_phase = bench::kStepPhase, o.phase_domain = bench::kPhaseDomain;  // bench's epochs
  const std::string wrong = trace::check_options(o);
  return wrong.empty() ? -1 : usage_error(wrong);
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (const int rc = parse(argc, argv, &f); rc >= 0) return rc;
  try {
    const trace::RunOutput out = trace::run(f.run);
    if (!f.quiet) std::fputs(out.text.c_str(), stdout);
    if (f.timing) std::fprintf(stderr, "attribute: %s\n", trace::timing_line(f.run, out).c_str());
    if (!f.json_path.empty()) trace::write_file_atomically(f.json_path, out.json);
    if (!f.html_path.empty()) trace::write_file_atomically(f.html_path, out.html);
  } catch (const std::exception& e) {  // bad input (trace::InputError) or a failed write
    std::fprintf(stderr, "attribute: %s\n", trace::escape_non_utf8(e.what()).c_str());
    return 2;
  }
  return 0;
}
