// ./attribute TRACE...: where the time went in a PyTorch profiler (Kineto) trace, an Nsight
// Systems export (import/trace_file.h tells them apart by content), or one of bench's own
// --trace_dir files, with bench's traced-pass definitions (attribution.h) per
// step and over the whole trace, and every blocking sync with the op that caused it
// (sync_causes.h). --hta: Holistic Trace Analysis 0.5.0's definitions instead
// (hta_breakdown.h), to compare with its figures. --replay / --what-if: replay the trace and
// predict its steps under changes (analyze/replay/what_if.h). Exit 2 on bad input or flags,
// with nothing written.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/analyze/advice.h"
#include "trace/analyze/hta_breakdown.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"
#include "trace/analyze/step_windows.h"
#include "trace/export/chrome_trace.h"
#include "trace/export/hta_out.h"
#include "trace/export/html_page.h"
#include "trace/export/replay_json.h"
#include "trace/export/replay_text.h"
#include "trace/export/report_json.h"
#include "trace/export/report_text.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace/import/trace_file.h"

namespace {

const char* kUsage =
    "usage: ./attribute [--json FILE] [--step-range NAME | --step-starts NAME [--step-every N]]\n"
    "                   [--hta [--hta-no-rounding] "
    "[--hta-max-queue N] | --replay | "
    "--what-if SPEC...]\n"
    "                   [--time] [--quiet] TRACE...\n"
    "  TRACE: a Kineto / Chrome trace JSON file (plain or gzip), or a folder of per-rank files;\n"
    "         or an Nsight Systems export (.sqlite, plain or gzip), or a .nsys-rep / .qdstrm\n"
    "         when an nsys is found ($IRIS_NSYS, else PATH)\n"
    "  --step-range NAME   the host ranges named NAME are the steps (NVTX ranges: with or\n"
    "                      without their domain, \"iris:epoch\" or \"epoch\"; torch.compile's\n"
    "                      \"Torch-Compiled Region\" without its \": 0/1\")\n"
    "  --step-starts NAME  a step runs from one start of a host range NAME to the next (a\n"
    "                      program profiled without steps: each call of a compiled model)\n"
    "  --step-every N      with --step-starts: every N-th start begins a step (default 1)\n"
    "  --json FILE         every figure as JSON (units in the key names), written atomically\n"
    "  --html FILE         one self-contained page: the advice, each step's time, the call\n"
    "                      sites and the replayed curve of step time against the syncs kept\n"
    "  --hta               Holistic Trace Analysis 0.5.0's definitions (temporal breakdown,\n"
    "                      per-stream idle breakdown, kernel launch delay), per rank\n"
    "  --hta-no-rounding   as HTA with HTA_DISABLE_NS_ROUNDING=1 (also read from the environment)\n"
    "  --hta-max-queue N   HTA's time blocked on a full queue at N entries (default 1024)\n"
    "  --replay            replay the trace with every recorded duration: predicted vs measured\n"
    "                      per step (docs/what-if.md)\n"
    "  --what-if SPEC      replay it changed (repeatable; implies --replay):\n"
    "                        no-syncs[:op=NAME|:api=NAME]   remove the blocking syncs\n"
    "                        log-every=N,...,never[:op=NAME|:api=NAME]  keep every N-th\n"
    "                        scale-kernels=F[:name=PART]    kernels take F times as long\n"
    "                        scale-launches=F               launch calls take F times as long\n"
    "                        graph-steps[:launch-us=US][:node-us=US]  each step's launches\n"
    "                             captured in a CUDA graph: their host work one graph launch\n"
    "                        graph=REGION[:launch-us=US][:node-us=US]  each host range REGION\n"
    "                             (\"Torch-Compiled Region\") captured so\n"
    "                        pin-copies[:gbps=N]            pageable copies pinned and async\n"
    "                        stream-syncs                   device syncs wait for one stream\n"
    "  --advice / --no-advice  the findings that matter most, each with its fix and replayed\n"
    "                      saving (default: on for traces under 100 MB, which replay in\n"
    "                      seconds; a replay costs about 1-2x the read)\n"
    "  --time              print import and attribution time, MB/s of JSON and the gzip\n"
    "                      decoder (ISA-L or zlib) on stderr\n"
    "  --quiet             no table on stdout\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "attribute: %s\n%s", what.c_str(), kUsage);
  return 2;
}

// --json's and --html's file. A regular file (or a new one) is written atomically (temp + rename);
// anything else that exists, such as /dev/null or a pipe, is written in place: renaming over it
// would replace it.
void write_json(const std::string& path, const std::string& text) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path);
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) throw std::runtime_error("failed writing " + path);
    return;
  }
  trace::write_file_atomically(path, text);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path, html_path, step_range, step_starts;
  uint32_t step_every = 0;  // --step-every; 0: not given
  bool hta = false, quiet = false, timing = false;
  trace::AdviceMode advice = trace::AdviceMode::BySize;
  bool rounding = !(std::getenv("HTA_DISABLE_NS_ROUNDING") &&
                    std::strcmp(std::getenv("HTA_DISABLE_NS_ROUNDING"), "1") == 0);
  bool replay = false;
  int64_t max_queue = 1024;  // --hta-max-queue: HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
  std::vector<trace::replay::WhatIf> what_ifs;
  std::vector<std::string> inputs;
  const auto what_if = [&](const std::string& spec) {
    try {
      what_ifs.push_back(trace::replay::parse_what_if(spec));
      replay = true;
      return true;
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
      return false;
    }
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--json") {
      if (++i >= argc) return usage_error("--json needs a file name");
      json_path = argv[i];
    } else if (a.rfind("--json=", 0) == 0) {
      json_path = a.substr(7);
      if (json_path.empty()) return usage_error("--json needs a file name");
    } else if (a == "--html") {
      if (++i >= argc || !*argv[i]) return usage_error("--html needs a file name");
      html_path = argv[i];
    } else if (a == "--step-range") {
      if (++i >= argc || !*argv[i]) return usage_error("--step-range needs a range name");
      step_range = argv[i];
    } else if (a == "--step-starts") {
      if (++i >= argc || !*argv[i]) return usage_error("--step-starts needs a range name");
      step_starts = argv[i];
    } else if (a == "--step-every") {
      if (++i >= argc) return usage_error("--step-every needs a number");
      char* end = nullptr;
      const long long v = std::strtoll(argv[i], &end, 10);
      if (!*argv[i] || *end || v < 1 || v > 1000000)
        return usage_error(
            std::string("--step-every: expected a whole number from 1 to 1e6, got '") + argv[i] +
            "'");
      step_every = static_cast<uint32_t>(v);
    } else if (a == "--hta") {
      hta = true;
    } else if (a == "--hta-no-rounding") {
      hta = true, rounding = false;
    } else if (a == "--hta-max-queue") {
      if (++i >= argc) return usage_error("--hta-max-queue needs a number");
      char* end = nullptr;
      const long long v = std::strtoll(argv[i], &end, 10);
      if (!*argv[i] || *end || v < 1)
        return usage_error(std::string("--hta-max-queue: expected a whole number >= 1, got '") +
                           argv[i] + "'");
      hta = true, max_queue = v;
    } else if (a == "--replay") {
      replay = true;
    } else if (a == "--what-if") {
      if (++i >= argc) return usage_error("--what-if needs a SPEC");
      if (!what_if(argv[i])) return 2;
    } else if (a.rfind("--what-if=", 0) == 0) {
      if (!what_if(a.substr(10))) return 2;
    } else if (a == "--advice") {
      advice = trace::AdviceMode::On;
    } else if (a == "--no-advice") {
      advice = trace::AdviceMode::Off;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--time") {
      timing = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown flag " + a);
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) return usage_error("no trace given");
  if (!step_range.empty() && !step_starts.empty())
    return usage_error("--step-range and --step-starts both say what a step is: pick one");
  if (step_every && step_starts.empty()) return usage_error("--step-every goes with --step-starts");
  if (hta && replay)
    return usage_error("--hta and --replay/--what-if are separate reports: pick one");
  if (!html_path.empty() && (hta || replay))
    return usage_error("--html is the attribution's page: not with --hta, --replay or --what-if");

  try {
    const auto t0 = std::chrono::steady_clock::now();
    const auto files = trace::expand_trace_paths(inputs);
    trace::ImportOptions options;
    options.list_events = hta;
    // HTA's rows of an export without a listing tell computation kernels by name, and a
    // what-if may pick kernels by name; the attribution's per-kernel table needs each distinct
    // name only once.
    options.kernel_names = hta;
    options.kernel_name_ids = !hta && !replay;
    for (const auto& w : what_ifs)
      if (w.kind == trace::replay::WhatIf::Kind::ScaleKernels && !w.pattern.empty())
        options.kernel_names = true;
    std::vector<trace::ImportedTrace> traces;
    uint64_t bytes = 0;
    std::string inflaters;  // for --time: which gzip decoder ran, if any
    for (const auto& f : files) {
      traces.push_back(trace::import_file(f, options));
      bytes += traces.back().bytes;
      if (!step_range.empty() && trace::use_step_ranges(&traces.back(), step_range) == 0)
        throw trace::InputError(f + ": no host range named " + step_range + " (--step-range)");
      if (!step_starts.empty() &&
          trace::use_step_starts(&traces.back(), step_starts, step_every ? step_every : 1) == 0)
        throw trace::InputError(f + ": no host range named " + step_starts + " (--step-starts)");
      if (timing) {  // which gzip decoder read it (the source only opens and reads the header)
        const auto probe = trace::open_byte_source(f);
        if (probe->gzip() && inflaters.find(probe->inflater()) == std::string::npos)
          inflaters += std::string(inflaters.empty() ? "" : ", ") + probe->inflater();
      }
    }
    const double import_s = seconds_since(t0);

    trace::JsonOut out;
    std::string html;  // --html's page
    // The version (src/trace/export/attribute_json_version.txt, via CMake) changes whenever a
    // reader of this JSON must read it differently.
    out.begin_object()
        .key("tool")
        .value("attribute")
        .key("version")
        .value(IRIS_ATTRIBUTE_JSON_VERSION);
    if (hta) {
      std::vector<const trace::ImportedTrace*> ptrs;
      for (const auto& t : traces) ptrs.push_back(&t);
      trace::HtaOptions hopt;
      hopt.ns_rounding = rounding;
      hopt.max_queue_length = max_queue;
      const auto ranks = trace::hta_breakdown(ptrs, hopt);
      if (!quiet) std::fputs(trace::hta_table(ranks, rounding).c_str(), stdout);
      out.key("hta").begin_object().key("ns_rounding").value(rounding).key("ranks");
      trace::write_hta_json(out, ranks);
      out.end_object();
    } else if (replay) {
      out.key("what_if").begin_array();
      for (const auto& w : what_ifs) out.value(w.text);
      out.end_array();
      out.key("replays").begin_array();
      for (auto& t : traces) {
        const auto report = trace::replay::replay_trace(t, what_ifs);
        if (!quiet) std::printf("%s\n", trace::replay_table(report).c_str());
        trace::write_replay_json(out, report);
      }
      out.end_array();
    } else {
      out.key("traces").begin_array();
      std::vector<trace::TraceReport> reports;  // kept for the page (--html)
      std::vector<trace::replay::ReplayReport> curves;
      reports.reserve(traces.size());
      curves.reserve(traces.size());
      for (auto& t : traces) {
        reports.push_back(trace::build_report(t));
        auto& report = reports.back();
        trace::add_advice(&report, advice);
        if (!quiet) std::printf("%s\n", trace::report_table(report).c_str());
        trace::write_report_json(out, report);
      }
      out.end_array();
      if (!html_path.empty()) {
        std::vector<trace::HtmlTrace> page;
        for (const auto& report : reports) {
          trace::HtmlTrace h;
          h.report = &report;
          const std::string spec = trace::html_curve_what_if(report);
          if (!spec.empty()) {
            curves.push_back(
                trace::replay::replay_trace(*report.trace, {trace::replay::parse_what_if(spec)}));
            if (!curves.back().curves.empty()) h.curve = &curves.back().curves.front();
          }
          page.push_back(h);
        }
        html = trace::html_page(page);
      }
    }
    out.end_object();
    const double total_s = seconds_since(t0);
    if (timing)
      std::fprintf(stderr,
                   "attribute: %.1f MB of JSON (%s); import %.3f s (%.0f MB/s), import + %s %.3f s "
                   "(%.0f MB/s)\n",
                   static_cast<double>(bytes) / 1e6,
                   inflaters.empty() ? "plain" : ("gzip, inflated by " + inflaters).c_str(),
                   import_s, static_cast<double>(bytes) / 1e6 / import_s,
                   hta      ? "HTA figures"
                   : replay ? "replay"
                            : "attribution",
                   total_s, static_cast<double>(bytes) / 1e6 / total_s);
    if (!json_path.empty()) write_json(json_path, out.str() + "\n");
    if (!html_path.empty()) write_json(html_path, html);
  } catch (const std::exception& e) {  // bad input (trace::InputError) or a failed write
    std::fprintf(stderr, "attribute: %s\n", e.what());
    return 2;
  }
  return 0;
}
