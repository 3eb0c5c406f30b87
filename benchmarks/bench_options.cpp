#include "bench_options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace bench {
namespace {

int64_t parse_int(const std::string& flag, const std::string& text, int64_t min_value,
                  const char* expected) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min_value) {
    throw FlagError("--" + flag + ": expected " + expected + ", got '" + text + "'");
  }
  return v;
}

double parse_positive_number(const std::string& flag, const std::string& text,
                             const char* expected) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v > 0) || v > 1e9)
    throw FlagError("--" + flag + ": expected " + expected + ", got '" + text + "'");
  return v;
}

double parse_positive_seconds(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v > 0) || v > 1e9) {
    throw FlagError("--" + flag + ": expected a positive number of seconds, got '" + text + "'");
  }
  return v;
}

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) items.push_back(item);
  if (items.empty() || (!text.empty() && text.back() == ',')) {
    throw FlagError("--" + flag + ": expected a comma-separated list, got '" + text + "'");
  }
  return items;
}

std::vector<int64_t> parse_int_list(const std::string& flag, const std::string& text,
                                    int64_t min_value, const char* expected) {
  std::vector<int64_t> values;
  for (const auto& item : split_list(flag, text))
    values.push_back(parse_int(flag, item, min_value, expected));
  return values;
}

}  // namespace

BenchOptions parse_bench_options(int* argc, char** argv) {
  BenchOptions o;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      argv[kept++] = argv[i];  // Google Benchmark prints its own flags too
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? arg.substr(eq + 1) : "";
    const auto need_value = [&] {
      if (!has_value) throw FlagError("--" + name + ": expected --" + name + "=VALUE");
    };
    if (name == "epochs") {
      need_value();
      o.epochs = parse_int(name, value, 1, "a positive integer");
    } else if (name == "sweep_epochs") {
      need_value();
      o.sweep_epochs = parse_int(name, value, 1, "a positive integer");
    } else if (name == "rung_sweep_epochs") {
      need_value();
      o.rung_sweep_epochs = parse_int(name, value, 1, "a positive integer");
    } else if (name == "ladder_epochs") {
      need_value();
      o.ladder_epochs =
          parse_int(name, value, 100, "an integer >= 100 (the loss is kept every 100 epochs)");
    } else if (name == "warmup_epochs") {
      need_value();
      o.warmup_epochs = parse_int(name, value, 0, "an integer >= 0");
    } else if (name == "seed") {
      need_value();
      o.seed = static_cast<uint64_t>(parse_int(name, value, 0, "an integer >= 0"));
    } else if (name == "devices") {
      need_value();
      o.devices = split_list(name, value);
      for (const auto& d : o.devices)
        if (d != "cpu" && d != "cuda")
          throw FlagError("--devices: expected cpu and/or cuda, got '" + d + "'");
    } else if (name == "intervals") {
      need_value();
      o.intervals = parse_int_list(name, value, 0, "intervals >= 0 (0 = never, 1 = every epoch)");
    } else if (name == "print100") {
      need_value();
      o.print100 = parse_int_list(name, value, 0, "0 and/or 1");
      for (auto v : o.print100)
        if (v > 1)
          throw FlagError("--print100: expected 0 and/or 1, got '" + std::to_string(v) + "'");
    } else if (name == "batches") {
      need_value();
      o.batches = parse_int_list(name, value, 1, "batch sizes >= 1");
    } else if (name == "sweep_intervals") {
      need_value();
      o.sweep_intervals =
          parse_int_list(name, value, 0, "intervals >= 0 (0 = never, 1 = every epoch)");
    } else if (name == "sweep_batches") {
      need_value();
      o.sweep_batches = parse_int_list(name, value, 1, "batch sizes >= 1");
    } else if (name == "rung_sweep_batches") {
      need_value();
      o.rung_sweep_batches = parse_int_list(name, value, 1, "batch sizes >= 1");
    } else if (name == "paired_epochs" || name == "paired_batch_epochs") {
      need_value();
      (name == "paired_epochs" ? o.paired_epochs : o.paired_batch_epochs) =
          parse_int(name, value, 1, "a positive integer");
    } else if (name == "paired_intervals") {
      need_value();
      o.paired_intervals = parse_int_list(name, value, 0, "intervals >= 0 (0 = never)");
    } else if (name == "held_out_interval") {
      need_value();
      o.held_out_interval = parse_int(name, value, 1, "a positive integer");
    } else if (name == "paired_batches") {
      need_value();
      o.paired_batches = parse_int_list(name, value, 1, "batch sizes >= 1");
    } else if (name == "paired_rel_target") {
      need_value();
      o.paired_rel_target = parse_positive_number(name, value, "a fraction > 0 (0.01 = 1 %)");
    } else if (name == "paired_diff_us") {
      need_value();
      o.paired_diff_us = parse_positive_number(name, value, "a number of microseconds > 0");
    } else if (name == "paired_max_s") {
      need_value();
      o.paired_max_s = parse_positive_seconds(name, value);
    } else if (name == "paired_min_rounds") {
      need_value();
      o.paired_min_rounds = parse_int(name, value, 2, "an integer >= 2");
    } else if (name == "data_dir") {
      need_value();
      if (value.empty())
        throw FlagError("--data_dir: expected a folder holding iris_train.csv and iris_test.csv");
      o.data_dir = value;
    } else if (name == "trace_epochs") {
      need_value();
      o.trace_epochs = parse_int(name, value, 0, "an integer >= 0 (0 = no traced pass)");
    } else if (name == "trace_dir") {
      need_value();
      if (value.empty())
        throw FlagError("--trace_dir: expected a folder to write trace files into");
      o.trace_dir = value;
    } else if (name == "trace_file_epochs") {
      need_value();
      o.trace_file_epochs = parse_int(name, value, 1, "a positive integer");
    } else if (name == "echo_log") {
      o.echo_log = true;
    } else if (name == "budget_s") {
      need_value();
      o.budget_s = parse_positive_seconds(name, value);
    } else {
      argv[kept++] = argv[i];  // Google Benchmark's, or unknown: it reports those
    }
  }
  if (!o.trace_dir.empty() && o.trace_epochs == 0) {
    throw FlagError("--trace_dir: needs a traced pass; add --trace_epochs=N (N > 0)");
  }
  if (o.trace_epochs > 0 && o.trace_file_epochs > o.trace_epochs) {
    throw FlagError("--trace_file_epochs: expected at most --trace_epochs (" +
                    std::to_string(o.trace_epochs) + "), got " +
                    std::to_string(o.trace_file_epochs));
  }
  *argc = kept;
  argv[kept] = nullptr;
  return o;
}

namespace {
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
}  // namespace

std::string bench_usage() {
  const BenchOptions d;  // the defaults: experiments/sweeps.toml's sweeps
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
  --epochs=N            epochs per ItemSync run [)" +
         std::to_string(d.epochs) + R"(]
  --sweep_epochs=N      epochs per BatchSweep run [)" +
         std::to_string(d.sweep_epochs) + R"(]
  --ladder_epochs=N     epochs per Ladder run [)" +
         std::to_string(d.ladder_epochs) + R"(]
  --rung_sweep_epochs=N RungSweep's epochs rule [)" +
         std::to_string(d.rung_sweep_epochs) + R"(]
  --warmup_epochs=N     untimed epochs before each run, on a separate model [)" +
         std::to_string(d.warmup_epochs) + R"(]
  --seed=N              torch seed for the initial weights [)" +
         std::to_string(d.seed) + R"(]
  --devices=LIST        cpu,cuda [cpu,cuda]; cuda rows are skipped when no GPU is usable
  --intervals=LIST      ItemSync intervals [)" +
         csv(d.intervals) + R"(]
  --print100=LIST       ItemSync print100 values [)" +
         csv(d.print100) + R"(]
  --batches=LIST        ItemSync batch sizes [)" +
         csv(d.batches) + R"(]
  --sweep_intervals=LIST  BatchSweep intervals [)" +
         csv(d.sweep_intervals) + R"(]
  --sweep_batches=LIST  BatchSweep batch sizes [)" +
         csv(d.sweep_batches) + R"(]
  --rung_sweep_batches=LIST  RungSweep batch sizes [)" +
         csv(d.rung_sweep_batches) + R"(]
  --paired_epochs=N, --paired_batch_epochs=N
                        epochs per short run of the Paired rows, and of Paired/batch [)" +
         std::to_string(d.paired_epochs) + "," + std::to_string(d.paired_batch_epochs) + R"(]
  --paired_intervals=LIST  intervals compared with interval 1 in Paired/replay [)" +
         csv(d.paired_intervals) + R"(]
  --held_out_interval=N the held-out interval (with the every-100 print) in Paired/held_out [)" +
         std::to_string(d.held_out_interval) + R"(]
  --paired_batches=LIST batches of Paired/batch [)" +
         csv(d.paired_batches) + R"(]
  --paired_rel_target=F stop when every mean's 95 % interval is within F of it [)" +
         num(d.paired_rel_target) + R"(]
  --paired_diff_us=US   ... and every difference's within US microseconds [)" +
         num(d.paired_diff_us) + R"(]
  --paired_max_s=S      the cap per Paired row, seconds [)" +
         num(d.paired_max_s) + R"(]
  --paired_min_rounds=N rounds before the targets are checked [)" +
         std::to_string(d.paired_min_rounds) + R"(]
  --data_dir=DIR        folder with iris_train.csv, iris_test.csv [the repository's data/]
  --echo_log            write the article's "Epoch [k/N], Loss: x" lines to stderr
  --trace_epochs=N      after the timed runs of each row, a separate traced pass of N
                        epochs; its attribution (attr_*, phase_*) and overhead
                        (traced_us_per_epoch, trace_overhead) join the row's counters [0]
  --trace_dir=DIR       write DIR/<row>.trace.json (Chrome Trace Event format: open in
                        ui.perfetto.dev or chrome://tracing) for each traced row
  --trace_file_epochs=N the last N epochs of the traced pass go in the file [5]
  --budget_s=S          a time budget for the whole run: rows (and repetitions) that would
                        start after S seconds are skipped with a message, so a run cut
                        short still writes complete JSON; a row already running finishes
                        [none]

Each run is one timed iteration (manual time = wall time of the loop, device drained);
use --benchmark_repetitions=N for the spread. Google Benchmark's flags follow.
)";
}

}  // namespace bench
