#include "trace/export/output_schema.h"

#include <stdexcept>
#include <tuple>
#include <utility>

namespace trace::schema {
namespace {

using K = Kind;

Field f(std::string key, Kind kind, std::string unit, std::string meaning) {
  return {std::move(key), kind, std::move(unit), std::move(meaning), "", ""};
}
Field of(std::string key, Kind kind, std::string of, std::string meaning) {
  return {std::move(key), kind, "", std::move(meaning), std::move(of), ""};
}
// The same quantity as the field `same_as` ("table.key"), under this key.
Field same(std::string key, Kind kind, std::string unit, std::string same_as) {
  return {std::move(key), kind, std::move(unit), "", "", std::move(same_as)};
}
// Field `key` of `table` (declared above it), as the same quantity in another table.
Field field_of(const std::vector<Table>& tables, const std::string& table, const std::string& key) {
  for (const auto& t : tables)
    if (t.name == table)
      for (const auto& x : t.fields)
        if (x.key == key) {
          Field y = same(key, x.kind, x.unit, table + "." + key);
          y.of = x.of, y.nullable = x.nullable;
          return y;
        }
  throw std::logic_error("output_schema: no field " + table + "." + key);
}
// One column of the kernels frame: `stat` of the `part` time (kernel_times.PART_us).
Field stat_column(const std::string& part, const std::string& stat) {
  const std::string name = stat.substr(
      1, stat.find('_', 1) == std::string::npos ? std::string::npos : stat.find('_', 1) - 1);
  if (stat == "_count") return same(part + stat, Kind::Count, "", "time_stats.count");
  return same(part + stat, Kind::Number, "us", "time_stats." + name);
}
Field opt(Field x) {
  x.optional = true;
  return x;
}
Field null(Field x) {
  x.nullable = true;
  return x;
}

constexpr const char* kRegimes = "launch-bound|GPU-bound|mixed|no GPU work";

// one piece: the declaration of every table, read top to bottom as docs/output-fields.md is
std::vector<Table> make_tables() {
  std::vector<Table> t;
  // ---- the attribution: ./attribute --json ------------------------------------------------
  t.push_back({"document",
               "./attribute --json: one entry per trace (rank) read",
               {f("tool", K::Text, "", "\"attribute\""),
                f("version", K::Count, "", "changes when a reader must read it differently"),
                of("traces", K::Array, "trace", "each trace, in the order read")}});
  t.push_back(
      {"trace",
       "one trace's attribution: its steps, the whole trace, the blocking calls and the advice",
       {f("file", K::Text, "", "the trace file as given"),
        f("rank", K::Int, "", "distributedInfo.rank (0 when the trace has none)"),
        f("gpu_events", K::Flag, "", "the trace holds GPU work (kernels, copies or sets)"),
        f("clock", K::Text, "",
          "the clock of the timestamps: kineto, or cupti/steady for bench's own traces"),
        f("events", K::Count, "", "events read from the file"),
        f("json_bytes", K::Count, "bytes", "decompressed bytes read"),
        of("steps", K::Array, "window", "each step (ProfilerStep#N, or the ranges asked for)"),
        of("total", K::Object, "whole_trace", "the whole trace as one window"),
        of("queue_rule", K::Object, "queue_rule", "the thresholds the regimes are named by"),
        of("blocking_calls", K::Object, "blocking_totals", "every blocking call, summed"),
        of("syncs_by_cause", K::Array, "cause", "the blocking calls by the op that issued them"),
        of("call_sites", K::Object, "call_site_report",
           "the blocking calls by where they were made"),
        of("graph_breaks", K::Object, "graph_breaks", "torch.compile's graph breaks among them"),
        of("diagnosis", K::Object, "diagnosis",
           "what bounds the steady steps, the warm-up, and the fixes that match"),
        of("advice", K::Either, "array:finding|object:advice_skipped",
           "the findings that matter most, each replayed; or why advice did not run"),
        of("syncs", K::Array, "blocking_call", "every blocking call, in time order"),
        of("queue_timeline", K::Object, "queue_timeline", "each GPU's queue depth over one step"),
        of("kernels_by_name", K::Array, "kernel_times",
           "per kernel name: API, queue and kernel time"),
        f("kernels_without_call", K::Count, "", "kernels whose launch call is not in the trace"),
        f("unmatched_correlations", K::Count, "",
          "GPU events whose correlation id matches no host call"),
        f("launches_without_gpu", K::Count, "",
          "launch calls whose correlation id matches no GPU event"),
        f("warnings", K::Texts, "", "what the reader noticed about the file")}});
  const std::vector<Field> window = {
      f("name", K::Text, "", "ProfilerStep#N, the range's name, or \"total\""),
      f("start_us", K::Number, "us", "when the window starts, on the trace's clock"),
      f("wall_us", K::Number, "us",
        "its length: launch calls + syncs + blocking copies + the rest of the host"),
      f("launches", K::Count, "", "kernel launch calls (graph launches included)"),
      f("launch_api_us", K::Number, "us", "host time inside launch calls"),
      f("kernels", K::Count, "", "kernels that ran in the window"),
      f("kernel_us", K::Number, "us", "their summed GPU time"),
      f("gpu_busy_us", K::Number, "us", "the union over each device of its kernels and copies"),
      f("memcpys", K::Count, "", "copies"),
      f("memcpy_gpu_us", K::Number, "us", "their summed GPU time"),
      of("memcpy_by_kind", K::Map, "copy_kind",
         "copies by kind and host memory (\"DtoH pageable\")"),
      f("memsets", K::Count, "", "memsets"),
      f("syncs", K::Count, "", "*Synchronize calls"),
      f("sync_api_us", K::Number, "us", "host time inside them"),
      f("blocking_copies", K::Count, "",
        "copy calls that held the host (no Async, or an Async copy of pageable memory)"),
      f("blocking_copy_us", K::Number, "us", "host time inside them"),
      of("blocking_copies_by_reason", K::Object, "copy_reasons", "why each held the host"),
      f("nonblocking_copies", K::Count, "", "the other copy calls"),
      f("nonblocking_copy_us", K::Number, "us", "host time inside them"),
      f("memcpy_api_us", K::Number, "us", "host time inside every copy call"),
      f("blocked_us", K::Number, "us", "syncs + blocking copies"),
      f("host_rest_us", K::Number, "us",
        "wall - launch calls - syncs - blocking copies: the host's own work and other calls"),
      f("idle_host_wait_us", K::Number, "us", "GPU idle with nothing queued: waiting for the host"),
      f("idle_kernel_wait_us", K::Number, "us", "GPU idle in short gaps between queued work"),
      f("idle_other_us", K::Number, "us", "GPU idle otherwise"),
      of("launch_delay_us", K::Object, "launch_delay",
         "from a launch call's end to its kernel's start"),
      of("queue", K::Object, "queue", "each GPU's launch queue over the window")};
  t.push_back({"window", "one window of a trace: a step, or the whole trace", window});
  std::vector<Field> whole = window;
  whole.back() = of("queue", K::Object, "queue_with_streams",
                    "each GPU's and each stream's launch queue over the trace");
  t.push_back({"whole_trace", "the whole trace as one window, its queue also per stream", whole});
  t.push_back({"copy_kind",
               "the copies of one kind in a window",
               {f("count", K::Count, "", "copies"), f("bytes", K::Count, "bytes", "bytes copied"),
                f("gpu_us", K::Number, "us", "their summed GPU time")}});
  t.push_back({"copy_reasons",
               "blocking copy calls by why they held the host",
               {of("not Async", K::Object, "copy_reason", "a copy call without Async"),
                of("pageable", K::Object, "copy_reason", "an Async copy of pageable memory")}});
  t.push_back({"copy_reason",
               "the blocking copy calls of one reason",
               {f("calls", K::Count, "", "calls"), f("us", K::Number, "us", "host time inside")}});
  t.push_back(
      {"launch_delay",
       "the distribution of launch delays in a window",
       {f("count", K::Count, "", "launches with their kernel"), f("p50", K::Number, "us", "median"),
        f("p90", K::Number, "us", "90th percentile"), f("p99", K::Number, "us", "99th percentile"),
        f("max", K::Number, "us", "longest")}});
  const std::vector<Field> depth = {
      f("empty_share", K::Number, "share", "the share of the window its queue held nothing"),
      f("empty_us", K::Number, "us", "the time its queue held nothing"),
      f("depth_p50", K::Count, "", "time-weighted median depth (work queued or running)"),
      f("depth_p90", K::Count, "", "time-weighted 90th percentile depth"),
      f("depth_max", K::Count, "", "deepest")};
  t.push_back({"queue",
               "the launch queue of a window and its regime",
               {of("regime", K::Words, kRegimes, "named by queue_rule from the GPUs' queues"),
                of("gpus", K::Array, "gpu_queue", "each GPU's queue")}});
  t.push_back(t.back());
  t.back().name = "queue_with_streams";
  t.back().meaning = "the launch queue of the whole trace, also per stream";
  t.back().fields.push_back(of("streams", K::Array, "stream_queue", "each stream's queue"));
  std::vector<Field> gpu = {f("device", K::Count, "", "the GPU"),
                            f("pieces", K::Count, "", "kernels, copies and sets it ran")};
  gpu.insert(gpu.end(), depth.begin(), depth.end());
  gpu.push_back(f("full_queue_calls", K::Count, "",
                  "host calls made while their stream already held max_queue entries"));
  gpu.push_back(f("full_queue_us", K::Number, "us", "host time inside those calls"));
  t.push_back({"gpu_queue", "one GPU's launch queue over a window", gpu});
  std::vector<Field> stream = {f("device", K::Count, "", "the GPU"),
                               f("stream", K::Count, "", "the stream")};
  stream.insert(stream.end(), depth.begin(), depth.end());
  t.push_back({"stream_queue", "one stream's launch queue over the whole trace", stream});
  t.push_back(
      {"queue_rule",
       "launch-bound when the GPU whose queue was empty least was empty at least "
       "launch_bound_empty_share of the window; GPU-bound when under gpu_bound_empty_share with a "
       "median depth of gpu_bound_median_depth or more; mixed otherwise",
       {f("max_queue", K::Count, "", "entries a stream's launch queue holds"),
        f("launch_bound_empty_share", K::Number, "share", "see the table"),
        f("gpu_bound_empty_share", K::Number, "share", "see the table"),
        f("gpu_bound_median_depth", K::Count, "", "see the table")}});
  t.push_back({"blocking_totals",
               "every blocking call of the trace, summed",
               {same("syncs", K::Count, "", "window.syncs"),
                f("sync_us", K::Number, "us", "host time inside them"),
                same("blocking_copies", K::Count, "", "window.blocking_copies"),
                same("blocking_copy_us", K::Number, "us", "window.blocking_copy_us"),
                same("blocked_us", K::Number, "us", "window.blocked_us")}});
  t.push_back(
      {"cause",
       "the blocking calls issued by one op (the innermost cpu_op around them)",
       {f("op", K::Text, "", "the op, or \"(no op)\""), f("calls", K::Count, "", "API calls"),
        f("op_occurrences", K::Count, "",
          "times the op ran and blocked (one .item() is a copy and a sync)"),
        f("sync_us", K::Number, "us", "host time in its syncs"),
        f("blocking_copy_us", K::Number, "us", "host time in its blocking copies"),
        f("blocked_us", K::Number, "us", "both"),
        f("share_of_steps", K::Number, "share", "blocked_us over the steps' summed wall time"),
        f("gpu_queued_us", K::Number, "us", "GPU work that ran while its calls blocked"),
        f("queue_depth_p50", K::Count, "", "median work queued when a call began"),
        f("queue_depth_max", K::Count, "", "deepest"),
        f("drained", K::Count, "", "pieces of queued work its calls waited out"),
        f("gpu_idle_after_us", K::Number, "us", "GPU idle after its calls returned, summed"),
        f("saving_estimate_us", K::Number, "us",
          "first-order saving of removing them (saving_estimate_by)"),
        of("regime", K::Words, kRegimes, "the regime of the steps holding most of its time"),
        of("saving_estimate_by", K::Words, "blocked time|GPU idle after|mixed|no GPU work",
           "which quantity the saving estimate took")}});
  const std::vector<Field> site = {
      f("site", K::Text, "", "caller -> callee, op (and its order in the step when it matters)"),
      null(f("replayed_saving_us", K::Number, "us",
             "removing it, replayed by the advice (null: not tried)")),
      null(f("caller", K::Text, "", "the frame that called into the library")),
      null(f("callee", K::Text, "", "the library function it called")),
      null(f("user_frame", K::Text, "", "the innermost frame of the user's own code")),
      null(f("module", K::Text, "", "the nn.Module whose forward made it")),
      f("op", K::Text, "", "the op that blocked"),
      f("order", K::Count, "",
        "its order in the step among the site's calls (1: one site; 0: the occurrences that "
        "do not stand out, folded)"),
      f("calls", K::Count, "", "API calls"),
      f("occurrences", K::Count, "", "times the callee ran")};
  std::vector<Field> blocked_site = site;
  blocked_site.push_back(f("blocked_us", K::Number, "us", "host time blocked"));
  std::vector<Field> would_site = site;
  would_site.push_back(f("host_us", K::Number, "us", "the op's own host time"));
  for (auto* fields : {&blocked_site, &would_site}) {
    fields->push_back(same("gpu_queued_us", K::Number, "us", "cause.gpu_queued_us"));
    fields->push_back(f("share_of_steps", K::Number, "share", "its time over the steps' wall"));
    fields->push_back(f("steps", K::Count, "", "steps it happened in"));
    fields->push_back(f("steps_share", K::Number, "share", "their share of the steps"));
    fields->push_back(f("apis", K::Texts, "", "the API calls it made"));
  }
  t.push_back({"call_site_report",
               "where the blocking calls were made, from the trace's Python or native stacks",
               {of("stacks", K::Words, "python|native|none", "which stacks the trace holds"),
                opt(f("how_to_record", K::Text, "", "without stacks: how to record them")),
                f("without_caller", K::Count, "", "calls whose stack names no caller"),
                f("without_stack", K::Count, "", "calls without a stack"),
                of("sites", K::Array, "site", "one row per site, most blocked first"),
                same("gpu_work", K::Flag, "", "trace.gpu_events"),
                of("would_sync", K::Array, "would_sync_site",
                   "a trace without GPU work: the ops that would block on a GPU")}});
  t.push_back({"site", "the blocking calls of one call site", blocked_site});
  t.push_back({"would_sync_site", "the ops of one site that would block on a GPU", would_site});
  t.push_back({"graph_breaks",
               "torch.compile's graph breaks: a blocking call inside or between compiled regions",
               {f("regions", K::Count, "", "Torch-Compiled Region ranges"),
                of("breaks", K::Array, "graph_break", "one row per place")}});
  t.push_back(
      {"graph_break",
       "the graph breaks at one place",
       {f("where", K::Text, "", "the blocking op and its site"),
        f("inside", K::Flag, "", "inside a compiled region (else between two)"),
        f("before", K::Text, "", "the region before it"),
        f("after", K::Text, "", "the region after it"),
        f("breaks", K::Count, "", "times it happened"),
        f("steps", K::Count, "", "steps it happened in"),
        f("entry_us", K::Number, "us", "the next region's entry (from its cache lookup), summed"),
        f("entry_median_us", K::Number, "us", "its median")}});
  t.push_back({"finding",
               "one finding of the advice: where, what, the fix and its replayed saving",
               {f("kind", K::Text, "", "the finding's kind"),
                f("where", K::Text, "", "where in the program"),
                f("what", K::Text, "", "what happens"), f("fix", K::Text, "", "what to change"),
                f("what_if", K::Text, "", "the --what-if that replays the fix"),
                f("saving_us", K::Number, "us", "the replayed saving"),
                f("total_us", K::Number, "us", "the time the finding concerns"),
                f("assumed", K::Text, "", "what the saving assumes")}});
  t.push_back(
      {"diagnosis",
       "what bounds the steady steps (docs/trace-tool.md, \"Diagnosis\"), headline first",
       {f("gpu", K::Flag, "", "the trace holds GPU work; false: no GPU verdict"),
        f("headline", K::Text, "", "the verdict in one line, as the text prints it"),
        f("verdict", K::Text, "", "the largest class (\"\" without GPU work)"),
        f("verdict_share", K::Number, "", "its share of the steady steps' wall time"),
        f("runner_up", K::Text, "", "the second largest class"),
        f("runner_up_share", K::Number, "", "its share"),
        of("regime", K::Words, "host-side|host ahead|GPU-bound", "who waits, by launch lag"),
        f("launch_bound", K::Flag, "", "per-op host overhead bounds steps of short kernels"),
        f("windows", K::Count, "", "steps read (1: the whole trace)"),
        f("cold_windows", K::Count, "", "steps left out as cold"),
        f("whole_trace", K::Flag, "", "no steps: the whole trace is the window"),
        f("step_us", K::Number, "us", "the steady steps' median wall time"),
        f("launch_calls_us", K::Number, "us", "launch calls' own time with the GPU idle"),
        of("classes", K::Array, "bound_class", "every class's time, summed over steady steps"),
        f("cold_us", K::Number, "us", "cold-start work with the GPU idle, every step"),
        f("cold_profile", K::Flag, "", "cold-start work is half the profile or more"),
        of("cold_items", K::Array, "cold_item", "the cold-start work, most first"),
        of("findings", K::Array, "diagnosed", "the verdict's fix first, then by saving"),
        f("caveats", K::Texts, "", "what the verdict cannot see")}});
  t.push_back({"bound_class",
               "one class of the diagnosis",
               {f("class", K::Text, "", "its name"),
                f("us", K::Number, "us", "its time over the steady steps"),
                f("share", K::Number, "", "its share of their wall time")}});
  t.push_back(
      {"cold_item",
       "one piece of cold-start work",
       {f("name", K::Text, "", "the call, op, frame or range"),
        of("level", K::Words, "call|op|frame|range|sample|none", "what kind of event it is"),
        f("us", K::Number, "us", "the GPU-idle time it covers")}});
  t.push_back({"diagnosed",
               "one finding of the diagnosis: the mechanism, where, the fix and what it saves",
               {f("what", K::Text, "", "the mechanism and its share"),
                f("where", K::Text, "", "the largest item inside it"),
                f("fix", K::Text, "", "the fix that matches the mechanism"),
                f("saving_us", K::Number, "us", "up to this much a steady step (0: not priced)"),
                f("assumption", K::Text, "", "what the saving rests on"),
                f("what_if", K::Text, "",
                  "host work: the --what-if that replays making it free (\"\": none)"),
                null(f("replayed_saving_us", K::Number, "us",
                       "that what-if's saving over the whole trace (null: not replayed)"))}});
  t.push_back({"advice_skipped",
               "why the advice did not run",
               {f("skipped", K::Text, "", "the reason (--advice runs it)")}});
  t.push_back(
      {"blocking_call",
       "one call that held the host until the GPU caught up",
       {f("api", K::Text, "", "the runtime call"),
        of("kind", K::Words, "sync|blocking copy", "a *Synchronize call or a blocking copy"),
        null(f("reason", K::Text, "", "why a copy held the host (null for a sync)")),
        f("op", K::Text, "", "the innermost cpu_op around it"),
        f("op_path", K::Text, "", "the ops around it, outermost first"),
        null(f("step", K::Text, "", "the step it is in (null: none)")),
        f("thread", K::Count, "", "the host thread"),
        f("start_us", K::Number, "us", "when it began"),
        f("blocked_us", K::Number, "us", "host time inside it"),
        f("gpu_queued_us", K::Number, "us", "GPU busy time while it blocked"),
        f("queue_depth", K::Count, "", "work queued when it began"),
        f("drained", K::Count, "", "pieces of queued work it waited out"),
        f("gpu_idle_after_us", K::Number, "us", "how long no GPU work ran after it returned"),
        of("regime", K::Words, kRegimes, "the regime of its step"),
        null(f("site", K::Count, "", "its row in call_sites.sites (null: none)")),
        null(f("caller", K::Text, "", "its caller frame (null: none)")),
        f("stack", K::Texts, "", "its frames, outermost first"),
        f("stack_cut", K::Flag, "", "the stack was cut at the profiler's start")}});
  t.push_back({"queue_timeline",
               "each GPU's queue depth over one step (the step of median wall time), for a plot",
               {f("window", K::Text, "", "the step"), f("start_us", K::Number, "us", "its start"),
                f("wall_us", K::Number, "us", "its length"),
                of("gpus", K::Array, "timeline_gpu", "one per GPU")}});
  t.push_back({"timeline_gpu",
               "one GPU's depth as change points: depth[k] holds from t_us[k]",
               {f("device", K::Count, "", "the GPU"),
                f("t_us", K::Numbers, "us", "change points from the window's start"),
                f("depth", K::Counts, "", "the depth from each"),
                f("truncated", K::Flag, "", "cut at its first 10000 changes")}});
  t.push_back({"kernel_times",
               "one kernel name's times, as Nsight Systems' cuda_kern_exec_sum splits them",
               {f("name", K::Text, "", "the kernel"),
                of("api_us", K::Object, "time_stats", "the launch call (end - start)"),
                of("queue_us", K::Object, "time_stats",
                   "from the launch call's end to the kernel's start, when positive"),
                of("kernel_us", K::Object, "time_stats", "the kernel")}});
  t.push_back({"time_stats",
               "a duration's statistics over calls",
               {f("count", K::Count, "", "calls"), f("total", K::Number, "us", "summed"),
                f("mean", K::Number, "us", "mean"), f("median", K::Number, "us", "median"),
                f("min", K::Number, "us", "shortest"), f("max", K::Number, "us", "longest")}});

  // ---- HTA's figures: ./attribute --hta --json ----------------------------------------------
  t.push_back({"hta_document",
               "./attribute --hta --json: HTA's figures per rank (0.6.1's; --hta=0.5: 0.5.0's)",
               {same("tool", K::Text, "", "document.tool"),
                same("version", K::Count, "", "document.version"),
                of("hta", K::Object, "hta", "the figures")}});
  t.push_back({"hta",
               "HTA's figures of every rank",
               {f("ns_rounding", K::Flag, "", "timestamps rounded as HTA rounds them"),
                of("ranks", K::Map, "hta_rank", "per rank")}});
  t.push_back(
      {"hta_rank",
       "one rank's HTA figures",
       {opt(f("int_wrapped", K::Flag, "", "HTA's narrow integer columns wrapped in a sum")),
        of("temporal", K::Object, "hta_temporal", "get_temporal_breakdown"),
        of("idle_by_stream", K::Map, "hta_idle", "get_idle_time_breakdown, per stream"),
        of("launch_delay_us", K::Object, "hta_launch_delay", "get_cuda_kernel_launch_stats"),
        of("queue_length", K::Map, "hta_queue_length", "get_queue_length_summary, per stream"),
        of("blocked_on_full_queue", K::Object, "hta_full_queue",
           "get_time_spent_blocked_on_full_queue"),
        opt(of("hta_errors", K::Object, "hta_errors", "where HTA itself raises"))}});
  t.push_back({"hta_temporal",
               "the GPU's time by HTA's temporal breakdown (none without GPU)",
               {opt(f("idle_time_us", K::Number, "us", "span - union of GPU events")),
                opt(f("compute_time_us", K::Number, "us", "union of computation kernels")),
                opt(f("non_compute_time_us", K::Number, "us", "the rest of the union")),
                opt(f("kernel_time_us", K::Number, "us", "last end - first start"))}});
  t.push_back({"hta_idle",
               "one stream's idle time by HTA's categories",
               {f("host_wait_us", K::Number, "us", "the next launch started after the gap began"),
                f("kernel_wait_us", K::Number, "us", "gaps under consecutive_kernel_delay"),
                f("other_us", K::Number, "us", "the other gaps")}});
  t.push_back(
      {"hta_launch_delay",
       "launch delays as HTA computes them",
       {f("count", K::Count, "", "launches joined to their GPU event"),
        opt(f("mean", K::Number, "us", "mean")), opt(f("min", K::Number, "us", "least")),
        opt(f("p50", K::Number, "us", "median")), opt(f("p90", K::Number, "us", "90th percentile")),
        opt(f("max", K::Number, "us", "longest"))}});
  t.push_back({"hta_queue_length",
               "one stream's queue length as HTA's summary gives it",
               {f("count", K::Count, "", "samples"), f("mean", K::Number, "", "mean"),
                null(f("std", K::Number, "", "standard deviation (null: one sample)")),
                f("min", K::Number, "", "least"), f("p25", K::Number, "", "25th percentile"),
                f("p50", K::Number, "", "median"), f("p75", K::Number, "", "75th percentile"),
                f("max", K::Number, "", "most")}});
  t.push_back({"hta_full_queue",
               "time HTA counts as blocked on a full launch queue",
               {f("max_queue_length", K::Count, "", "the queue's size (--hta-max-queue)"),
                opt(f("stream", K::Int, "", "the stream")),
                opt(f("duration_us", K::Number, "us", "time blocked")),
                opt(null(f("relative", K::Number, "share", "its share of the trace")))}});
  t.push_back({"hta_errors",
               "HTA's own errors on this rank",
               {opt(f("queue_length", K::Text, "", "what get_queue_length_summary raises")),
                opt(f("blocked_on_full_queue", K::Text, "", "what its full-queue call raises"))}});

  // ---- the replay: ./attribute --replay / --what-if --json -----------------------------------
  t.push_back({"replay_document",
               "./attribute --replay or --what-if --json",
               {same("tool", K::Text, "", "document.tool"),
                same("version", K::Count, "", "document.version"),
                f("what_if", K::Texts, "", "the what-ifs as parsed"),
                of("replays", K::Array, "replay", "each trace")}});
  t.push_back(
      {"replay",
       "one trace replayed unchanged, with typical delays, and under each what-if",
       {same("file", K::Text, "", "trace.file"), same("rank", K::Int, "", "trace.rank"),
        of("windows", K::Words, "steps|whole trace", "what a window is"),
        of("graph", K::Object, "replay_graph", "the dependency graph it replays"),
        of("replay", K::Object, "replay_scenario", "every recorded duration"),
        of("typical_delays", K::Object, "typical_scenario", "each delay its kind's typical one"),
        of("what_ifs", K::Array, "what_if_scenario", "each --what-if"),
        of("log_every", K::Array, "log_every", "step time against the syncs kept"),
        f("notes", K::Texts, "", "what the replay could not model, and why")}});
  std::vector<Field> graph;
  for (const char* k :
       {"host_nodes", "gpu_nodes", "edges", "launches", "graph_launch_kernels", "unlaunched_gpu",
        "blocking_calls", "sync_targets_from_rows", "sync_targets_guessed",
        "syncs_waiting_on_nothing", "event_waits", "unnamed_event_waits", "gpu_waits",
        "thread_waits", "queue_waits", "overlapping_calls", "cycle_edges_dropped"})
    graph.push_back(f(k, K::Count, "", "the graph's count of these (docs/what-if.md)"));
  t.push_back({"replay_graph", "what the replay's dependency graph holds", graph});
  const std::vector<Field> errors = {
      f("median_error", K::Number, "share",
        "median over windows of |replayed - measured| / measured"),
      f("max_error", K::Number, "share", "the largest"),
      f("target_met", K::Flag, "", "median <= 2 % and every window within 5 %")};
  std::vector<Field> replayed = errors;
  replayed.push_back(of("windows", K::Array, "replay_window", "each window"));
  replayed.push_back(of("total", K::Object, "replay_window", "the whole trace"));
  t.push_back({"replay_scenario", "the trace replayed with every recorded duration", replayed});
  std::vector<Field> typical = errors;
  typical.push_back(of("windows", K::Array, "predicted_window", "each window"));
  typical.push_back(of("total", K::Object, "predicted_window", "the whole trace"));
  t.push_back({"typical_scenario", "the replay with each delay its kind's typical one", typical});
  t.push_back({"what_if_scenario",
               "one --what-if, replayed",
               {f("name", K::Text, "", "the what-if as parsed"),
                f("sites", K::Count, "", "call sites it selects"),
                f("sites_kept", K::Count, "", "of those, kept"),
                opt(f("assumed", K::Text, "", "what its prediction assumes")),
                opt(f("graph_breaks", K::Count, "", "graph breaks among the syncs it removes")),
                opt(f("merge_saving_us", K::Number, "us",
                      "the entries of the regions they merge, removed with them")),
                of("windows", K::Array, "predicted_window", "each window"),
                of("total", K::Object, "predicted_window", "the whole trace")}});
  const std::vector<Field> window_head = {
      f("name", K::Text, "", "the window"),
      f("measured_us", K::Number, "us", "its measured length"),
      f("replayed_us", K::Number, "us", "replayed unchanged"),
      f("measured_pace_us", K::Number, "us",
        "from the window before being done (host and GPU) to this one being done"),
      f("replayed_pace_us", K::Number, "us", "the same, replayed")};
  std::vector<Field> replay_window = window_head;
  replay_window.push_back(f("error", K::Number, "share", "(replayed - measured) / measured"));
  replay_window.push_back(of("bound", K::Array, "bound", "what held it up, longest first"));
  t.push_back({"replay_window", "one window replayed unchanged", replay_window});
  std::vector<Field> predicted_window = window_head;
  predicted_window.push_back(f("predicted_pace_us", K::Number, "us", "the pace, predicted"));
  predicted_window.push_back(f("predicted_us", K::Number, "us", "its length, predicted"));
  predicted_window.push_back(f("saving_us", K::Number, "us", "replayed - predicted"));
  predicted_window.push_back(f("error", K::Number, "share", "(predicted - measured) / measured"));
  predicted_window.push_back(of("bound", K::Array, "bound", "what held it up, longest first"));
  t.push_back({"predicted_window", "one window under a change, predicted", predicted_window});
  t.push_back({"bound",
               "a resource that held a window up",
               {f("resource", K::Text, "", "a host thread, a stream or a copy engine"),
                f("us", K::Number, "us", "its time on the window's critical path")}});
  t.push_back({"log_every",
               "step time against how many of a site's syncs are kept",
               {f("what_if", K::Text, "", "the log-every what-if"),
                f("selector", K::Text, "", "the syncs it selects"),
                f("sites", K::Count, "", "call sites selected"),
                f("replayed_us", K::Number, "us", "the trace replayed unchanged"),
                f("never_us", K::Number, "us", "with none kept"),
                f("saving_per_sync_us", K::Number, "us", "the slope: saving per sync removed"),
                f("isolated_cost_us", K::Number, "us", "one sync kept alone, replayed"),
                f("isolated_samples", K::Count, "", "replays of single kept syncs"),
                f("blocked_per_sync_us", K::Number, "us", "host time blocked per sync"),
                f("queued_per_sync_us", K::Number, "us", "GPU work queued per sync"),
                f("max_deviation", K::Number, "share", "the points' largest deviation from a line"),
                f("linear", K::Flag, "", "the curve is a line within its tolerance"),
                f("why", K::Text, "", "why it is (not) linear"),
                of("points", K::Array, "log_every_point", "one per N")}});
  t.push_back(
      {"log_every_point",
       "step time when every N-th sync is kept",
       {of("every", K::Either, "count|word:never", "N, or \"never\""),
        f("kept", K::Count, "", "syncs kept"), f("kept_per_window", K::Number, "", "per window"),
        f("predicted_us", K::Number, "us", "the predicted step time"),
        f("extrapolated", K::Flag, "", "from the isolated cost, not replayed")}});

  // ---- ./attribute --diff A B --json (analyze/trace_diff.h) --------------------------------
  t.push_back({"diff_document",
               "./attribute --diff A B --json: two traces of one program side by side",
               {same("tool", K::Text, "", "document.tool"),
                same("version", K::Count, "", "document.version"),
                of("diff", K::Object, "diff", "A beside B")}});
  t.push_back(
      {"diff",
       "two traces of one program: each section's figures of A beside B's",
       {f("a", K::Text, "", "trace A, as given"), f("b", K::Text, "", "trace B, as given"),
        of("match", K::Words, "by name|by position|whole trace",
           "how the steps were matched (whole trace: one or both have none)"),
        f("a_steps", K::Count, "", "A's steps"), f("b_steps", K::Count, "", "B's steps"),
        f("matched_steps", K::Count, "", "steps compared (0: the whole traces)"),
        f("words_in_common", K::Number, "share",
          "kernel time in name words both traces have, the smaller side's (program_words.h)"),
        f("a_verdict", K::Text, "", "A's diagnosis headline"),
        f("b_verdict", K::Text, "", "B's diagnosis headline"),
        of("sections", K::Array, "diff_section", "one per question, in the text's order"),
        f("what_if", K::Texts, "", "the what-ifs replayed from A, as written"),
        of("predictions", K::Array, "diff_prediction", "each what-if's windows beside B's"),
        f("notes", K::Texts, "", "what the comparison left out, and why")}});
  t.push_back({"diff_section",
               "one question asked of both traces",
               {f("name", K::Text, "",
                  "steps, summary, syncs by call site, copies by kind, "
                  "kernels by name, idle by cause, classes"),
                f("meaning", K::Text, "", "what its rows are over"),
                of("rows", K::Array, "diff_row", "largest |B - A| first, where rows have names")}});
  const std::vector<Field> diff_row = {
      f("item", K::Text, "", "the step, call site, copy kind, kernel, cause or class"),
      f("figure", K::Text, "", "what is compared, its unit in its name (_us, share, count)"),
      f("a", K::Number, "", "A's value"),
      f("b", K::Number, "", "B's value"),
      f("diff", K::Number, "", "B - A"),
      null(f("ratio", K::Number, "", "B / A (null: A is 0)"))};
  t.push_back({"diff_row", "one figure of one item, A beside B", diff_row});
  const std::vector<Field> prediction = {
      f("scenario", K::Text, "", "\"replay\" (unchanged), or the what-if"),
      f("window", K::Text, "", "A's matched step, \"matched steps\" or \"total\""),
      f("a_measured_us", K::Number, "us", "A's measured time"),
      f("predicted_us", K::Number, "us", "the what-if's prediction from A"),
      f("b_measured_us", K::Number, "us", "B's measured time in the matched window"),
      null(f("error", K::Number, "share", "(predicted - B) / B (null: B is 0)"))};
  t.push_back({"diff_prediction", "one window of a what-if on A, beside B", prediction});

  // ---- the Python package's DataFrames (frames.h); each gets a leading `rank` column --------
  const auto frame = [&](const char* name, const char* meaning, std::vector<Field> fields) {
    t.push_back({name, meaning, std::move(fields), true});
  };
  const auto window_field = [&](const char* key) { return field_of(t, "window", key); };
  std::vector<Field> steps = {f("step", K::Text, "", "the step's name, or \"total\""),
                              f("is_total", K::Flag, "", "the whole trace's row")};
  for (const char* k : {"start_us", "wall_us"}) steps.push_back(window_field(k));
  steps.push_back(f("phase_steps", K::Count, "",
                    "runs of the step phase inside (bench's epochs: RunOptions::step_phase)"));
  for (const char* k : {"launches", "launch_api_us", "kernels", "kernel_us", "gpu_busy_us"})
    steps.push_back(window_field(k));
  steps.push_back(f("gpu_idle_us", K::Number, "us", "the three idle columns together"));
  for (const char* k :
       {"memcpys", "memcpy_gpu_us", "memsets", "syncs", "sync_api_us", "blocking_copies",
        "blocking_copy_us", "nonblocking_copies", "nonblocking_copy_us", "memcpy_api_us",
        "blocked_us", "host_rest_us", "idle_host_wait_us", "idle_kernel_wait_us", "idle_other_us"})
    steps.push_back(window_field(k));
  steps.push_back(of("queue_regime", K::Words, kRegimes, "queue.regime of the window"));
  frame("steps", "per step, and the whole trace (is_total)", steps);
  frame("idle", "GPU idle per step by cause",
        {f("step", K::Text, "", "the step, or \"total\""),
         of("cause", K::Words, "host_wait|kernel_wait|other", "idle_host_wait_us and its two kin"),
         f("idle_us", K::Number, "us", "idle time of that cause"),
         f("share_of_window", K::Number, "share", "over the step's wall time")});
  frame("copies", "copies per step and kind",
        {f("step", K::Text, "", "the step, or \"total\""),
         f("kind", K::Text, "", "the copy's kind and host memory (\"HtoD pageable\")"),
         same("count", K::Count, "", "copy_kind.count"),
         same("bytes", K::Count, "bytes", "copy_kind.bytes"),
         same("gpu_us", K::Number, "us", "copy_kind.gpu_us")});
  frame(
      "launch_delays", "launch delay distribution per step",
      {f("step", K::Text, "", "the step, or \"total\""),
       same("count", K::Count, "", "launch_delay.count"),
       f("mean_us", K::Number, "us", "mean launch delay"), f("min_us", K::Number, "us", "shortest"),
       same("p50_us", K::Number, "us", "launch_delay.p50"),
       same("p90_us", K::Number, "us", "launch_delay.p90"),
       same("p99_us", K::Number, "us", "launch_delay.p99"),
       same("max_us", K::Number, "us", "launch_delay.max")});
  std::vector<Field> calls;
  for (const char* k :
       {"api", "kind", "reason", "op", "op_path", "step", "thread", "start_us", "blocked_us",
        "gpu_queued_us", "queue_depth", "drained", "gpu_idle_after_us", "regime"})
    calls.push_back(field_of(t, "blocking_call", k));
  calls.push_back(null(f("site", K::Text, "", "its call site's label (null: none)")));
  calls.push_back(same("caller", K::Text, "", "blocking_call.caller"));
  calls.back().nullable = true;
  calls.push_back(null(f("stack", K::Text, "", "its frames, outermost first, joined by \" > \"")));
  frame("blocking_calls", "every blocking call, in time order", calls);
  for (const auto& [name, cost, table] : {std::tuple{"call_sites", "blocked_us", "site"},
                                          std::tuple{"would_sync", "host_us", "would_sync_site"}}) {
    std::vector<Field> rows;
    for (const char* k : {"site", "caller", "callee", "user_frame", "module", "op", "order",
                          "calls", "occurrences", cost, "gpu_queued_us", "steps"})
      rows.push_back(field_of(t, table, k));
    frame(name,
          std::string(name) == "call_sites" ? "blocking calls by call site"
                                            : "a trace without GPU work: the ops that "
                                              "would block on a GPU, by call site",
          rows);
  }
  std::vector<Field> causes;
  for (const char* k : {"op", "calls", "op_occurrences", "sync_us", "blocking_copy_us",
                        "blocked_us", "gpu_queued_us"})
    causes.push_back(field_of(t, "cause", k));
  frame("syncs_by_cause", "blocking calls by the op that issued them", causes);
  std::vector<Field> kernels = {f("name", K::Text, "", "the kernel")};
  for (const char* p : {"api", "queue", "kernel"})
    for (const char* s : {"_count", "_total_us", "_mean_us", "_median_us", "_min_us", "_max_us"})
      kernels.push_back(stat_column(p, s));
  frame("kernels", "API, queue and kernel time per kernel name", kernels);
  frame("windows", "--what-if: every scenario's windows, measured, replayed and predicted",
        {f("scenario", K::Text, "", "\"replay\", or the what-if"),
         f("window", K::Text, "", "the window, or \"total\""),
         f("is_total", K::Flag, "", "the whole trace's row"),
         same("measured_us", K::Number, "us", "predicted_window.measured_us"),
         same("replayed_us", K::Number, "us", "predicted_window.replayed_us"),
         f("predicted_us", K::Number, "us", "its length, predicted (the replay's: replayed)"),
         f("bound_by", K::Text, "", "the resource that held it up longest")});
  std::vector<Field> diff_rows = {same("section", K::Text, "", "diff_section.name")};
  for (const auto& x : diff_row) diff_rows.push_back(field_of(t, "diff_row", x.key));
  frame("diff_rows", "--diff: every section's rows, A beside B", diff_rows);
  std::vector<Field> predictions;
  for (const auto& x : prediction) predictions.push_back(field_of(t, "diff_prediction", x.key));
  frame("diff_predictions", "--diff --what-if: each prediction from A beside B", predictions);
  return t;
}

}  // namespace

const std::vector<Table>& tables() {
  static const std::vector<Table> all = [] {
    auto t = make_tables();
    for (size_t i = 0; i < t.size(); ++i)  // a name is the one way to refer to a table
      for (size_t j = 0; j < i; ++j)
        if (t[i].name == t[j].name)
          throw std::logic_error("output_schema: two tables named " + t[i].name);
    return t;
  }();
  return all;
}

const Table& table(std::string_view name) {
  for (const auto& t : tables())
    if (t.name == name) return t;
  throw std::logic_error("output_schema: no table " + std::string(name));
}

std::string meaning_of(const Table& t, const Field& x) {
  if (!x.meaning.empty() || x.same_as.empty()) return x.meaning;
  const size_t dot = x.same_as.find('.');
  const Table& there = table(x.same_as.substr(0, dot));
  for (const auto& y : there.fields)
    if (y.key == x.same_as.substr(dot + 1)) return meaning_of(there, y);
  throw std::logic_error("output_schema: " + t.name + "." + x.key + " is the same as " + x.same_as +
                         ", which is not declared");
}

namespace {

Column::Kind column_kind(Kind k) {
  switch (k) {
    case Kind::Count:
    case Kind::Int:
      return Column::Kind::I64;
    case Kind::Flag:
      return Column::Kind::Bool;
    case Kind::Text:
    case Kind::Words:
      return Column::Kind::Text;
    default:
      return Column::Kind::F64;
  }
}

}  // namespace

ColumnTable empty_frame(const Table& t) {
  ColumnTable out;
  for (const auto& x : t.fields) out.declare(x.key, column_kind(x.kind));
  return out;
}

void check_frame(const Table& t, const ColumnTable& filled) {
  const auto& cols = filled.columns();
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i >= t.fields.size())
      throw std::logic_error("frame " + t.name + ": column " + cols[i].name +
                             " is not declared (trace/export/output_schema.cpp)");
    if (cols[i].name != t.fields[i].key || cols[i].kind != column_kind(t.fields[i].kind))
      throw std::logic_error("frame " + t.name + ": column " + cols[i].name + " where " +
                             t.fields[i].key + " is declared (trace/export/output_schema.cpp)");
  }
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::Number:
      return "number";
    case Kind::Count:
      return "count";
    case Kind::Int:
      return "integer";
    case Kind::Flag:
      return "bool";
    case Kind::Text:
      return "text";
    case Kind::Words:
      return "word";
    case Kind::Object:
      return "object";
    case Kind::Array:
      return "array";
    case Kind::Map:
      return "map";
    case Kind::Numbers:
      return "numbers";
    case Kind::Counts:
      return "counts";
    case Kind::Texts:
      return "texts";
    case Kind::Either:
      return "either";
  }
  return "?";
}

}  // namespace trace::schema
