#include "bench_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <utility>

namespace bench {
namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& expected,
                         const std::string& text) {
  throw FlagError("--" + flag + ": expected " + expected + ", got '" + text + "'");
}

int64_t whole_number(const std::string& flag, const std::string& text, int64_t min_value,
                     int64_t max_value, const char* expected) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min_value || v > max_value)
    refuse(flag, expected, text);
  return v;
}

// A number in (0, 1e9]: a fraction, microseconds, seconds.
double positive_number(const std::string& flag, const std::string& text, const char* expected) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v > 0) || v > 1e9)
    refuse(flag, expected, text);
  return v;
}

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) items.push_back(item);
  if (items.empty() || (!text.empty() && text.back() == ','))
    refuse(flag, "a comma-separated list", text);
  return items;
}

std::string num(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string csv(const std::vector<int64_t>& values) {
  std::string out;
  for (const auto v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

// Declares bench's flags on a CLI11 app, each with its help line, the default --help shows (the
// options' value when declared) and how its text sets the options, in the flag's own words when
// it cannot (FlagError). Every flag with a value takes it after '=', as Google Benchmark's do.
class FlagDeclarer {
 public:
  explicit FlagDeclarer(CLI::App* app) : app_(app) {}

  void value(const char* name, const char* type, const std::string& shown, const std::string& help,
             std::function<void(const std::string&)> set) {
    app_->add_option_function<std::string>(std::string("--") + name, std::move(set), help)
        ->type_name(type)
        ->default_str(shown)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  void count(const char* name, int64_t* to, int64_t min_value, const char* expected,
             const std::string& help) {
    value(name, "N", std::to_string(*to), help, [=](const std::string& text) {
      *to = whole_number(name, text, min_value, INT64_MAX, expected);
    });
  }
  void counts(const char* name, std::vector<int64_t>* to, int64_t min_value, int64_t max_value,
              const char* expected, const std::string& help) {
    value(name, "LIST", csv(*to), help, [=](const std::string& text) {
      to->clear();
      for (const auto& item : split_list(name, text))
        to->push_back(whole_number(name, item, min_value, max_value, expected));
    });
  }
  void number(const char* name, const char* type, double* to, const char* expected,
              const std::string& help) {
    value(name, type, num(*to), help,
          [=](const std::string& text) { *to = positive_number(name, text, expected); });
  }
  void folder(const char* name, std::string* to, const std::string& shown, const char* expected,
              const std::string& help) {
    value(name, "DIR", shown, help, [=](const std::string& text) {
      if (text.empty()) throw FlagError(std::string("--") + name + ": expected " + expected);
      *to = text;
    });
  }
  void on_off(const char* name, bool* to, const std::string& help) {
    app_->add_flag(name, *to, help);
  }

 private:
  CLI::App* app_;
};

constexpr const char* kIntervals = "intervals >= 0 (0 = never, 1 = every epoch)";
constexpr const char* kBatches = "batch sizes >= 1";
constexpr const char* kSeconds = "a positive number of seconds";

// The training loop's flags: epochs, seed, devices and the sweeps.
void declare_loop_flags(FlagDeclarer& f, BenchOptions& o) {
  f.count("epochs", &o.epochs, 1, "a positive integer", "epochs per ItemSync run");
  f.count("sweep_epochs", &o.sweep_epochs, 1, "a positive integer", "epochs per BatchSweep run");
  f.count("ladder_epochs", &o.ladder_epochs, 100,
          "an integer >= 100 (the loss is kept every 100 epochs)", "epochs per Ladder run");
  f.count("rung_sweep_epochs", &o.rung_sweep_epochs, 1, "a positive integer",
          "RungSweep's epochs rule");
  f.count("warmup_epochs", &o.warmup_epochs, 0, "an integer >= 0",
          "untimed epochs before each run, on a separate model");
  f.value("seed", "N", std::to_string(o.seed), "torch seed for the initial weights",
          [&o](const std::string& text) {
            o.seed =
                static_cast<uint64_t>(whole_number("seed", text, 0, INT64_MAX, "an integer >= 0"));
          });
  f.value("devices", "LIST", "cpu,cuda",
          "cpu and/or cuda; cuda rows are skipped when no GPU is usable",
          [&o](const std::string& text) {
            o.devices = split_list("devices", text);
            for (const auto& d : o.devices)
              if (d != "cpu" && d != "cuda") refuse("devices", "cpu and/or cuda", d);
          });
  f.counts("intervals", &o.intervals, 0, INT64_MAX, kIntervals, "ItemSync intervals");
  f.counts("print100", &o.print100, 0, 1, "0 and/or 1", "ItemSync print100 values");
  f.counts("batches", &o.batches, 1, INT64_MAX, kBatches, "ItemSync batch sizes");
  f.counts("sweep_intervals", &o.sweep_intervals, 0, INT64_MAX, kIntervals, "BatchSweep intervals");
  f.counts("sweep_batches", &o.sweep_batches, 1, INT64_MAX, kBatches, "BatchSweep batch sizes");
  f.counts("rung_sweep_batches", &o.rung_sweep_batches, 1, INT64_MAX, kBatches,
           "RungSweep batch sizes");
}

// The Paired rows' configurations and stopping rule (paired.cpp).
void declare_paired_flags(FlagDeclarer& f, BenchOptions& o) {
  f.count("paired_epochs", &o.paired_epochs, 1, "a positive integer",
          "epochs per short run of the Paired rows");
  f.count("paired_batch_epochs", &o.paired_batch_epochs, 1, "a positive integer",
          "epochs per short run of Paired/batch");
  f.counts("paired_intervals", &o.paired_intervals, 0, INT64_MAX, "intervals >= 0 (0 = never)",
           "intervals compared with interval 1 in Paired/replay");
  f.count("held_out_interval", &o.held_out_interval, 1, "a positive integer",
          "the held-out interval (with the every-100 print) in Paired/held_out");
  f.counts("paired_batches", &o.paired_batches, 1, INT64_MAX, kBatches, "batches of Paired/batch");
  f.number("paired_rel_target", "F", &o.paired_rel_target, "a fraction > 0 (0.01 = 1 %)",
           "stop when every mean's 95 % interval is within F of it");
  f.number("paired_diff_us", "US", &o.paired_diff_us, "a number of microseconds > 0",
           "... and every difference's within US microseconds");
  f.number("paired_max_s", "S", &o.paired_max_s, kSeconds, "the cap per Paired row, seconds");
  f.count("paired_min_rounds", &o.paired_min_rounds, 2, "an integer >= 2",
          "rounds before the targets are checked");
}

// The run's own flags: its data, its log, the traced pass, the budget and --help.
void declare_run_flags(FlagDeclarer& f, BenchOptions& o) {
  f.folder("data_dir", &o.data_dir, "the repository's data/",
           "a folder holding iris_train.csv and iris_test.csv",
           "folder with iris_train.csv, iris_test.csv");
  f.on_off("--echo_log", &o.echo_log,
           "write the article's \"Epoch [k/N], Loss: x\" lines to stderr");
  f.count("trace_epochs", &o.trace_epochs, 0, "an integer >= 0 (0 = no traced pass)",
          "after the timed runs of each row, a separate traced pass of N\n"
          "epochs; its attribution (attr_*, phase_*) and overhead\n"
          "(traced_us_per_epoch, trace_overhead) join the row's counters");
  f.folder("trace_dir", &o.trace_dir, "", "a folder to write trace files into",
           "write DIR/<row>.trace.json (Chrome Trace Event format: open in\n"
           "ui.perfetto.dev or chrome://tracing) for each traced row");
  f.count("trace_file_epochs", &o.trace_file_epochs, 1, "a positive integer",
          "the last N epochs of the traced pass go in the file");
  f.value(
      "budget_s", "S", "none",
      "a time budget for the whole run: rows (and repetitions) that would\n"
      "start after S seconds are skipped with a message, so a run cut\n"
      "short still writes complete JSON; a row already running finishes",
      [&o](const std::string& text) { o.budget_s = positive_number("budget_s", text, kSeconds); });
  f.on_off("-h,--help", &o.help, "bench's flags, then Google Benchmark's");
}

void declare_flags(CLI::App& app, BenchOptions& o) {
  FlagDeclarer f(&app);
  declare_loop_flags(f, o);
  declare_paired_flags(f, o);
  declare_run_flags(f, o);
}

// bench's flags with one value each, as CLI11 sees them: it reads "--name=" as a bare "--name"
// and takes a bare one's value from the next argument. A bare flag is refused; an empty value
// goes to CLI11 as the next argument, so that the flag's own parse says what it expected.
std::vector<std::string> for_cli11(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const CLI::Option* opt = arg.rfind("--", 0) == 0 ? app.get_option_no_throw(name) : nullptr;
    if (opt && opt->get_items_expected_max() > 0) {
      if (eq == std::string::npos) throw FlagError(name + ": expected " + name + "=VALUE");
      if (eq + 1 == arg.size()) {
        args.push_back(name), args.push_back("");
        continue;
      }
    }
    args.push_back(arg);
  }
  return args;
}

}  // namespace

BenchOptions parse_bench_options(int* argc, char** argv) {
  BenchOptions o;
  CLI::App app;
  app.set_help_flag();  // bench's --help is a flag like the others; main() prints the usage
  app.allow_extras();   // Google Benchmark's flags, passed on in order
  declare_flags(app, o);
  std::vector<std::string> args = for_cli11(app, *argc, argv);
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed list
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {  // a switch of ours given a value it cannot read
    throw FlagError(std::string(e.what()) + " (a switch takes no value, or true or false)");
  }
  // argv keeps what CLI11 left, in order (each one of argv's strings), and --help: Google
  // Benchmark prints its own flags too.
  const std::vector<std::string> rest = app.remaining();
  int kept = 1;
  size_t next = 0;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (next < rest.size() && arg == rest[next])
      argv[kept++] = argv[i], ++next;
    else if (arg == "--help" || arg == "-h")
      argv[kept++] = argv[i];
  }
  if (!o.trace_dir.empty() && o.trace_epochs == 0)
    throw FlagError("--trace_dir: needs a traced pass; add --trace_epochs=N (N > 0)");
  if (o.trace_epochs > 0 && o.trace_file_epochs > o.trace_epochs)
    throw FlagError("--trace_file_epochs: expected at most --trace_epochs (" +
                    std::to_string(o.trace_epochs) + "), got " +
                    std::to_string(o.trace_file_epochs));
  *argc = kept;
  argv[kept] = nullptr;
  return o;
}

std::string bench_usage() {
  BenchOptions defaults;  // experiments/sweeps.toml's sweeps
  CLI::App app;
  app.set_help_flag();
  declare_flags(app, defaults);
  std::string flags;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->check_lname("help")) continue;
    std::string head = "  " + opt->get_name();
    if (opt->get_items_expected_max() > 0) head += "=" + opt->get_type_name();
    head.append(head.size() < 22 ? 22 - head.size() : 0, ' ');
    std::string help = opt->get_description();
    for (size_t at = help.find('\n'); at != std::string::npos; at = help.find('\n', at + 25))
      help.insert(at + 1, 24, ' ');
    const std::string shown = opt->get_default_str();
    flags += head + "  " + help + (shown.empty() ? "" : " [" + shown + "]") + "\n";
  }
  return R"(bench: the article's GPU-vs-CPU experiment on Iris, as Google Benchmark families.

Families (select with --benchmark_filter=REGEX):
  ItemSync/<device>/interval:I/print100:P/batch:B   the article's loop, --epochs epochs
      interval 0 = never record, 1 = append loss.item() every epoch (the article's first
      run), k>=2 = append + print every k epochs (the article's table, 2 .item() calls);
      print100 1 = the extra print of loss.item() every 100 epochs.
  BatchSweep/<device>/interval:I/batch:B            the same loop, --sweep_epochs epochs,
      batch 120 = Iris, larger = Iris-like synthetic rows (GPU vs CPU crossover).
  Ladder/<device>-<rung>                            the overhead-removal ladder, --ladder_epochs
      epochs, loss kept every 100: libtorch_eager, device_log, pinned_event, cuda_graph,
      fused_step_kernel, persistent_kernel (cuda), fused_cpu (cpu); checked against float64.
  RungSweep/<device>-<rung>/batch:N                 every rung against the batch, epochs =
      --rung_sweep_epochs x 10^4 / rows within [--rung_sweep_epochs, 20000].
  Dispatch/<device>-{add,backward,train_step}       host cost of LibTorch ops; ATen ops per step
  KernelLaunch/{host_launch,gpu_back_to_back,graph_node}   launch cost (CUDA)
  Sync/...  Memcpy/<dir>-<memory>-<mode>/bytes:N    sync and copy costs (CUDA)
  Paired/<device>-{item,replay,held_out,batch}      the fitted quantities from short runs of
      the configurations they compare, back to back in rounds, until every 95 % interval is
      within its target (--paired_*); per configuration and per pair: mean and interval

bench flags (defaults in brackets; the sweeps' are experiments/sweeps.toml's):
)" + flags +
         R"(
Each run is one timed iteration (manual time = wall time of the loop, device drained);
use --benchmark_repetitions=N for the spread. Google Benchmark's flags follow.
)";
}

}  // namespace bench
