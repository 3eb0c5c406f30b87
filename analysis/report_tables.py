"""The tables of REPORT.md, as Markdown lines: cells from the figures, no prose."""

import numpy as np

from analysis import launch_queue, noise, summary, tables
from analysis.fmt import fmt_fit_us, fmt_or, fmt_ratio, fmt_sig

ATTRIBUTION_HEADER = (
    [
        "device",
        "interval",
        "print100",
        "untraced us",
        "traced us",
        "traced/untraced (different times)",
        "traced - untraced us (mean)",
    ]
    + [f"{p} us" for p in summary.PHASES]
    + ["outside the phases us", "us per .item()"]
)


def attribution_table(attr):
    """Per configuration: untraced and traced epoch, the phases and the rest, per .item()."""
    body = []
    for a in attr:
        v = a.values
        untraced = float(np.median(a.untraced_us)) if a.untraced_us else float("nan")
        traced = float(np.median(a.traced_us)) if a.traced_us else float("nan")
        diff = (
            float(np.mean(a.traced_us) - np.mean(a.untraced_us))
            if a.untraced_us and a.traced_us
            else float("nan")
        )
        phases = [v.get(f"phase_{p}_us", 0.0) for p in summary.PHASES]
        cells = [
            a.device,
            tables.interval_label(a.interval),
            str(a.print100),
            f"{untraced:.1f}",
            f"{traced:.1f}",
            f"{a.overhead:.2f}x",
            f"{diff:+.1f} {noise.mark(a.overhead_ci)}",
        ]
        cells += [f"{x:.1f}" for x in phases] + [f"{traced - sum(phases):.1f}"]
        cells.append(f"{v['item_us_per_call']:.1f}" if "item_us_per_call" in v else "-")
        body.append(cells)
    return tables.markdown_table(ATTRIBUTION_HEADER, body)


GPU_TIMELINE_HEADER = [
    "interval",
    "print100",
    "launches",
    "launch API us",
    "kernels",
    "GPU busy us",
    "blocked us",
    "idle: host wait us",
    "idle: kernel wait us",
    "idle: other us",
    "launch delay p50 us",
]


def gpu_timeline_table(gpu_attr):
    body = [
        [tables.interval_label(a.interval), str(a.print100)]
        + [f"{a.values.get(k, float('nan')):.1f}" for k in summary.GPU_FIELDS]
        for a in gpu_attr
    ]
    return tables.markdown_table(GPU_TIMELINE_HEADER, body)


QUEUE_HEADER = [
    "interval",
    "print100",
    "queue empty %",
    "depth p50",
    "depth p90",
    "depth max",
    "regime of the epochs",
    "from",
]


def queue_table(queue_rows):
    body = [
        [
            tables.interval_label(q.interval),
            str(q.print100),
            f"{100 * q.empty_share:.1f}",
            f"{q.depth_p50:g}",
            f"{q.depth_p90:g}",
            str(q.depth_max),
            launch_queue.regime_text(q.regimes),
            "bench's traced pass"
            if q.source == "bench"
            else f"`queue/{q.source}` ({q.epochs} epochs)",
        ]
        for q in queue_rows
    ]
    return tables.markdown_table(QUEUE_HEADER, body)


PRIMITIVE_COUNTERS = (
    "aten_ops_per_step",
    "kernels_per_step",
    "gpu_work_us",
    "queued_ops",
    "graph_nodes",
    "bytes_per_second",
    "gate_missed",
)


def primitives_table(prims):
    rows = []
    for name, p in prims.items():
        extra = ", ".join(
            f"{k}={v:.4g}" for k, v in p["counters"].items() if k in PRIMITIVE_COUNTERS
        )
        spread = "one run" if p["n"] < 2 else f"{p['spread_pct']:.1f}% (n={p['n']})"
        # digits follow the spread: two significant ones over 10 %, three over 1 %
        digits = 2 if p["spread_pct"] > 10 else 3 if p["spread_pct"] > 1 or p["n"] < 2 else 4
        rows.append([name, fmt_sig(p["us"], digits), spread, extra])
    return tables.markdown_table(["primitive", "us (median)", "spread (n)", "counters"], rows)


def published_table(published, notes=None):
    """`notes` ({primitive: words}) qualify a verdict its repetitions cannot carry alone."""
    notes = notes or {}
    rows = [
        [k, what, f"{us:.2f}", f"{lo:g}-{hi:g}", verdict + (f" ({notes[k]})" if k in notes else "")]
        for k, what, us, lo, hi, verdict in published
    ]
    return tables.markdown_table(
        ["primitive", "what", "measured us", "published us", "lands"], rows
    )


PREDICTION_HEADER = [
    "device",
    "prediction",
    "predicted",
    "measured",
    "verdict",
    "likely reason (when not agrees)",
]


def _few(x):
    """Whether a range rests on fewer than 3 repetitions (report.Reps): too few to show one."""
    return bool(x) and 0 < getattr(x, "n", 3) < 3


def _range(x):
    if _few(x):
        return f" (n={x.n}: stability unknown)"
    return f" [{x[0]:.2f}, {x[1]:.2f}]" if x else ""


def _value(v, rng):
    # two repetitions support three significant digits at most
    return f"{fmt_sig(v, 3)}" if _few(rng) else f"{v:.2f}"


def prediction_row(
    p,
    what,
    pred,
    pred_range,
    measured,
    measured_range,
    measured_what,
    reason,
    kinds=None,
    fixed=None,
):
    """One prediction beside its measurement, with noise.prediction_verdict's verdict, or none
    when `kinds` (the prediction's and the measurement's noise.Kind) differ; `fixed`, a
    noise.Verdict, stands in for both where the measurement allows no verdict."""
    v = (
        (noise.kinds_verdict(*kinds) if kinds else None)
        or fixed
        or noise.prediction_verdict(
            pred, pred_range, measured, measured_range, "the measured range"
        )
    )
    return [
        p["device"],
        what,
        f"{_value(pred, pred_range)}{_range(pred_range)}",
        f"{_value(measured, measured_range)}{_range(measured_range)} {measured_what}",
        v.text,
        "" if v.agrees else reason,
    ]


def prediction_table(rows):
    return tables.markdown_table(PREDICTION_HEADER, rows)


LADDER_HEADER = [
    "device",
    "rung",
    "threads",
    "epochs",
    "losses kept",
    "us/epoch",
    "speed-up vs eager",
    "loss error",
    "weight error",
    "host syncs",
    "runs",
]


def ladder_table(rungs, suspect=None):
    """The ladder; a rung in `suspect` ({(device, rung): why}) is marked, its reason below."""
    suspect = suspect or {}
    rows = [
        [
            r.device,
            r.rung + (" (SUSPECT)" if (r.device, r.rung) in suspect else ""),
            fmt_or(r.threads, ".0f"),
            fmt_or(r.epochs, ".0f"),
            fmt_or(r.records, ".0f"),
            fmt_sig(r.us_per_epoch, 4 if r.n >= 3 else 3),
            fmt_ratio(r.speedup, summary.runs_behind(rungs, r)),
            fmt_or(r.max_loss_error, ".1e", "not checked"),
            fmt_or(r.max_weight_error, ".1e", "not checked"),
            fmt_or(r.host_syncs, ".0f"),
            str(r.n),
        ]
        for r in rungs
    ]
    return tables.markdown_table(LADDER_HEADER, rows)


def fit_cell(m, name):
    """A fitted coefficient with its 95% CI where the runs allow one (DeviceModel.has_ci)."""
    if m.has_ci:
        return fmt_fit_us(m.fit, name)
    return f"{m.fit.value(name) * 1e6:.2f} us (no CI: runs not independent)"


def run_order_note(m):
    """What the fit's interval rests on, in words."""
    if m.order is None:
        return ""
    if m.has_ci:
        # A rank-correlation test finds a monotone trend only: back-to-back repetitions of one
        # configuration can still cluster, which it does not see.
        return (
            "CI over runs taken as independent: their residuals show no monotone trend with the run "
            f"order ({m.order.text()}); the repetitions of a configuration ran back to back, so the "
            "CI may be too narrow"
        )
    return (
        f"no CI: the residuals follow the run order ({m.order.text()}), so the runs are not "
        "independent and an interval would be too narrow"
    )


def model_table(models):
    rows = [
        [
            m.device,
            fit_cell(m, "per_epoch"),
            fit_cell(m, "per_item"),
            f"{m.fit.r2:.4f}",
            str(m.fit.n),
            "; ".join(x for x in (m.fit.note, run_order_note(m)) if x),
        ]
        for m in models
    ]
    return tables.markdown_table(["device", "per epoch", "per .item()", "R²", "runs", "note"], rows)


HELD_OUT_HEADER = [
    "configuration",
    "measured (range, n)",
    "predicted",
    "verdict",
    "likely reason when not agrees",
]


def held_out_table(rows):
    return tables.markdown_table(HELD_OUT_HEADER, rows)


BATCH_HEADER = [
    "device",
    "batch",
    "us/epoch, never",
    "us/epoch, .item() every epoch",
    "extra us per .item() (mean)",
    "% of an epoch",
]


def batch_table(points):
    rows = [
        [
            p.device,
            str(p.batch),
            f"{p.us_per_epoch_never:.1f}",
            f"{p.us_per_epoch_every:.1f}",
            f"{p.sync_cost_us:+.1f} {noise.mark_reps(p.sync_cost_ci, p.n)}",
            f"{p.sync_cost_pct:+.1f}% {noise.mark_reps(p.sync_cost_pct_ci, p.n, unit='%')}",
        ]
        for p in sorted(points, key=lambda p: (p.device, p.batch))
    ]
    return tables.markdown_table(BATCH_HEADER, rows)
