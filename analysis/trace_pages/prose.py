"""The words the trace pages add to ./attribute's own text: the plots' captions and what one
sync cost (a fit only Python makes; the main report uses it too). Fixed text is kept as data."""

from analysis.fmt import fmt_share, fmt_us, plural
from analysis.trace_pages import plots, stats

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
INDEX_INTRO = (
    "One page per trace (a folder of ranks: one page): `./attribute`'s text as it prints it, "
    "the plots drawn from its `--json`, and what one synchronisation call cost. Written by "
    "`python -m analysis.trace_report`; replayed, and what if the syncs went: [replay.md](replay.md)."
)
INDEX_DEFINITIONS = (
    "Syncs: *Synchronize calls; blocking copies: copy calls that hold the host (without Async, or with "
    "pageable host memory). Both over the whole trace; calls count API calls."
)

# The launch queue and its regime (from each window's `queue` and the file's `queue_rule`).
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
    "for the host, so a sync has nothing to wait out and costs only its own time (below, with "
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
    "call), {calls}: median {median} us per call{pool}: the synchronisation's own time in "
    "{these}."
)
SYNC_COST_FIT = (
    "Least squares over those {n} calls: blocked = {base} us (95% CI {base_lo} to {base_hi}) + "
    "{slope:.3f} (95% CI {slope_lo:.3f} to {slope_hi:.3f}) x GPU work queued ahead (us); "
    "R^2 = {r2:.3f}, n = {n}; the intervals treat the calls as independent, which calls of one "
    "program on one GPU are not, so they are too narrow. The constant is what a sync costs with nothing queued; the slope is "
    "the host time each microsecond of queued GPU work adds (above 1: the call also waited "
    "through GPU idle gaps, e.g. work on other streams or not yet launched). Ordinary least "
    "squares: the longest calls weigh most."
)
NEGATIVE_SLOPE = (
    " The slope is negative, which no queue explains: the line does not describe these calls."
)
NEGATIVE_BASE = (
    " The constant is negative, which no call can cost: the longest calls pull the line, so it "
    "does not tell what a sync costs with nothing queued; the median of those calls (above) does."
)
TOO_FEW_FOR_FIT = (
    "n = {n}: too few calls for a fit of the growth with queued GPU work to mean anything (a line "
    "through fewer than {min_n} points swings with any one of them); not shown"
)
ONE_QUEUE_LENGTH = "every sync had the same GPU work queued: the growth with it cannot be fitted"


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
                pool=(
                    f", pooled over the {len(cost.sources)} traces (one median of one pool, no spread)"
                    if len(cost.sources) > 1
                    else " (one median, no spread)"
                ),
                these="these traces" if len(cost.sources) > 1 else "this trace",
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


def paragraphs(lines):
    """Markdown paragraphs: a blank line between consecutive lines."""
    out = []
    for line in lines:
        out += [line, ""]
    return out[:-1]


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
