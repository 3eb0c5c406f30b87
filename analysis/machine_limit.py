"""How close to the machine: each CPU rung beside the core's measured arithmetic limit, and
how every rung's cost grows with the batch.

Reads bench's Peak/cpu-fma-* rows (the FMA peak), the Ladder rows of every CPU rung (bench,
experiments/python_eager.py, experiments/torch_compile.py) and the RungSweep rows, and
writes the report section plus rung_sweep.png. Everything here is derived from the rows:

- GFLOP/s = epoch_flops(rows) / us per epoch, with the FLOPs counted from the shapes
  (epoch_flops mirrors src/train/flops.cpp; both are pinned to the same hand count);
- % of peak against the float32 FMA peak of as many threads as the rung uses (Peak rows,
  median; the Ladder row's own peak_gflops when the folder has no Peak rows);
- the sweep fit  us/epoch = fixed + rows x per_row  per rung (analysis.fit.fit_batch_cost:
  weighted least squares, 95% CIs), its crossover rows* = fixed / per_row (the batch where
  the per-row work equals the fixed cost: above it the overhead stops mattering), and the
  fused loop's multi-core efficiency t(1 thread) / (threads x t(all threads)).
"""

import math
import os
from dataclasses import dataclass

import numpy as np

from analysis import fit as fitting
from analysis.fmt import fmt_ci, fmt_ratio, fmt_sig
from analysis.tables import markdown_figure

IN, HIDDEN, CLASSES = 4, 10, 3
TARGET_SPEEDUP = 35.0  # issue 13: the fused CPU loop >= 35x LibTorch eager on the CPU


def epoch_flops(rows, inputs=IN, hidden=HIDDEN, classes=CLASSES):
    """FLOPs of one full-batch epoch per phase (dict), as src/train/flops.cpp counts them."""
    if rows < 1 or min(inputs, hidden, classes) < 1:
        raise ValueError(
            f"epoch_flops: rows, inputs, hidden and classes must be >= 1, got "
            f"{rows}, {inputs}, {hidden}, {classes}"
        )
    n, i, h, c = float(rows), float(inputs), float(hidden), float(classes)
    return {
        "forward": n * h * 2 * i + n * h + n * c * 2 * h,
        "loss": n * ((c - 1) + c + c + (c - 1) + 1 + 2) + (n - 1) + 1,
        "backward": n * c * 3
        + c * h * n * 2
        + c * (n - 1)
        + n * h * (2 * c - 1)
        + n * h
        + h * i * n * 2
        + h * (n - 1),
        "update": 2 * (h * i + h + c * h + c),
    }


def total_flops(rows):
    return sum(epoch_flops(rows).values())


@dataclass
class Peak:
    float64: bool
    threads: int
    gflops: float  # median over repetitions
    lanes: int
    n: int


@dataclass
class RungLimit:
    rung: str
    threads: float
    us_per_epoch: float  # median
    gflops: float
    pct_of_peak: float
    speedup_eager: float  # vs libtorch_eager (torch's default threads), medians
    speedup_1thread: float  # vs libtorch_eager_1thread
    loss_error: float
    weight_error: float
    compile_s: float
    n: int


@dataclass
class SweepFit:
    rung: str
    fit: object  # analysis.fit.Fit with base_us, per_row_us
    crossover_rows: float  # fixed / per_row
    points: list  # (rows, median us/epoch)


def peaks(rows):
    by = {}
    for r in rows:
        if r.family == "Peak" and "gflops" in r.counters:
            key = (bool(r.counters.get("float64", 0)), int(r.counters.get("cpu_threads", 1)))
            by.setdefault(key, []).append(r)
    return [
        Peak(
            f64,
            t,
            float(np.median([r.counters["gflops"] for r in rs])),
            int(rs[0].counters.get("lanes", 0)),
            len(rs),
        )
        for (f64, t), rs in sorted(by.items())
    ]


def _peak_for(peak_list, threads):
    f32 = {p.threads: p.gflops for p in peak_list if not p.float64}
    if not f32:
        return None
    if threads in f32:
        return f32[threads]
    return f32.get(max(f32)) if threads > 1 else f32.get(min(f32))


def rung_limits(rows):
    """One RungLimit per CPU Ladder rung (bench's, Python eager, torch.compile)."""
    by = {}
    for r in rows:
        if r.family == "Ladder" and r.variant.startswith("cpu-") and "us_per_epoch" in r.counters:
            by.setdefault(r.variant.partition("-")[2], []).append(r)
    if not by:
        return []
    med = {k: float(np.median([r.counters["us_per_epoch"] for r in rs])) for k, rs in by.items()}
    peak_list = peaks(rows)
    flops = total_flops(120)
    out = []
    for rung, rs in by.items():
        us = med[rung]
        threads = float(
            np.median([r.cpu_threads for r in rs])
        )  # never assumed: python_eager ran on 2
        gflops = flops / us / 1e3
        peak = _peak_for(peak_list, int(threads)) if not math.isnan(threads) else None
        if peak is None:
            own = [r.counters["peak_gflops"] for r in rs if "peak_gflops" in r.counters]
            peak = float(np.median(own)) if own else float("nan")
        worst = lambda key, rs=rs: max(
            (r.counters[key] for r in rs if key in r.counters), default=float("nan")
        )
        base, base1 = med.get("libtorch_eager"), med.get("libtorch_eager_1thread")
        compile_s = [r.counters["compile_s"] for r in rs if "compile_s" in r.counters]
        out.append(
            RungLimit(
                rung,
                threads,
                us,
                gflops,
                100 * gflops / peak if not math.isnan(peak) else float("nan"),
                base / us if base else float("nan"),
                base1 / us if base1 else float("nan"),
                worst("max_loss_error"),
                worst("max_weight_error"),
                float(np.median(compile_s)) if compile_s else float("nan"),
                len(rs),
            )
        )
    return sorted(out, key=lambda x: -x.us_per_epoch)


def sweep_fits(rows, device="cpu"):
    """Per rung of RungSweep/<device>-<rung>: median us/epoch per batch and the affine fit."""
    by = {}
    for r in rows:
        if r.family == "RungSweep" and r.variant.startswith(device + "-") and "batch" in r.args:
            by.setdefault(r.variant.partition("-")[2], []).append(r)
    out = []
    for rung, rs in sorted(by.items()):
        batches = sorted({r.args["batch"] for r in rs})
        points = [
            (b, float(np.median([r.counters["us_per_epoch"] for r in rs if r.args["batch"] == b])))
            for b in batches
        ]
        f = None
        if len(batches) >= 2 and len(rs) >= 3:
            f = fitting.fit_batch_cost(
                [r.args["batch"] for r in rs], [r.counters["us_per_epoch"] for r in rs]
            )
        cross = (
            f.value("base_us") / f.value("per_row_us")
            if f and f.value("per_row_us") > 0
            else float("nan")
        )
        out.append(SweepFit(rung, f, cross, points))
    return out


def multicore_efficiency(fits):
    """{rows: speed-up of fused_cpu_allthreads over fused_cpu} from the sweep medians;
    efficiency = speed-up / threads."""
    one = {b: us for f in fits if f.rung == "fused_cpu" for b, us in f.points}
    many = {b: us for f in fits if f.rung == "fused_cpu_allthreads" for b, us in f.points}
    return {b: one[b] / many[b] for b in sorted(one) if b in many}


def _threads(rows, variant):
    t = [
        r.counters.get("cpu_threads")
        for r in rows
        if r.variant == variant and "cpu_threads" in r.counters
    ]
    return int(np.median(t)) if t else None


SWEEP_CAPTION = (
    "Points: median us per epoch of each rung at each batch; solid lines: the fit fixed + rows x "
    "per_row (its values in the legend); dotted: rows*, where the two terms are equal. Both axes log."
)


def sweep_plot(fits, machine, path):
    from analysis.figures import plt, save_figure  # matplotlib only when a plot is drawn

    fig, ax = plt.subplots(figsize=(9.5, 6))
    for i, f in enumerate(fits):
        color = f"C{i}"
        b = np.array([p[0] for p in f.points], float)
        us = np.array([p[1] for p in f.points], float)
        ax.plot(b, us, "o", color=color, label=f"{f.rung} (median)")
        if f.fit is not None:
            xs = np.logspace(np.log10(b.min()), np.log10(b.max()), 100)
            ax.plot(
                xs,
                f.fit.value("base_us") + xs * f.fit.value("per_row_us"),
                "-",
                color=color,
                alpha=0.6,
                label=f"  fit: {f.fit.value('base_us'):.3g} us + {f.fit.value('per_row_us') * 1e3:.3g} ns x rows",
            )
            if (
                f.crossover_rows == f.crossover_rows
                and resolved(f)
                and b.min() / 10 < f.crossover_rows < b.max() * 10
            ):
                ax.axvline(
                    f.crossover_rows,
                    color=color,
                    ls=":",
                    alpha=0.6,
                    label=f"  rows* = {f.crossover_rows:,.0f}",
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows per batch (log)")
    ax.set_ylabel("us per epoch (median; log)")
    ax.set_title(f"Cost against work, every CPU rung: {machine}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return save_figure(fig, path)


def _f(v, spec):
    return "-" if math.isnan(v) else format(v, spec)


def section(rows, machine, folder):
    """Markdown lines of the report's "How close to the machine" section."""
    md = ["", "## How close to the machine (CPU)", ""]
    peak_list = peaks(rows)
    limits = rung_limits(rows)
    fits = sweep_fits(rows)
    if not (peak_list or limits or fits):
        return md + [
            (
                "No Peak, CPU Ladder or RungSweep rows in this folder "
                "(./bench --benchmark_filter='^(Peak|Ladder|RungSweep)/')."
            ),
            "",
        ]
    flops = epoch_flops(120)
    md += [
        f"One epoch of the article's problem (120 rows, 4-10-3) is {total_flops(120):,.0f} floating-point "
        "operations, counted from the shapes (src/train/flops.cpp; an FMA counts 2): "
        + ", ".join(f"{k} {v:,.0f}" for k, v in flops.items())
        + ".",
        "",
    ]
    md += _peak_lines(peak_list)
    if limits:
        md += _rung_lines(limits)
    if fits:
        md += _sweep_lines(rows, fits)
        path = sweep_plot(fits, machine, os.path.join(folder, "rung_sweep.png"))
        md += markdown_figure("rung sweep", path, SWEEP_CAPTION)
    return md


def _peak_lines(peak_list):
    """The measured FMA peaks as a table, or the line saying there are none."""
    if not peak_list:
        return [
            "No Peak rows in this folder: % of peak uses each Ladder row's own peak measurement.",
            "",
        ]
    md = [
        (
            "The limit, measured (`Peak/cpu-fma-*`: independent FMA chains in registers, widest vectors of "
            "the build, median of repetitions):"
        ),
        "",
        "| precision | threads | lanes | GFLOP/s | runs |",
        "|---|---|---|---|---|",
    ]
    md += [
        f"| {'float64' if p.float64 else 'float32'} | {p.threads} | {p.lanes} | {p.gflops:.1f} | {p.n} |"
        for p in peak_list
    ]
    return md + [""]


def _rung_lines(limits):
    """Each CPU rung against the peak and LibTorch eager, then the fused loop's target."""
    md = [
        (
            "Each CPU rung on the article's problem (Ladder rows, medians; speed-ups are ratios of medians "
            "in this folder; epochs, losses kept and errors against float64: the ladder table above). `% of peak` "
            "is against the float32 FMA peak of as many threads as the rung ran on:"
        ),
        "",
        "| rung | threads | us/epoch | GFLOP/s | % of peak | vs eager | vs eager 1 thread | compile s | runs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for x in limits:
        md.append(
            f"| {x.rung} | {_f(x.threads, '.0f')} | {fmt_sig(x.us_per_epoch, 4 if x.n >= 3 else 3)} | "
            f"{x.gflops:.3g} | "
            f"{_f(x.pct_of_peak, '.3g')}{'%' if x.pct_of_peak == x.pct_of_peak else ''} | "
            f"{fmt_ratio(x.speedup_eager, x.n)} | {fmt_ratio(x.speedup_1thread, x.n)} | "
            f"{_f(x.compile_s, '.1f')} | {x.n} |"
        )
    md.append("")
    fused = next((x for x in limits if x.rung == "fused_cpu"), None)
    if fused:
        md += _fused_lines(fused)
    md.append("")
    return md


def _fused_lines(fused):
    """The fused loop's speed-up target and where its time goes against the peak."""
    md = []
    if fused.speedup_eager == fused.speedup_eager:
        met = fused.speedup_eager >= TARGET_SPEEDUP
        md.append(
            f"- Target: fused CPU loop >= {TARGET_SPEEDUP:.0f}x LibTorch eager on the CPU: "
            f"{'met' if met else 'NOT met'} ({fmt_ratio(fused.speedup_eager, fused.n)}"
            + (
                f"; {fmt_ratio(fused.speedup_1thread, fused.n)} against eager pinned to 1 thread"
                if fused.speedup_1thread == fused.speedup_1thread
                else ""
            )
            + ")."
        )
    if fused.pct_of_peak == fused.pct_of_peak:
        peak = 100 * fused.gflops / fused.pct_of_peak
        at_peak_us = total_flops(120) / peak / 1e3
        md.append(
            f"- Where the fused loop's time goes: at the measured peak the epoch's FLOPs would take "
            f"{at_peak_us:.2f} us; it takes {fused.us_per_epoch:.2f} us ({fused.pct_of_peak:.0f}% of peak). "
            "The rest is what the FMA count leaves out: 83 gradient accumulators loaded and stored per "
            "block of rows, 83 horizontal sums and the SGD update per epoch, the exp/log polynomials "
            "(about 30 vector operations per row block not counted as FLOPs), the division, and 8 "
            "wasted lanes of padding (120 rows in 8 blocks of 16)."
        )
    return md


def _sweep_lines(rows, fits):
    """The RungSweep fit per rung as a table, then what the sweep says across rungs."""
    md = [
        "### Cost against work: every rung from 120 to 10^6 rows (RungSweep)",
        "",
        (
            "`us/epoch = fixed + rows x per_row` per rung (weighted least squares over every repetition, "
            "95% CIs, over repetitions run back to back and taken as independent). rows* = fixed / per_row: "
            "the batch at which the per-row work equals the fixed cost; well above it the overhead stops "
            "mattering; *not resolved* where the fixed (or per-row) cost's interval holds 0, so that the "
            "ratio has no lower (or upper) bound."
        ),
        "",
        (
            "| rung | fixed us [95% CI] | per row ns [95% CI] | R² | rows* | ns/row at the largest batch "
            "| the fit's largest miss |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    md += [_sweep_row(f) for f in fits]
    md += [
        "",
        (
            "The fit's largest miss: (fitted - median) / median at the batch where it is largest; the fit is "
            "weighted by 1/cost, so every batch counts by its relative error, and a miss over 10% says that the "
            "rung's price per row is not one number over this range."
        ),
        "",
    ]
    return md + _sweep_findings(rows, fits)


def resolved(f):
    """Whether rows* = fixed / per_row has both bounds: a fixed cost whose interval holds 0 (or
    a per-row cost whose does) leaves the ratio without a lower (or upper) bound."""
    return f.fit.interval("base_us")[0] > 0 and f.fit.interval("per_row_us")[0] > 0


def _rows_star(f):
    if f.fit is not None and not resolved(f):
        return "not resolved (an interval holds 0)"
    return _f(f.crossover_rows, ",.0f")


def _sweep_row(f):
    if f.fit is None:
        return f"| {f.rung} | - | - | - | - | {f.points[-1][1] * 1e3 / f.points[-1][0]:.2f} | - |"
    lo, hi = f.fit.interval("base_us")
    plo, phi = f.fit.interval("per_row_us")
    miss = fitting.batch_cost_misses(f.fit, *zip(*f.points))[0]
    return (
        f"| {f.rung} | {fmt_ci(f.fit.value('base_us'), lo, hi)} | "
        f"{fmt_ci(f.fit.value('per_row_us') * 1e3, plo * 1e3, phi * 1e3)} | {f.fit.r2:.3f} | "
        f"{_rows_star(f)} | {f.points[-1][1] * 1e3 / f.points[-1][0]:.3f} | "
        f"{miss[3]:+.0f}% at {miss[0]:,} rows |"
    )


def _sweep_findings(rows, fits):
    """The fused loop's multi-core speed-up, the fastest rung at the largest batch, the CUDA fits."""
    md = []
    speed = multicore_efficiency(fits)
    threads = _threads(rows, "cpu-fused_cpu_allthreads")
    if speed and threads:
        md.append(
            "- The fused loop over all cores ("
            + f"{threads} threads) against one thread: "
            + ", ".join(
                f"{b:,} rows {s:.2f}x (efficiency {100 * s / threads:.0f}%)"
                for b, s in speed.items()
            )
            + "."
        )
    largest = max(p[0] for f in fits for p in f.points)
    at_largest = {f.rung: us for f in fits for b, us in f.points if b == largest}
    if at_largest:
        best = min(at_largest, key=at_largest.get)
        md.append(
            f"- At {largest:,} rows the fastest CPU rung is {best} ({at_largest[best]:,.0f} us/epoch, "
            f"{total_flops(largest) / at_largest[best] / 1e3:.1f} GFLOP/s)."
        )
    gpu = sweep_fits(rows, "cuda")
    md.append(
        "- CUDA rows of the same family: "
        + (
            "; ".join(
                f"{f.rung} fixed {f.fit.value('base_us'):.1f} us, {f.fit.value('per_row_us') * 1e3:.3f} ns/row"
                for f in gpu
                if f.fit
            )
            or "present but too few to fit"
        )
        if gpu
        else "- CUDA rows of the same family pending (scripts/gpu_check.sh runs them)."
    )
    return md
