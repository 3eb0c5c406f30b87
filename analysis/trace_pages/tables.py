"""The tables of the trace pages, as Markdown lines: per step, by blocking cause, and the index."""

from analysis.fmt import fmt_share, fmt_us
from analysis.tables import markdown_table
from analysis.trace_pages import prose, stats

STEP_HEADER = [
    "step",
    "wall us",
    "launches",
    "launch calls us",
    "syncs",
    "sync us",
    "blocking copies",
    "blocking copy us",
    "rest of host us",
    "kernels",
    "kernel us",
    "GPU busy us",
    "idle host wait us",
    "idle kernel wait us",
    "idle other us",
    "launch delay p50/p90 us",
    "regime",
]


def _launch_delay(s):
    ld = s.get("launch_delay_us", {})
    if ld.get("count") and "p50" in ld and "p90" in ld and ld["p50"] is not None:
        return f"{fmt_us(ld['p50'])} / {fmt_us(ld['p90'])}"
    return "-"


def _step_cells(name, s, delay=True):
    """One row; `outside the steps` (delay=False) is a difference of windows, with no launch
    delays and no queue of its own."""
    return [
        name,
        fmt_us(s["wall_us"]),
        str(s["launches"]),
        fmt_us(s["launch_api_us"]),
        str(s["syncs"]),
        fmt_us(s["sync_api_us"]),
        str(s["blocking_copies"]),
        fmt_us(s["blocking_copy_us"]),
        fmt_us(s["host_rest_us"]),
        str(s["kernels"]),
        fmt_us(s["kernel_us"]),
        fmt_us(s["gpu_busy_us"]),
        fmt_us(s["idle_host_wait_us"]),
        fmt_us(s["idle_kernel_wait_us"]),
        fmt_us(s["idle_other_us"]),
        _launch_delay(s) if delay else "-",
        s["queue"]["regime"] if delay else "-",
    ]


def step_table(trace):
    """The per-step table. With ProfilerSteps, a row `outside the steps` (the whole trace minus
    the steps) comes before the whole trace, so that the rows add up to it."""
    rows = [_step_cells(name, s) for name, s in stats.step_rows(trace)]
    if trace["steps"]:
        rows.append(_step_cells("outside the steps", stats.outside_steps(trace), delay=False))
        rows.append(_step_cells("**whole trace**", trace["total"]))
    return markdown_table(STEP_HEADER, rows)


CAUSE_HEADER = [
    "op",
    "calls",
    "op occurrences",
    "sync us",
    "blocking copy us",
    "blocked us",
    "us per call",
    "share of the steps",
    "GPU work queued us",
]


def cause_table(trace):
    """The blocking calls grouped by the op that issued them, with a total row."""
    causes, totals = trace["syncs_by_cause"], trace["blocking_calls"]
    rows = [
        [
            c["op"],
            str(c["calls"]),
            str(c["op_occurrences"]),
            fmt_us(c["sync_us"]),
            fmt_us(c["blocking_copy_us"]),
            fmt_us(c["blocked_us"]),
            fmt_us(c["blocked_us"] / c["calls"]) if c["calls"] else "-",
            fmt_share(c["share_of_steps"]),
            fmt_us(c["gpu_queued_us"]),
        ]
        for c in causes
    ]
    rows.append(
        [
            "**total**",
            str(sum(c["calls"] for c in causes)),
            str(sum(c["op_occurrences"] for c in causes)),
            fmt_us(totals["sync_us"]),
            fmt_us(totals["blocking_copy_us"]),
            fmt_us(totals["blocked_us"]),
            "",
            fmt_share(sum(c["share_of_steps"] for c in causes)),
            fmt_us(sum(c["gpu_queued_us"] for c in causes)),
        ]
    )
    return markdown_table(CAUSE_HEADER, rows)


INDEX_HEADER = [
    "trace",
    "rank",
    "steps",
    "GPU events",
    "regime",
    "wall us",
    "syncs",
    "sync us",
    "blocking copies",
    "blocking copy us",
    "median us per sync",
    "costliest blocking cause",
]


def index_table(entries):
    """One row per trace page: entries are (page stem, trace) pairs."""
    rows = []
    for stem, trace in entries:
        t = trace["total"]
        top = prose.cause_line(trace["syncs_by_cause"][0]) if trace["syncs_by_cause"] else "none"
        rows.append(
            [
                f"[{stem}]({stem}.md)",
                str(trace["rank"]),
                str(len(trace["steps"])),
                "yes" if trace["gpu_events"] else "no",
                t["queue"]["regime"],
                fmt_us(t["wall_us"]),
                str(t["syncs"]),
                fmt_us(t["sync_api_us"]),
                str(t["blocking_copies"]),
                fmt_us(t["blocking_copy_us"]),
                fmt_us(stats.median_sync_us(trace)),
                top,
            ]
        )
    return markdown_table(INDEX_HEADER, rows)
