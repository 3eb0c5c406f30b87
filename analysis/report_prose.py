"""The words of REPORT.md: what each section's figures mean and the likely physical reason
behind each miss, kept as text and templates apart from the code that computes the figures
(report.py), builds the tables (report_tables.py) and draws the plots (plots.py)."""

import os

from analysis import noise, summary

SPREAD_OK_PCT = (
    noise.TIGHT_PCT
)  # a primitive whose repetitions spread more than this cannot predict a loop to 10%

# ---- likely physical reasons, said as likely ones ------------------------------------------

# Why an affine per-epoch cost misses a batch by more than 10%.
BATCH_MISS_REASON = (
    "An affine cost has one cost per row; the measured cost per row is not one number across four "
    "decades of batch (a likely reason, not measured here: the largest batches' tensors no longer "
    "fit the caches, and allocations that size are mapped afresh page by page), and the weighted "
    "fit follows the many smaller batches"
)
# A held-out batch the batch fit misses: over-predicted, or either way.
BATCH_HELD_OUT_OVER = (
    "an affine c(B) over four decades of batch: the per-row cost is not one number "
    "(cache-resident batches cost less per row than the 10^6-row batch that "
    "dominates the slope)"
)
BATCH_HELD_OUT = "an affine c(B) over four decades of batch: the per-row cost is not one number"
# A held-out ItemSync configuration the model misses.
HELD_OUT_LOAD = "the fit averages over runs whose speed moved with the machine load"
# The loop predicted from the count of ATen ops times one tiny op.
EPOCH_OVER = (
    "the op count includes nested ATen calls (`linear` calls `t` and `addmm`, autograd nodes call "
    "their kernels): they run inside a parent's dispatch and cost less than a whole top-level "
    "`a + a`"
)
EPOCH_UNDER = (
    "the step's ops do more than a 1-element add (matrix products, autograd bookkeeping, the "
    "allocator), so one tiny op undercounts them"
)
TINY_OP_SPREAD = "; the tiny op's own spread is {spread:.0f}%"
TINY_OP_FEW = "; the tiny op: n={n} back-to-back repetitions, stability unknown"
SLOPE_NO_CI = "the ItemSync fit's slope (no CI: runs not independent)"
SLOPE_NO_VERDICT = "no verdict (the slope comes from runs that drift with their run order)"
STEP_APART = "measured minutes apart on cores whose load changed in between"
ITEM_QUEUE = (
    "in the loop a `.item()` also waits for the kernels still queued (s + min(c, g) in the model), "
    "which Sync/item_idle on an idle GPU does not"
)
ITEM_FIT_NOISE = "the fit's slope carries whole runs' noise divided by the calls"
TRACED_ITEM = (
    "the traced `item` range also holds the conversion to a C++ float and, on CUDA, the wait "
    "for the queue"
)

# ---- where the time of an epoch goes -------------------------------------------------------

ATTRIBUTION_HEADING = "## Where the time of an epoch goes (traced pass)"
TRACE_FAILED = (
    "**The traced pass FAILED on {n} configuration(s)** (bench printed why on stderr; their "
    "timed figures stand): {names}"
)
NO_TRACED_PASS = "No traced pass in this folder (run bench with --trace_epochs=N)."
ATTRIBUTION_INTRO = (
    "A separate pass after the timed runs (`--trace_epochs`), per epoch, median over repetitions. "
    "Phases are host time inside our NVTX ranges; `outside the phases` is the rest of the traced epoch, so "
    "that the phases and it add up to `traced us`. `untraced us` and `traced us` are medians of the "
    "repetitions' us per epoch and `traced/untraced` = median traced / median untraced, two passes run at "
    "different times, so the machine's drift between them moves it too (below 1x it is drift, not "
    "tracing); `traced - untraced` is the "
    "difference of the means with its 95% CI (Welch, over the repetitions, which ran back to back and are "
    "taken as independent), *within noise* when that holds "
    "0. `us per .item()` is the traced host time of one `.item()` (not a share of the epoch). "
    "Definitions: docs/experiment.md, *Where the time goes*."
)
GPU_TIMELINE = (
    "GPU timeline per epoch, traced (CUPTI on, which slows each launch: `launch API us` is a "
    "traced figure; an untraced launch's cost is `KernelLaunch/host_launch` in the primitives "
    "below):"
)
GPU_TIMELINE_PENDING = "GPU timeline (CUPTI) pending: no CUDA rows in this folder."
QUEUE_INTRO = (
    "The launch queue per epoch (work launched and not yet finished on the GPU), as `./attribute` "
    "defines it (docs/trace-tool.md, *The launch queue*): per epoch the GPU whose queue was empty "
    "least, the median over the epochs of its share of the epoch with nothing queued and of its "
    "median and p90 depth, the deepest queue seen, and the epochs' regimes by ./attribute's rule, "
    "whose thresholds docs/trace-tool.md states (launch-bound: the queue is often empty, the GPU "
    "waits for the host and a sync finds little to wait out; GPU-bound: the queue is rarely empty "
    "and holds work, and a sync waits out what is queued ahead of it)."
)
QUEUE_PENDING = (
    "No launch-queue figures: these rows predate bench's queue counters and no "
    "`queue/` folder is here (`experiments/trace_queue.sh` makes it from the trace files)."
)
NO_QUEUE_ON_CPU = (
    "On the CPU there is no launch queue: each op runs on the calling thread before the next "
    "starts (the CPU rows' `attr_launch_queue` is 0)."
)
KERNEL_COUNT_PENDING = (
    "Kernel count cross-check pending (needs the never-logging CUDA row and python_eager "
    "--profile-kernels)."
)
KERNEL_COUNT = (
    "Kernels per epoch: {cupti:.1f} by CUPTI in bench's traced pass, {prof:.1f} by torch.profiler on "
    "the same step in Python eager (SGD one update per parameter, as LibTorch's): {verdict}."
)

# ---- the primitives ------------------------------------------------------------------------

PRIMITIVES_HEADING = "## The primitives on their own, and the loop predicted from them"
NO_PRIMITIVES = (
    "No primitive rows in this folder "
    "(./bench --benchmark_filter='^(Dispatch|KernelLaunch|Sync|Memcpy)/')."
)
PRIMITIVES_INTRO = (
    "Median over the repetitions of the cost of one operation; spread = (max-min)/median over "
    "them (the repetitions of a row ran back to back in one process)."
)
PRIMITIVES_RUN = " Their run: {load}."
PRIMITIVES_RUNS = " Their runs: {loads}."


def published_note(n, run):
    """Why a published-range verdict is weak: few back-to-back repetitions on a loaded host."""
    text = "one run" if n < 2 else f"n={n}, back to back"
    if run is not None:
        load, cpus = run.context.get("load_avg"), run.context.get("num_cpus")
        if isinstance(load, list) and load and isinstance(load[0], (int, float)):
            text += f"; host 1-minute load {load[0]:.1f} on {cpus} CPUs"
    return text


UNSTABLE = (
    "**Not stable enough to predict to {ok:g}%**: {which}. On a shared machine (other processes on "
    "the same cores) this spread is an upper bound of what a quiet machine gives; predictions below "
    "carry it."
)
ALL_STABLE = "Every primitive's spread is under {ok:g}% over at least 3 repetitions."
TOO_FEW_REPS = (
    "**Too few repetitions to judge stability** ({count} primitives, at most n={n}; at least 3 are "
    "needed): their spreads are {lo:.0f}-{hi:.0f}%, over {ok:g}% for: {over}. Predictions below "
    "carry the spreads as measured."
)
PUBLISHED_INTRO = (
    "Measured against published figures (the ranges of `PUBLISHED_PRICES` in analysis/summary.py):"
)
NO_PUBLISHED = "Comparison with published launch, sync and graph-node figures pending: no CUDA primitive rows here."
PREDICTIONS_INTRO = (
    "Predictions from the primitives, each beside what was measured, with a verdict (analysis/noise.py): "
    "*agrees* when the prediction's range [from the primitive's repetitions] meets the measurement's "
    "range [its repetitions, or the fit's 95% CI] and both are narrower than "
    "{ok:g}% of their centre; *inconclusive* when they meet only because one of them is wider "
    "(or the measured CI holds 0, against which no % error is computed); else *off by* the error against "
    "the measurement. The verdict says its reason; the last column gives the likely physical reason "
    "whenever the verdict is not *agrees*."
)

# ---- the ladder ----------------------------------------------------------------------------

LADDER_HEADING = "## How fast can it be: the overhead-removal ladder"
NO_LADDER = "No Ladder rows in this folder (./bench --benchmark_filter=Ladder)."
LADDER_INTRO = (
    "The same problem on every rung, from the same seeded weights, the loss kept every 100 epochs "
    "(`.item()` on the rungs that sync for it: `host syncs`); the rungs did not all run as many epochs "
    "(`epochs`, `losses kept`), so they compare per epoch. Speed-up against LibTorch eager on the same device "
    "in this folder (ratio of medians). Errors are the worst repetition's relative difference from the same "
    "training in float64 on the CPU (LibTorch's for bench's rungs, PyTorch's for the Python ones; losses at "
    "every record, final weights); *not checked* where the run did not make that check."
)
SAME_CONFIGURATION = (
    "- {a} and {b} both ran on {threads:.0f} threads here: one configuration measured "
    "twice, so their {a_speedup} and {b_speedup} differ by run-to-run noise only "
    "({b} - {a}, difference of the means: {diff} us/epoch {mark})."
)
NOT_CHECKED = (
    "- {device} {rung}: its run wrote no comparison of its losses and weights with float64; "
    "its final loss, {loss:.7g}, and LibTorch eager's, {eager_loss:.7g}, are {same}."
)
TARGET_PENDING = "pending (rows not in this folder)"
SUSPECT = "- **{device} {rung} is SUSPECT** until a run fixes it: {why}."

# ---- the head, the sweep, the model, the batch sweep ---------------------------------------

TITLE = "# Why is the GPU slower on a tiny model? Measurements on {machine}"
GPU_PENDING = "**GPU figures pending**: no CUDA rows ran in this folder"
SWEEP_HEADING = "## Our whole sweep"
SWEEP_INTRO = (
    "Loop time of {epochs} epochs, median over repetitions; spread = (max-min)/median. "
    "`above 0 calls` = this row's mean minus the reference, the model's fitted loop time at 0 `.item()` "
    "calls (epochs x per_epoch, the fit in the next section, over every repetition of every fitted row), "
    "with the 95% CI of that same difference (Welch-Satterthwaite over the row's repetitions, run back to "
    "back and taken as independent, and the fit), "
    "marked *within noise* when it holds 0. Why that reference: a single never-logging row is one "
    "configuration's few repetitions, and one slow repetition moves it{nevers}; the fit at 0 calls is what every row says "
    "not logging costs, and no one row moves it much. Article figures as in the tables above."
)
NEVERS_SPREAD = " (here the never-logging rows spread {spreads})"
MODEL_HEADING = "## The model"
MODEL_INTRO = (
    "`loop seconds = epochs x per_epoch + .item() calls x per_item`, least squares over every "
    "repetition of the batch-{batch} ItemSync rows except interval {held_out} (held out)."
)
HELD_OUT_HEADING = "### Held-out prediction"
HELD_OUT_INTRO = (
    "Each held-out configuration's prediction against its repetitions' range (min-max), with the verdict "
    "of analysis/noise.py: *agrees* when the prediction lies inside the range and the range is narrower than "
    "{tight:g}% of its median, *inconclusive* when it lies inside only a wider range, else *off by* "
    "its error against the median."
)
HELD_OUT_PAIRED = "given by the paired rows (*Measurements that conclude*, below): these whole runs do not conclude"
NO_HELD_OUT = "No held-out rows (interval {interval}, batch {batch}) in this folder."
BATCH_HEADING = (
    "## Batch size: where the GPU starts to win, and what a sync costs with more work queued"
)
BATCH_INTRO = (
    "`extra us per .item()` = (mean us/epoch logging every epoch - mean us/epoch never logging), one "
    "`.item()` per epoch, with the 95% CI of that same difference of means (Welch, over the repetitions), "
    "*within noise* when it holds 0 (the repetitions ran back to back, not interleaved: the interval takes them "
    "as independent); `% of an epoch` is the same figure and interval divided by the mean "
    "never-logging epoch (what the plot's right panel draws). The us/epoch columns are medians."
)
BATCH_FIT = (
    "- {device}: c(B) = {base:.1f} us + {per_row_ns:.3f} ns x rows (R² = {r2:.3f}, {note}; batch "
    "{held_out} held out). Its largest miss: batch {batch:,}, fitted {fitted:,.0f} us against "
    "{measured:,.0f} measured ({err:+.0f}%){reason}."
)
GPU_WINS_BRACKET = (
    "- The GPU's never-logging epoch is faster than its CPU's from somewhere {where} "
    "(n={n} repetitions a point){falls}."
)
GPU_FALLS = (
    "; the CPU's curve goes backwards from batch {a} to {b} ({ua:,.0f} -> {ub:,.0f} us an "
    "epoch), so the GPU's lead at {a} does not narrow it"
)
GPU_NEVER_WINS = "- The GPU was not faster than the CPU at any swept batch."
NO_GPU_BATCH = "- GPU batch rows pending (no CUDA rows in this folder)."
NO_BATCH = "No BatchSweep rows in this folder."
SKIPPED_HEADING = "## Rows that did not run"


def gpu_wins(bracket):
    """Where the GPU starts to win, as the bracket the swept batches support."""
    if bracket is None:
        return GPU_NEVER_WINS
    where = (
        f"at or below batch {bracket.hi} (the smallest swept)"
        if bracket.lo is None
        else f"between batch {bracket.lo} (slower there) and {bracket.hi} (faster there and at "
        "every larger batch)"
    )
    falls = "".join(GPU_FALLS.format(a=a, b=b, ua=ua, ub=ub) for a, b, ua, ub in bracket.backwards)
    return GPU_WINS_BRACKET.format(where=where, n=bracket.n, falls=falls)


RUN_ORDER = (
    "The {device} ItemSync rows of batch {batch} in the order they ran ({n} runs). {order}{slow} "
    "Figures that rest on these runs carry no interval; the headline figures take the runs "
    "after any slow period."
)
SLOW_PERIOD = (
    " The first {k} ran {lo:.0f}-{hi:.0f} us an epoch, each over {tight:g}% above the median of "
    "the runs after it, and the {rest} after them {rlo:.0f}-{rhi:.0f} us: a slow period, cause "
    "not measured (nothing recorded during the runs tells the host from the GPU's clocks or a "
    "warm-up)."
)


def run_order_intro(m, us, k):
    order = (
        f"The fit's residuals follow this order ({m.order.text()}): the runs are not independent."
        if m.order is not None and m.order.correlated
        else ""
    )
    slow = (
        SLOW_PERIOD.format(
            k=k,
            lo=min(us[:k]),
            hi=max(us[:k]),
            tight=noise.TIGHT_PCT,
            rest=len(us) - k,
            rlo=min(us[k:]),
            rhi=max(us[k:]),
        )
        if k
        else ""
    )
    return RUN_ORDER.format(
        device=m.device, batch=summary.FIT_BATCH, n=len(us), order=order, slow=slow
    )


def load_note(run):
    """'load average 1.99 on 2 CPUs' from Google Benchmark's context, when it recorded one."""
    load, cpus = run.context.get("load_avg"), run.context.get("num_cpus")
    if isinstance(load, list) and load and isinstance(load[0], (int, float)):
        return f"1-minute load average {load[0]:.2f} on {cpus} CPUs when it started"
    return "load not recorded"


def machine_lines(ctx, runs):
    """The machine, the software and the runs the report is over."""
    return [
        (
            f"- CPU: {ctx.get('cpu_model')} ({ctx.get('cpu_threads_torch')} torch threads); GPU: {ctx.get('gpu_name')}"
            f" (CUDA runtime {ctx.get('cuda_runtime')}, driver {ctx.get('cuda_driver')})"
        ),
        (
            f"- torch {ctx.get('torch_version')}, {ctx.get('epochs')} epochs per ItemSync run, timed runs untraced "
            f"({ctx.get('tracing')})"
        ),
        "- runs: "
        + "; ".join(
            f"`{os.path.basename(r.path)}` commit {r.context.get('git_commit')}, {load_note(r)}"
            for r in runs
        ),
    ]


def sweep_intro(epochs, nevers):
    spreads = " and ".join(
        f"{c.spread_pct:.1f}% ({c.device}, print100 {c.print100})" for c in nevers if c.n >= 2
    )
    return SWEEP_INTRO.format(
        epochs=epochs, nevers=NEVERS_SPREAD.format(spreads=spreads) if spreads else ""
    )


def model_intro():
    return MODEL_INTRO.format(batch=summary.FIT_BATCH, held_out=summary.HELD_OUT_INTERVAL)


def skipped_lines(skipped):
    """One line per family and reason: '- Memcpy: 144 rows skipped: no CUDA driver ...'."""
    count = {}
    for _, name, msg in skipped:
        key = (name.split("/")[0], msg)
        count[key] = count.get(key, 0) + 1
    return [
        f"- {family}: {n} row{'s' if n > 1 else ''} {msg if msg.startswith('skipped') else 'failed: ' + msg}"
        for (family, msg), n in sorted(count.items())
    ]
