"""The words of the trace pages: what the figures mean and the lines that carry them. Fixed
text is kept as data here, apart from the tables and the plots."""

import os

from analysis.attribute_json.schema import COPY_REASONS
from analysis.fmt import fmt_share, fmt_us, plural
from analysis.trace_pages import plots, stats

STEP_TABLE_IDENTITY = (
    "Each row: wall = launch calls + sync + blocking copies + rest of host (the CPU's own work and "
    "every other call, non-blocking copy calls included), and, where the trace has GPU events, wall = "
    "GPU busy + the three idle columns."
)
OUTSIDE_THE_STEPS = (
    "With steps, the row `outside the steps` is the whole trace minus the steps (the time before, "
    "between and after them), so the step rows and it add up to the whole-trace row."
)
NEGATIVE_HOST_REST = (
    "A negative rest of host: calls on several threads overlap, so together they hold the host for "
    "longer than the wall time (the plot draws it as 0)."
)
NEGATIVE_IDLE_OUTSIDE = (
    "A negative idle figure `outside the steps`: the whole trace classifies each GPU idle gap once, "
    "whole, while each step classifies the part of a gap inside it, so a gap that crosses a step boundary "
    "can fall under another cause; the idle figures still add up to the same total."
)
NO_BLOCKING_CALL = "No blocking call (synchronisation or blocking copy) in this trace."
BLOCKING_INTRO = (
    "Every call that held the host until the GPU caught up: {syncs} ({sync_us} us) and "
    "{copies} ({copy_us} us), {blocked_us} us in all, the same calls as the table above. Grouped "
    "by the innermost `cpu_op` that issued the call on the same thread, most costly first (calls: "
    "API calls; op occurrences: how many times the op ran and blocked, e.g. one `.item()` blocks "
    "in a copy and a sync):"
)
CAPTION_HOST = (
    "Left: the host's step time: launch calls, blocked in synchronisation, blocking copies (copy calls "
    "that hold the host: without Async, or with pageable host memory) and the rest (the CPU's own work and "
    "every other call)."
)
CAPTION_GPU = (
    "Right: the GPU's view of the same window: busy (union over streams) and idle split by cause (host "
    "wait: nothing queued; kernel wait: short gaps between queued work; other)."
)
CAPTION_NO_GPU = "Right: empty, as the trace holds no GPU events."
NO_GPU_EVENTS = "**No GPU events in this trace: host figures only.**"
UNMATCHED = "{n} correlation ids matched no event on the other side (counted, not attributed)."
INDEX_INTRO = [
    "One page per trace: the per-step breakdown of host and GPU time and the blocking calls "
    "grouped by the op that caused them. Written by `python -m analysis.trace_report`.",
    "",
    "Replayed, and what if the syncs went, or came every N steps: [replay.md](replay.md) "
    "(`analysis/replay_report.py`).",
    "",
]
INDEX_DEFINITIONS = (
    "Syncs: *Synchronize calls; blocking copies: copy calls that hold the host (without Async, or with "
    "pageable host memory). Both over the whole trace; calls count API calls."
)

# The launch queue and its regime (from each window's `queue` and the file's `queue_rule`).
REGIME_LINE = "Launch queue over the whole trace: **{regime}**: {gpus}."
REGIME_GPU = "GPU {device}'s queue was empty {empty} of the time (median depth {p50}, p90 {p90})"
NO_GPU_QUEUE = "no GPU's queue held any work"
REGIME_RULE = (
    "The rule (`queue_rule`), on the GPU whose queue was empty least: launch-bound when it was "
    "empty for {launch} of the window or more, GPU-bound when for under {gpu} with a median depth "
    "of {depth} or more, mixed otherwise."
)
REGIME_PER_STEP = " Each step's regime is in the per-step table's last column."
QUEUE_CAPTION = (
    "Each GPU's launch queue over {window}: the pieces of GPU work (kernels, copies, sets) queued "
    "or running, against time from the window's start in {unit}; deepest {deepest}{cut}."
)
QUEUE_CUT = ", the timeline cut at ./attribute's limit of changes"
QUEUE_FIGURE_HEAD = "## The launch queue: deep against empty"
QUEUE_FIGURE_CASE = "{regime}: GPU {device}'s queue empty {empty} of the time, median depth {p50}"
QUEUE_FIGURE_TEXT = (
    "[{figure}]({figure}) sets the launch queue of [{deep}]({deep}.md) ({deep_case}) beside that "
    "of [{empty}]({empty}.md) ({empty_case}), each over the window its page's queue plot "
    "shows. In a deep queue each sync waits out the work queued ahead of it: its cost is that "
    "work's time, and the overlap of host and GPU is thrown away. In an empty queue the GPU waits "
    "for the host, so a sync has nothing to wait out and costs its fixed price (below, with "
    "nothing queued)."
)
QUEUE_FIGURE_CAPTION = (
    "Left: {deep}; right: {empty}. Each GPU's queue depth (pieces of work queued or running) "
    "against time from its window's start, each panel in its own units."
)

# What one sync cost (sync_cost_markdown), part by part.
NO_SYNC_LISTED = "No blocking sync is listed in these traces."
SYNC_COST_OVER = (
    "Over {calls} (blocking copies not included) listed in {files} trace file(s) ({sources}): "
    "host time blocked per call median {median} us, mean {mean} us, p90 {p90} us."
)
SYNC_COST_IDLE = (
    "With (almost) nothing queued on the GPU (less than {idle_queued:g} us of GPU work during the "
    "call), {calls}: median {median} us per call, the price of the synchronisation itself."
)
SYNC_COST_FIT = (
    "Least squares over those {n} calls: blocked = {base} us (95% CI {base_lo} to {base_hi}) + "
    "{slope:.3f} (95% CI {slope_lo:.3f} to {slope_hi:.3f}) x GPU work queued ahead (us); "
    "R^2 = {r2:.3f}, n = {n}. The constant is what a sync costs with nothing queued; the slope is "
    "the host time each microsecond of queued GPU work adds (above 1: the call also waited "
    "through GPU idle gaps, e.g. work on other streams or not yet launched). Ordinary least "
    "squares: the longest calls weigh most."
)
NEGATIVE_SLOPE = (
    " The slope is negative, which no queue explains: the line does not describe these calls."
)
NEGATIVE_BASE = (
    " The constant is negative, which no call can cost: the longest calls pull the line, so it "
    "is not a price; the median with nothing queued (above) is."
)
TOO_FEW_FOR_FIT = (
    "n = {n}: too few calls for a fit of the growth with queued GPU work to mean anything (a line "
    "through fewer than {min_n} points swings with any one of them); not shown"
)
ONE_QUEUE_LENGTH = "every sync had the same GPU work queued: the growth with it cannot be fitted"


def cause_line(c):
    """'aten::item — 16 calls, 559 us blocked, 0.4% of the steps' (calls: API calls)."""
    return (
        f"{c['op']} — {plural(c['calls'], 'call')}, {fmt_us(c['blocked_us'])} us blocked, "
        f"{fmt_share(c['share_of_steps'])} of the steps"
    )


def blocking_line(s):
    """The host calls of a window, one figure each: 'synchronisation 1497 us (21 calls), ...'."""
    r = s["blocking_copies_by_reason"]
    why = ", ".join(f"{r[k]['calls']} {k}" for k in COPY_REASONS if r[k]["calls"])
    return (
        f"blocked in synchronisation {fmt_us(s['sync_api_us'])} us ({plural(s['syncs'], 'call')}), "
        f"in blocking copies {fmt_us(s['blocking_copy_us'])} us ({plural(s['blocking_copies'], 'call')}"
        + (f": {why}" if why else "")
        + f"); non-blocking copy calls {fmt_us(s['nonblocking_copy_us'])} us "
        f"({plural(s['nonblocking_copies'], 'call')})"
    )


def fit_note(cost):
    """Why a sync cost comes without its fit ('' when it has one)."""
    if cost.too_few_for_fit:
        return TOO_FEW_FOR_FIT.format(n=cost.n, min_n=stats.MIN_FIT_N)
    if cost.one_queue_length:
        return ONE_QUEUE_LENGTH
    return ""


def sync_cost_markdown(cost):
    """Lines the main report can place beside the article's 46 us per call."""
    if cost is None:
        return [NO_SYNC_LISTED]
    lines = [
        SYNC_COST_OVER.format(
            calls=plural(cost.n, "synchronisation call"),
            files=len(cost.sources),
            sources=", ".join(cost.sources),
            median=fmt_us(cost.median_blocked_us),
            mean=fmt_us(cost.mean_blocked_us),
            p90=fmt_us(cost.p90_blocked_us),
        )
    ]
    if cost.idle_n:
        lines.append(
            SYNC_COST_IDLE.format(
                idle_queued=stats.IDLE_QUEUED_US,
                calls=plural(cost.idle_n, "call"),
                median=fmt_us(cost.idle_median_blocked_us),
            )
        )
    if not cost.fit:
        return lines + [fit_note(cost) + "."]
    f = cost.fit
    (lo, hi), (slo, shi) = f.interval("base_us"), f.interval("per_queued_us")
    text = SYNC_COST_FIT.format(
        n=f.n,
        base=fmt_us(f.value("base_us")),
        base_lo=fmt_us(lo),
        base_hi=fmt_us(hi),
        slope=f.value("per_queued_us"),
        slope_lo=slo,
        slope_hi=shi,
        r2=f.r2,
    )
    text += NEGATIVE_SLOPE if f.value("per_queued_us") < 0 else ""
    text += NEGATIVE_BASE if f.value("base_us") < 0 else ""
    return lines + [text]


def step_caption(trace):
    """The caption under a step plot, in the unit its axes use (the table below it is in us)."""
    unit = plots.axis_unit(trace)[1]
    gpu = CAPTION_GPU if trace["gpu_events"] else CAPTION_NO_GPU
    return f"{CAPTION_HOST} {gpu} Both axes in {unit}."


def step_table_notes(trace):
    """What the step table's rows mean, and why a figure in it can be negative."""
    lines = ["", STEP_TABLE_IDENTITY]
    if trace["steps"]:
        lines.append(OUTSIDE_THE_STEPS)
    if any(s["host_rest_us"] < 0 for _, s in stats.table_windows(trace)):
        lines.append(NEGATIVE_HOST_REST)
    if stats.negative_idle_outside_steps(trace):
        lines += ["", NEGATIVE_IDLE_OUTSIDE]
    return lines


def blocking_intro(trace):
    totals = trace["blocking_calls"]
    return BLOCKING_INTRO.format(
        syncs=plural(totals["syncs"], "synchronisation call"),
        sync_us=fmt_us(totals["sync_us"]),
        copies=plural(totals["blocking_copies"], "blocking copy call"),
        copy_us=fmt_us(totals["blocking_copy_us"]),
        blocked_us=fmt_us(totals["blocked_us"]),
    )


def by_call_line(trace):
    """'By call: cudaStreamSynchronize (sync) 3 calls, 120 us blocked; ...'."""
    return (
        "By call: "
        + "; ".join(
            f"{api} {plural(n, 'call')}, {fmt_us(us)} us blocked"
            for api, (n, us) in stats.blocked_by_call(trace)
        )
        + "."
    )


def page_head(trace, source):
    """The title and the line that says where the page's figures come from."""
    return [
        f"# Where the time goes: `{os.path.basename(trace['file'])}`",
        "",
        f"Trace `{trace['file']}`, rank {trace['rank']}"
        + (f", clock {trace['clock']}" if trace.get("clock") else "")
        + f"; read by `./attribute` ({source}); page written by `analysis/trace_report.py`.",
        "",
    ]


def whole_trace_line(trace):
    """The whole trace in one line: wall, launches, kernels, GPU busy and the blocking calls."""
    t = trace["total"]
    steps_note = (
        f"{len(trace['steps'])} ProfilerStep windows"
        if trace["steps"]
        else "no ProfilerStep: the whole trace is one window"
    )
    return (
        f"{steps_note}; over the whole trace: wall {fmt_us(t['wall_us'])} us, launch calls "
        f"{fmt_us(t['launch_api_us'])} us ({plural(t['launches'], 'call')}), {t['kernels']} kernels "
        f"({fmt_us(t['kernel_us'])} us of GPU time), GPU busy {fmt_us(t['gpu_busy_us'])} us; host "
        f"{blocking_line(t)}. Blocked in all: {fmt_us(t['blocked_us'])} us "
        f"({fmt_share(stats.share(t['blocked_us'], t['wall_us']))} of the wall)."
    )


def paragraphs(lines):
    """Markdown paragraphs: a blank line between consecutive lines."""
    out = []
    for line in lines:
        out += [line, ""]
    return out[:-1]


def _threshold(x):
    """A rule's share as it was set (0.25 -> '25%'), not as a measured figure."""
    return f"{100 * x:g}%"


def regime_gpu(g):
    return REGIME_GPU.format(
        device=g["device"],
        empty=fmt_share(g["empty_share"]),
        p50=g["depth_p50"],
        p90=g["depth_p90"],
    )


def regime_line(trace):
    """The trace's regime with each GPU's figures, and the rule with the file's thresholds."""
    q = trace["total"]["queue"]
    gpus = "; ".join(regime_gpu(g) for g in stats.queue_gpus(q)) or NO_GPU_QUEUE
    line = REGIME_LINE.format(regime=q["regime"], gpus=gpus)
    if not q["gpus"]:
        return line
    r = trace["queue_rule"]
    line += " " + REGIME_RULE.format(
        launch=_threshold(r["launch_bound_empty_share"]),
        gpu=_threshold(r["gpu_bound_empty_share"]),
        depth=r["gpu_bound_median_depth"],
    )
    return line + (REGIME_PER_STEP if trace["steps"] else "")


def queue_caption(trace):
    """The line under a queue plot, in the unit its time axis uses."""
    gpus = stats.timeline_gpus(trace)
    return QUEUE_CAPTION.format(
        window=plots.timeline_window(trace),
        unit=plots.timeline_unit(trace)[1],
        deepest=max(max(g["depth"]) for g in gpus),
        cut=QUEUE_CUT if any(g["truncated"] for g in gpus) else "",
    )


def queue_figure_lines(figure, deep, empty):
    """The index's paragraph and caption around the deep-against-empty queue figure; deep and
    empty are (stem, trace), their figures those of the GPU the regime was read from."""

    def case(trace):
        q = trace["total"]["queue"]
        g = stats.busiest_gpu(q)
        return QUEUE_FIGURE_CASE.format(
            regime=q["regime"],
            device=g["device"],
            empty=fmt_share(g["empty_share"]),
            p50=g["depth_p50"],
        )

    (ds, dt), (es, et) = deep, empty
    return [
        QUEUE_FIGURE_TEXT.format(
            figure=figure, deep=ds, deep_case=case(dt), empty=es, empty_case=case(et)
        ),
        "",
        f"![launch-queue depth, deep against empty]({figure})",
        "",
        QUEUE_FIGURE_CAPTION.format(deep=ds, empty=es),
    ]
