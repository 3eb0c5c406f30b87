"""Pages from `./attribute --json` output: one Markdown page per trace (a per-step stacked plot
of where the step's time went, the per-step table, the syncs grouped by the op that caused them)
and an index page; plus `sync_cost`, what one blocking sync cost on the traced GPUs, for the
main report.

    python -m analysis.trace_report ATTRIBUTE_JSON... [--out results/traces/]

Every input file is read and checked before anything is written, so bad input (not JSON, a
missing or mistyped field) exits 2 with a message naming the file and the field, and leaves the
pages already in --out as they were. Each page and plot is written to a temporary file and
renamed. The schema is the one `./attribute --json` writes (tool "attribute", version 2).

One definition per figure (src/trace/analyze/blocking_calls.h): "synchronisation" is the
*Synchronize calls; "blocking copies" the copy calls that hold the host (a call without Async,
or an Async copy with pageable host memory); "non-blocking copy calls" the rest; "blocked" the
first two together. Every table's rows add up to the total it prints (checked here: a page is
not written when they do not), and "calls" counts API calls everywhere.
"""

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass

import numpy as np

from analysis.fit import ols
from analysis.tables import markdown_table, write_atomic


class TraceJsonError(ValueError):
    """Bad input: the message names the file and the field."""


SCHEMA_VERSION = 2
STEP_NUMBERS = (
    "wall_us",
    "launch_api_us",
    "kernel_us",
    "gpu_busy_us",
    "sync_api_us",
    "blocking_copy_us",
    "nonblocking_copy_us",
    "memcpy_api_us",
    "blocked_us",
    "host_rest_us",
    "idle_host_wait_us",
    "idle_kernel_wait_us",
    "idle_other_us",
)
STEP_COUNTS = ("launches", "kernels", "memsets", "syncs", "blocking_copies", "nonblocking_copies")
CAUSE_FIELDS = (
    ("op", str),
    ("calls", int),
    ("op_occurrences", int),
    ("sync_us", float),
    ("blocking_copy_us", float),
    ("blocked_us", float),
    ("share_of_steps", float),
    ("gpu_queued_us", float),
)
SYNC_FIELDS = (
    ("api", str),
    ("kind", str),
    ("start_us", float),
    ("blocked_us", float),
    ("gpu_queued_us", float),
)
BLOCKING_FIELDS = (
    ("syncs", int),
    ("sync_us", float),
    ("blocking_copies", int),
    ("blocking_copy_us", float),
    ("blocked_us", float),
)
COPY_REASONS = ("not Async", "pageable")
KIND_SYNC = "sync"


# ---- reading, with every field checked ---------------------------------------------------


def _get(path, obj, key, kind, where):
    if not isinstance(obj, dict):
        raise TraceJsonError(f"{path}: {where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise TraceJsonError(f"{path}: {where}: missing field '{key}'")
    v = obj[key]
    if kind is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise TraceJsonError(
                f"{path}: {where}: field '{key}' must be a finite number, got {v!r}"
            )
        return float(v)
    if kind is int:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise TraceJsonError(
                f"{path}: {where}: field '{key}' must be a count (integer >= 0), got {v!r}"
            )
        return v
    if not isinstance(v, kind):
        raise TraceJsonError(f"{path}: {where}: field '{key}' must be {kind.__name__}, got {v!r}")
    return v


def _check_step(path, s, where):
    for k in STEP_NUMBERS:
        _get(path, s, k, float, where)
    for k in STEP_COUNTS:
        _get(path, s, k, int, where)
    _get(path, s, "launch_delay_us", dict, where)
    _get(path, s, "memcpy_by_kind", dict, where)
    reasons = _get(path, s, "blocking_copies_by_reason", dict, where)
    for r in COPY_REASONS:
        _get(path, reasons, r, dict, f"{where}.blocking_copies_by_reason")
        _get(path, reasons[r], "calls", int, f"{where}.blocking_copies_by_reason.{r}")
        _get(path, reasons[r], "us", float, f"{where}.blocking_copies_by_reason.{r}")


def _check_trace(path, t, where):
    for key, kind in (
        ("file", str),
        ("rank", int),
        ("gpu_events", bool),
        ("steps", list),
        ("total", dict),
        ("blocking_calls", dict),
        ("syncs_by_cause", list),
        ("syncs", list),
        ("unmatched_correlations", int),
        ("warnings", list),
    ):
        _get(path, t, key, kind, where)
    for k, kind in BLOCKING_FIELDS:
        _get(path, t["blocking_calls"], k, kind, f"{where}.blocking_calls")
    for i, s in enumerate(t["steps"]):
        _check_step(path, s, f"{where}.steps[{i}]")
        _get(path, s, "name", str, f"{where}.steps[{i}]")
        _get(path, s, "start_us", float, f"{where}.steps[{i}]")
    _check_step(path, t["total"], f"{where}.total")
    for i, c in enumerate(t["syncs_by_cause"]):
        for k, kind in CAUSE_FIELDS:
            _get(path, c, k, kind, f"{where}.syncs_by_cause[{i}]")
    for i, s in enumerate(t["syncs"]):
        for k, kind in SYNC_FIELDS:
            _get(path, s, k, kind, f"{where}.syncs[{i}]")
        if "op" not in s:
            raise TraceJsonError(f"{path}: {where}.syncs[{i}]: missing field 'op'")


def load(path):
    """The document of one `./attribute --json` file, every field used here checked."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise TraceJsonError(f"{path}: cannot read: {e.strerror}") from e
    except ValueError as e:
        raise TraceJsonError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(doc, dict) or doc.get("tool") != "attribute":
        raise TraceJsonError(
            f'{path}: expected `./attribute --json` output (an object with "tool": "attribute")'
        )
    if doc.get("version") != SCHEMA_VERSION:
        raise TraceJsonError(
            f"{path}: field 'version' must be {SCHEMA_VERSION} (rerun ./attribute --json), "
            f"got {doc.get('version')!r}"
        )
    traces = _get(path, doc, "traces", list, "top level")
    for i, t in enumerate(traces):
        _check_trace(path, t, f"traces[{i}]")
    return doc


# ---- figures ------------------------------------------------------------------------------


def step_rows(trace):
    """The steps to plot: the ProfilerStep windows, or the whole trace when it has none."""
    if trace["steps"]:
        return [(s["name"], s) for s in trace["steps"]]
    return [("whole trace", trace["total"])]


HOST_PARTS = [
    ("launch_api_us", "launch calls"),
    ("sync_api_us", "blocked in synchronisation"),
    ("blocking_copy_us", "blocking copies"),
]
GPU_PARTS = [
    ("gpu_busy_us", "GPU busy (kernels + copies, union)"),
    ("idle_host_wait_us", "idle: host wait"),
    ("idle_kernel_wait_us", "idle: kernel wait"),
    ("idle_other_us", "idle: other"),
]


def host_other_us(s):
    """Host time of the step outside launch calls, syncs and blocking copies (the CPU's own work
    and every other call, non-blocking copies included); ./attribute's host_rest_us. Negative
    when calls on several threads overlap: the bars then show 0 and the page says so."""
    return s["host_rest_us"]


def gpu_unaccounted_us(s):
    """Step wall time the GPU split does not cover (0 when busy + idle add up to the wall)."""
    return max(s["wall_us"] - sum(s[k] for k, _ in GPU_PARTS), 0.0)


def share(part, whole):
    return part / whole if whole > 0 else 0.0


def fmt_us(v):
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"


def fmt_pct(x):
    p = 100 * x
    return f"{p:.1f}%" if p >= 0.1 or p == 0 else f"{p:.2g}%"


def plural(n, word):
    return f"{n} {word}{'s' if n != 1 else ''}"


def cause_line(c):
    """'aten::item — 16 calls, 559 us blocked, 0.4% of the steps' (calls: API calls)."""
    return (
        f"{c['op']} — {plural(c['calls'], 'call')}, {fmt_us(c['blocked_us'])} us blocked, "
        f"{fmt_pct(c['share_of_steps'])} of the steps"
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


class TablesDoNotAddUp(ValueError):
    """A page would print rows that do not add up to the total beside them."""


def check_adds_up(rows, total, what, tol_us=0.01):
    if abs(sum(rows) - total) > tol_us * max(1, len(rows)):
        raise TablesDoNotAddUp(f"{what}: the rows add up to {sum(rows)}, the total is {total}")


IDLE_QUEUED_US = 1.0  # below this much queued GPU work, a sync's cost is the sync itself
MIN_FIT_N = 5  # a straight line through 3 or 4 calls says nothing (its slope swings with one call)


@dataclass
class SyncCost:
    """What one blocking sync cost: over the listed syncs of one or more traces."""

    n: int
    sources: list
    median_blocked_us: float
    mean_blocked_us: float
    p90_blocked_us: float
    idle_n: int = 0  # syncs with (almost) no GPU work queued: gpu_queued_us < IDLE_QUEUED_US
    idle_median_blocked_us: float = float("nan")
    fit: object = None  # analysis.fit.Fit of blocked_us = base_us + per_queued_us * gpu_queued_us
    note: str = ""

    def base_us(self):
        return self.fit.value("base_us") if self.fit else float("nan")

    def per_queued(self):
        return self.fit.value("per_queued_us") if self.fit else float("nan")


def sync_cost(docs):
    """Host time per synchronisation call and how it grows with the GPU work queued ahead of it.

    docs: (name, attribute document) pairs. Over the listed calls of kind "sync" (blocking copies
    are not syncs: their host time is also the copy itself). Fits blocked_us = base_us +
    per_queued_us x gpu_queued_us by least squares, with 95% intervals, when there are at least
    MIN_FIT_N calls: base_us is what a sync costs the host with nothing queued, per_queued_us how
    many microseconds of host time each microsecond of queued GPU work adds (1 when the host
    simply waits it out). Returns None when no sync is listed."""
    blocked, queued, sources = [], [], []
    for name, doc in docs:
        n0 = len(blocked)
        for t in doc["traces"]:
            for s in t["syncs"]:
                if s["kind"] != KIND_SYNC:
                    continue
                blocked.append(s["blocked_us"])
                queued.append(s["gpu_queued_us"])
        if len(blocked) > n0:
            sources.append(f"{name} ({len(blocked) - n0})")
    if not blocked:
        return None
    b = np.asarray(blocked, float)
    q = np.asarray(queued, float)
    cost = SyncCost(
        len(b), sources, float(np.median(b)), float(b.mean()), float(np.percentile(b, 90))
    )
    idle = b[q < IDLE_QUEUED_US]
    cost.idle_n = int(idle.size)
    if idle.size:
        cost.idle_median_blocked_us = float(np.median(idle))
    if len(b) < MIN_FIT_N:
        cost.note = (
            f"n = {len(b)}: too few calls for a fit of the growth with queued GPU work to mean "
            f"anything (a line through fewer than {MIN_FIT_N} points swings with any one of them); not shown"
        )
    elif np.ptp(q) == 0:
        cost.note = "every sync had the same GPU work queued: the growth with it cannot be fitted"
    else:
        cost.fit = ols(np.column_stack([np.ones_like(q), q]), b, ["base_us", "per_queued_us"])
    return cost


def sync_cost_markdown(cost):
    """Lines the main report can place beside the article's 46 us per call."""
    if cost is None:
        return ["No blocking sync is listed in these traces."]
    lines = [
        f"Over {plural(cost.n, 'synchronisation call')} (blocking copies not included) listed in {len(cost.sources)} "
        f"trace file(s) ({', '.join(cost.sources)}): host time blocked per call median "
        f"{fmt_us(cost.median_blocked_us)} us, mean {fmt_us(cost.mean_blocked_us)} us, p90 {fmt_us(cost.p90_blocked_us)} us."
    ]
    if cost.idle_n:
        lines.append(
            f"With (almost) nothing queued on the GPU (less than {IDLE_QUEUED_US:g} us of GPU work "
            f"during the call), {plural(cost.idle_n, 'call')}: median {fmt_us(cost.idle_median_blocked_us)} us "
            "per call, the price of the synchronisation itself."
        )
    if cost.fit:
        f = cost.fit
        lo, hi = f.interval("base_us")
        slo, shi = f.interval("per_queued_us")
        lines.append(
            f"Least squares over those {f.n} calls: blocked = {fmt_us(f.value('base_us'))} us "
            f"(95% CI {fmt_us(lo)} to {fmt_us(hi)}) + {f.value('per_queued_us'):.3f} "
            f"(95% CI {slo:.3f} to {shi:.3f}) x GPU work queued ahead (us); R^2 = {f.r2:.3f}, "
            f"n = {f.n}. The constant is what a sync costs with nothing queued; the slope is "
            "the host time each microsecond of queued GPU work adds (above 1: the call also "
            "waited through GPU idle gaps, e.g. work on other streams or not yet launched). Ordinary "
            "least squares: the longest calls weigh most."
            + (
                " The slope is negative, which no queue explains: the line does not describe these calls."
                if f.value("per_queued_us") < 0
                else ""
            )
            + (
                " The constant is negative, which no call can cost: the longest calls pull the line, so it "
                "is not a price; the median with nothing queued (above) is."
                if f.value("base_us") < 0
                else ""
            )
        )
    else:
        lines.append(cost.note + ".")
    return lines


# ---- pages --------------------------------------------------------------------------------


def page_stem(file, taken):
    """File name of a trace's page: the trace's name without .json[.gz]; a per-rank file
    (rank-0.json.gz) gets its folder's name in front; a clash gets a number."""
    base = os.path.basename(file)
    base = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", base)
    if re.match(r"^rank[-_]?\d+", base):
        base = f"{os.path.basename(os.path.dirname(file)) or 'trace'}-{base}"
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base) or "trace"
    stem, k = base, 2
    while stem in taken:
        stem, k = f"{base}-{k}", k + 1
    taken.add(stem)
    return stem


ADDITIVE = STEP_NUMBERS + STEP_COUNTS  # figures that add up over disjoint windows


def step_table(trace):
    """The per-step table. With ProfilerSteps, a row `outside the steps` (the whole trace minus
    the steps) comes before the whole trace, so that the rows add up to it."""
    header = [
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
    ]

    def cells(name, s, delay=True):
        ld = s.get("launch_delay_us", {})
        d = (
            f"{fmt_us(ld['p50'])} / {fmt_us(ld['p90'])}"
            if delay and ld.get("count") and "p50" in ld and "p90" in ld and ld["p50"] is not None
            else "-"
        )
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
            d,
        ]

    rows = [cells(name, s) for name, s in step_rows(trace)]
    if trace["steps"]:
        rows.append(cells("outside the steps", outside_steps(trace), delay=False))
        rows.append(cells("**whole trace**", trace["total"]))
    lines = markdown_table(header, rows)
    lines += [
        "",
        "Each row: wall = launch calls + sync + blocking copies + rest of host (the CPU's own work and "
        "every other call, non-blocking copy calls included), and, where the trace has GPU events, wall = "
        "GPU busy + the three idle columns.",
    ]
    if trace["steps"]:
        lines += [
            "With steps, the row `outside the steps` is the whole trace minus the steps (the time before, "
            "between and after them), so the step rows and it add up to the whole-trace row."
        ]
    windows = step_rows(trace) + (
        [("", outside_steps(trace)), ("", trace["total"])] if trace["steps"] else []
    )
    if any(s["host_rest_us"] < 0 for _, s in windows):
        lines += [
            "A negative rest of host: calls on several threads overlap, so together they hold the host for "
            "longer than the wall time (the plot draws it as 0)."
        ]
    return lines


def outside_steps(trace):
    """The whole trace minus its ProfilerSteps, figure by figure: the time before, between and
    after the steps."""
    return {k: trace["total"][k] - sum(s[k] for s in trace["steps"]) for k in ADDITIVE}


def step_table_note(trace):
    """Why an `outside the steps` figure can be negative: only the idle split by cause can."""
    out = outside_steps(trace) if trace["steps"] else {}
    negative = [
        k
        for k in ("idle_host_wait_us", "idle_kernel_wait_us", "idle_other_us")
        if out.get(k, 0) < 0
    ]
    if not negative:
        return []
    return [
        "",
        "A negative idle figure `outside the steps`: the whole trace classifies each GPU idle gap once, "
        "whole, while each step classifies the part of a gap inside it, so a gap that crosses a step boundary "
        "can fall under another cause; the idle figures still add up to the same total.",
    ]


def sync_tables(trace):
    causes, totals = trace["syncs_by_cause"], trace["blocking_calls"]
    if not causes:
        return ["No blocking call (synchronisation or blocking copy) in this trace."]
    for key, field in (
        ("sync_us", "sync_us"),
        ("blocking_copy_us", "blocking_copy_us"),
        ("blocked_us", "blocked_us"),
    ):
        check_adds_up(
            [c[key] for c in causes], totals[field], f"{trace['file']}: syncs_by_cause {key}"
        )
    check_adds_up(
        [s["blocked_us"] for s in trace["syncs"]], totals["blocked_us"], f"{trace['file']}: syncs"
    )
    lines = [
        f"Every call that held the host until the GPU caught up: {plural(totals['syncs'], 'synchronisation call')} "
        f"({fmt_us(totals['sync_us'])} us) and {plural(totals['blocking_copies'], 'blocking copy call')} "
        f"({fmt_us(totals['blocking_copy_us'])} us), {fmt_us(totals['blocked_us'])} us in all, the same calls "
        "as the table above. Grouped by the innermost `cpu_op` that issued the call on the same thread, most "
        "costly first (calls: API calls; op occurrences: how many times the op ran and blocked, e.g. one "
        "`.item()` blocks in a copy and a sync):",
        "",
    ]
    lines += [f"- {cause_line(c)}" for c in causes]
    lines.append("")
    rows = [
        [
            c["op"],
            str(c["calls"]),
            str(c["op_occurrences"]),
            fmt_us(c["sync_us"]),
            fmt_us(c["blocking_copy_us"]),
            fmt_us(c["blocked_us"]),
            fmt_us(c["blocked_us"] / c["calls"]) if c["calls"] else "-",
            fmt_pct(c["share_of_steps"]),
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
            fmt_pct(sum(c["share_of_steps"] for c in causes)),
            fmt_us(sum(c["gpu_queued_us"] for c in causes)),
        ]
    )
    lines += markdown_table(
        [
            "op",
            "calls",
            "op occurrences",
            "sync us",
            "blocking copy us",
            "blocked us",
            "us per call",
            "share of the steps",
            "GPU work queued us",
        ],
        rows,
    )
    by_api = {}
    for s in trace["syncs"]:
        label = s["api"] + (
            f" ({s['kind']}, {s['reason']})" if s.get("reason") else f" ({s['kind']})"
        )
        a = by_api.setdefault(label, [0, 0.0])
        a[0] += 1
        a[1] += s["blocked_us"]
    lines += [
        "",
        "By call: "
        + "; ".join(
            f"{api} {plural(n, 'call')}, {fmt_us(us)} us blocked"
            for api, (n, us) in sorted(by_api.items(), key=lambda kv: -kv[1][1])
        )
        + ".",
    ]
    return lines


def trace_page(trace, stem, plot_name, source):
    t = trace["total"]
    lines = [
        f"# Where the time goes: `{os.path.basename(trace['file'])}`",
        "",
        f"Trace `{trace['file']}`, rank {trace['rank']}"
        + (f", clock {trace['clock']}" if trace.get("clock") else "")
        + f"; read by `./attribute` ({source}); page written by `analysis/trace_report.py`.",
        "",
    ]
    if not trace["gpu_events"]:
        lines += ["**No GPU events in this trace: host figures only.**", ""]
    steps_note = (
        f"{len(trace['steps'])} ProfilerStep windows"
        if trace["steps"]
        else "no ProfilerStep: the whole trace is one window"
    )
    lines += [
        f"{steps_note}; over the whole trace: wall {fmt_us(t['wall_us'])} us, launch calls "
        f"{fmt_us(t['launch_api_us'])} us ({plural(t['launches'], 'call')}), {t['kernels']} kernels "
        f"({fmt_us(t['kernel_us'])} us of GPU time), GPU busy {fmt_us(t['gpu_busy_us'])} us; host "
        f"{blocking_line(t)}. Blocked in all: {fmt_us(t['blocked_us'])} us "
        f"({fmt_pct(share(t['blocked_us'], t['wall_us']))} of the wall).",
        "",
    ]
    if trace["unmatched_correlations"]:
        lines += [
            f"{trace['unmatched_correlations']} correlation ids matched no event on the other side "
            "(counted, not attributed).",
            "",
        ]
    if trace["warnings"]:
        lines += ["Warnings from `./attribute`:", ""] + [f"- {w}" for w in trace["warnings"]] + [""]
    lines += ["## Per step", "", f"![per-step breakdown]({plot_name})", "", step_caption(trace), ""]
    lines += step_table(trace) + step_table_note(trace)
    lines += ["", "## Blocking calls and what caused them", ""] + sync_tables(trace)
    cost = sync_cost([(stem, {"traces": [trace]})])
    if cost:
        lines += ["", "### What one synchronisation call cost here", ""] + paragraphs(
            sync_cost_markdown(cost)
        )
    return "\n".join(lines) + "\n"


def axis_unit(trace):
    """(us per unit, the unit's name) of a trace's step plot: the unit follows the steps'
    length, so the numbers on the axis stay short and need no offset."""
    longest = max(s["wall_us"] for _, s in step_rows(trace))
    return (
        (1e6, "s (seconds)")
        if longest >= 1e7
        else (1e3, "ms (milliseconds)")
        if longest >= 1e4
        else (1.0, "us (microseconds)")
    )


def step_caption(trace):
    """The caption under a step plot, in the unit its axes use (the table below it is in us)."""
    unit = axis_unit(trace)[1]
    gpu = (
        "Right: the GPU's view of the same window: busy (union over streams) and idle split by cause (host "
        "wait: nothing queued; kernel wait: short gaps between queued work; other)."
        if trace["gpu_events"]
        else "Right: empty, as the trace holds no GPU events."
    )
    return (
        f"Left: the host's step time: launch calls, blocked in synchronisation, blocking copies (copy calls "
        f"that hold the host: without Async, or with pageable host memory) and the rest (the CPU's own work and "
        f"every other call). {gpu} Both axes in {unit}."
    )


def _label_segments(fig, segments):
    """Writes each value inside its bar segment, only where the text fits inside it: a label
    wider than its segment would spill over the neighbours or the axis' tick labels.
    segments: (ax, bars, values) once every bar is drawn (the axes' limits, and so the bars'
    widths on screen, are known only after a draw)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax, bars, values in segments:
        _label_fitting(ax, bars, values, renderer)


def _label_fitting(ax, bars, values, renderer):
    for b, v in zip(bars, values):
        if v <= 0:
            continue
        text = ax.text(
            b.get_x() + b.get_width() / 2,
            b.get_y() + b.get_height() / 2,
            f"{v:,.0f}" if v >= 100 else f"{v:.3g}",
            ha="center",
            va="center",
            fontsize=7,
        )
        if text.get_window_extent(renderer).width > 0.9 * b.get_window_extent(renderer).width:
            text.remove()


def step_plot(trace, stem, path):
    """Two stacked horizontal bars per step: host time and GPU time, values on the bars."""
    from analysis.figures import plt, save_figure  # matplotlib only when a plot is drawn

    rows = step_rows(trace)
    labels = [name for name, _ in rows]
    scale, unit = axis_unit(trace)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 0.45 * len(rows) + 2.4), sharey=True)
    cmap = plt.get_cmap("tab10")

    segments = []

    def stack(ax, parts, title):
        left = np.zeros(len(rows))
        for i, (values, label, style) in enumerate(parts):
            w = np.array(values, float) / scale
            bars = ax.barh(labels, w, left=left, label=label, **style)
            segments.append((ax, bars, w))
            left += w
        ax.set_xlabel(f"{unit} in the step")
        ax.set_title(title)
        ax.grid(alpha=0.3, axis="x")
        ax.legend(
            fontsize=7,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.12 - 0.6 / (len(rows) + 3)),
            ncol=2,
        )

    host = [
        ([s[k] for _, s in rows], name, {"color": cmap(i)})
        for i, (k, name) in enumerate(HOST_PARTS)
    ]
    host.append(
        (
            [max(host_other_us(s), 0.0) for _, s in rows],
            "rest of host time (CPU's own work, other calls)",
            {"color": "lightgray"},
        )
    )
    stack(ax1, host, "Host: where the step's wall time went")
    if trace["gpu_events"]:
        gpu = [
            ([s[k] for _, s in rows], name, {"color": cmap(i + len(HOST_PARTS))})
            for i, (k, name) in enumerate(GPU_PARTS)
        ]
        if any(gpu_unaccounted_us(s) > 0 for _, s in rows):
            # Hatched and outlined, so that its legend swatch shows as well as its bars.
            gpu.append(
                (
                    [gpu_unaccounted_us(s) for _, s in rows],
                    "not covered by the GPU split",
                    {"facecolor": "white", "edgecolor": "gray", "hatch": "//"},
                )
            )
        stack(ax2, gpu, "GPU: busy and idle by cause")
    else:
        # No GPU events: an empty panel that says so, rather than a blank split with a number.
        ax2.set_title("GPU: busy and idle by cause")
        ax2.text(
            0.5,
            0.5,
            "no GPU events in this trace",
            transform=ax2.transAxes,
            ha="center",
            va="center",
        )
        ax2.set_xlabel(f"{unit} in the step")
        ax2.set_xlim(ax1.get_xlim())
    ax1.invert_yaxis()
    _label_segments(fig, segments)
    fig.suptitle(f"{stem}: per-step time breakdown (./attribute, rank {trace['rank']})", y=1.04)
    return save_figure(fig, path)


def index_page(entries, cost):
    lines = [
        "# Traces read by `./attribute`",
        "",
        "One page per trace: the per-step breakdown of host and GPU time and the blocking calls "
        "grouped by the op that caused them. Written by `python -m analysis.trace_report`.",
        "",
    ]
    lines += [
        "Replayed, and what if the syncs went, or came every N steps: [replay.md](replay.md) (`analysis/replay_report.py`).",
        "",
    ]
    rows = []
    for stem, trace in entries:
        t = trace["total"]
        top = cause_line(trace["syncs_by_cause"][0]) if trace["syncs_by_cause"] else "none"
        per = [s["blocked_us"] for s in trace["syncs"] if s["kind"] == KIND_SYNC]
        rows.append(
            [
                f"[{stem}]({stem}.md)",
                str(trace["rank"]),
                str(len(trace["steps"])),
                "yes" if trace["gpu_events"] else "no",
                fmt_us(t["wall_us"]),
                str(t["syncs"]),
                fmt_us(t["sync_api_us"]),
                str(t["blocking_copies"]),
                fmt_us(t["blocking_copy_us"]),
                fmt_us(float(np.median(per))) if per else "-",
                top,
            ]
        )
    lines += markdown_table(
        [
            "trace",
            "rank",
            "steps",
            "GPU events",
            "wall us",
            "syncs",
            "sync us",
            "blocking copies",
            "blocking copy us",
            "median us per sync",
            "costliest blocking cause",
        ],
        rows,
    )
    lines += [
        "",
        "Syncs: *Synchronize calls; blocking copies: copy calls that hold the host (without Async, or with "
        "pageable host memory). Both over the whole trace; calls count API calls.",
        "",
        "## What one synchronisation call cost on these GPUs",
        "",
    ] + paragraphs(sync_cost_markdown(cost))
    return "\n".join(lines) + "\n"


def paragraphs(lines):
    """Markdown paragraphs: a blank line between consecutive lines."""
    out = []
    for line in lines:
        out += [line, ""]
    return out[:-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="`./attribute --json` output files")
    ap.add_argument(
        "--out", default="results/traces", help="folder for the pages (default results/traces)"
    )
    args = ap.parse_args(argv)
    try:
        docs = [(p, load(p)) for p in args.inputs]  # all checked before anything is written
        for path, doc in docs:
            for t in doc["traces"]:
                sync_tables(t)  # rows that do not add up stop it here
    except (TraceJsonError, TablesDoNotAddUp) as e:
        print(f"analysis.trace_report: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    taken, entries = set(), []
    for path, doc in docs:
        for trace in doc["traces"]:
            stem = page_stem(trace["file"], taken)
            plot = f"{stem}-steps.png"
            step_plot(trace, stem, os.path.join(args.out, plot))
            write_atomic(
                os.path.join(args.out, f"{stem}.md"),
                trace_page(trace, stem, plot, os.path.basename(path)),
            )
            entries.append((stem, trace))
            print(f"wrote {os.path.join(args.out, stem + '.md')}")
    cost = sync_cost([(os.path.basename(p), d) for p, d in docs])
    write_atomic(os.path.join(args.out, "index.md"), index_page(entries, cost))
    print(f"wrote {os.path.join(args.out, 'index.md')}")
    for line in sync_cost_markdown(cost):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
