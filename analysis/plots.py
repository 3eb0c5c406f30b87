"""Plots for the report. Each function writes one PNG atomically and returns its path.

Every plot is meant to read without the text: a title, units on both axes, a legend entry
for every kind of marker, the values printed where bars are compared, the fit drawn where
one was made, and figures below the noise drawn as such (hollow, with their interval).
"""

import matplotlib.ticker
import numpy as np

from analysis import article, noise
from analysis.figures import plt, save_figure
from analysis.fmt import fmt_ratio, fmt_sig
from analysis.summary import FIT_BATCH, runs_behind

COLORS = {"cpu": "tab:blue", "cuda": "tab:green"}
# The post's runs get colours of their own, never one of ours.
ARTICLE_COLORS = {"cpu": "tab:orange", "cuda": "tab:red", "table": "tab:purple"}


def _interval_name(interval, print100):
    base = "never" if interval == 0 else "every epoch" if interval == 1 else f"every {interval}"
    return f"log {base}, {'+' if print100 else 'no'} print/100"


ITEM_CALLS_CAPTION = (
    "Left: every repetition's loop time (s) against its `.item()` calls, with the fitted line and "
    "the 95% CI of its slope; right: the post's own runs and table (s) and the line through its two "
    "GPU runs. x: calls per 20000-epoch run, linear below 100 and log above."
)


def item_calls_plot(rows, models, machine, path):
    """Loop time against .item() calls: our repetitions and fit (left), the post's runs and
    the line its own two GPU runs imply (right); the two machines differ 5x in speed, so
    each gets its own y axis."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    for m in models:
        _our_item_fit(ax1, rows, m)
    ax1.set_title(f"Ours: loop time vs .item() calls ({machine})")
    ax1.set_ylabel("loop time of the run (s)")
    lo_y = min([r.seconds for r in rows if r.family == "ItemSync"] or [0])
    ax1.set_ylim(bottom=0 if lo_y > 0 else None)
    _posts_item_runs(ax2)
    for ax in (ax1, ax2):
        ax.set_xscale("symlog", linthresh=100)
        ax.set_xlim(-10, 60000)
        ax.set_xlabel(".item() calls per 20000-epoch run (symlog: linear below 100)")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="lower left")
    fig.subplots_adjust(wspace=0.25)
    return save_figure(fig, path)


def _our_item_fit(ax, rows, m):
    """One device's repetitions at the fit's batch, its fitted line and the slope's 95% CI."""
    rs = [
        r
        for r in rows
        if r.family == "ItemSync" and r.device == m.device and r.args.get("batch") == FIT_BATCH
    ]
    x = np.array([r.counters["item_calls"] for r in rs])
    y = np.array([r.seconds for r in rs])
    ax.scatter(
        x,
        y,
        s=16,
        color=COLORS.get(m.device),
        alpha=0.7,
        label=f"ours, {m.device}: one repetition",
    )
    epochs = rs[0].counters["epochs"]
    xs = np.linspace(0, x.max(), 400)
    ys = m.fit.predict(
        {"fixed": np.ones_like(xs), "per_epoch": np.full_like(xs, epochs), "per_item": xs}
    )
    lo, hi = m.fit.interval("per_item")
    within = " (within noise)" if noise.within_noise((lo, hi)) else ""
    ax.plot(
        xs,
        ys,
        color=COLORS.get(m.device),
        label=f"fit {m.device}: {m.fit.value('per_epoch') * 1e6:.1f} us/epoch + "
        f"{m.fit.value('per_item') * 1e6:.1f} us/.item()\n[95% CI {lo * 1e6:.1f}, {hi * 1e6:.1f}]{within}",
    )
    base = m.fit.value("per_epoch") * epochs
    ax.fill_between(
        xs,
        base + lo * xs,
        base + hi * xs,
        color=COLORS.get(m.device),
        alpha=0.12,
        label=f"fit {m.device}: 95% CI of the .item() slope",
    )


def _posts_item_runs(ax):
    """The post's runs and interval table, and the line through its two GPU runs."""
    c, s = article.gpu_model()
    xs = np.linspace(0, 20200, 400)
    ax.plot(
        xs,
        article.EPOCHS * c + xs * s,
        color=ARTICLE_COLORS["cuda"],
        ls="--",
        lw=1,
        label=f"line through the post's 2 GPU runs: {c * 1e6:.0f} us/epoch + {s * 1e6:.0f} us/.item()",
    )
    for dev, label in (
        ("cpu", "post, CPU runs (i9, Python)"),
        ("cuda", "post, GPU runs (RTX 3080 Ti)"),
    ):
        runs = [r for r in article.RUNS if r.device == dev]
        ax.scatter(
            [r.item_calls for r in runs],
            [r.seconds for r in runs],
            marker="x",
            s=60,
            color=ARTICLE_COLORS[dev],
            label=label,
        )
        for r in runs:
            right = r.item_calls > 5000  # labels of the rightmost points go to their left
            # Labels sit well above their point: the table's "+" markers crowd the GPU runs at 220-600 calls.
            ax.annotate(
                f"{r.label}: {r.seconds:.2f} s",
                (r.item_calls, r.seconds),
                fontsize=7,
                xytext=(-6 if right else 6, 12),
                textcoords="offset points",
                ha="right" if right else "left",
            )
    ax.scatter(
        [article.item_calls(k, 1) for k, _, _ in article.TABLE],
        [t for *_, t in article.TABLE],
        marker="+",
        s=70,
        color=ARTICLE_COLORS["table"],
        label="post's interval table (every-100 print kept)",
    )
    ax.set_title("The post: loop time vs .item() calls (its numbers)")
    ax.set_ylabel("time of the run (s)")
    ax.set_ylim(0, 13)


BATCH_CAPTION = (
    "Left: median us per epoch against the batch, never logging (with the fitted c(B), its largest "
    "miss in the legend) and logging every epoch; right: the extra time of one `.item()` per epoch in % "
    "of a never-logging epoch, the table's `% of an epoch` column, with its 95% CI."
)


def batch_plot(analysis, machine, path):
    """Left: per-epoch cost against batch (never logging, with the c(B) fit drawn; logging
    every epoch beside it, offset so both show). Right: the extra time of one .item() per
    epoch as a share of a never-logging epoch (the table's % column), with its 95% CI;
    hollow = within noise."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    for device in sorted({p.device for p in analysis.points}):
        col = COLORS.get(device)
        ps = sorted((p for p in analysis.points if p.device == device), key=lambda p: p.batch)
        b = np.array([p.batch for p in ps], float)
        _batch_cost(ax1, analysis, device, col, ps, b)
        _sync_share(ax2, device, col, ps, b)
    if analysis.crossover:
        ax1.axvline(
            analysis.crossover,
            color="gray",
            ls=":",
            label=f"GPU faster from batch {analysis.crossover}",
        )
    ax1.set_yscale("log")
    ax1.set_ylabel("us per epoch (log)")
    ax1.set_title(f"Per-epoch cost vs batch: {machine}")
    ax2.axhline(0, color="gray", lw=0.8)
    ax2.set_ylabel("extra time per .item(), % of a never-logging epoch")
    ax2.set_title("One .item() every epoch vs never: extra time (%), 95% CI")
    ax2.margins(x=0.15, y=0.1)
    for ax, loc in ((ax1, "upper left"), (ax2, "upper right")):
        ax.set_xscale("log")
        ax.set_xlabel("batch (rows; 120 = Iris, more = Iris-like synthetic; log)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc=loc)
    lo, hi = ax2.get_ylim()
    ax2.set_ylim(lo, hi + 0.25 * (hi - lo))  # headroom: the legend sits above the data
    fig.subplots_adjust(wspace=0.3)
    return save_figure(fig, path)


def _batch_cost(ax, analysis, device, col, ps, b):
    """One device's medians never logging and logging every epoch, its c(B) fit and the
    held-out batch."""
    from analysis.fit import batch_cost_misses

    ax.plot(
        b,
        [p.us_per_epoch_never for p in ps],
        "o",
        color=col,
        label=f"{device}, never log (median)",
    )
    ax.plot(
        b * 1.15,
        [p.us_per_epoch_every for p in ps],
        "s",
        mfc="none",
        color=col,
        label=f"{device}, .item() every epoch (median; drawn 15% right)",
    )
    fit = analysis.fits.get(device)
    if fit is not None:
        xs = np.logspace(np.log10(b.min()), np.log10(b.max()), 200)
        miss = batch_cost_misses(fit, b, [p.us_per_epoch_never for p in ps])[0]
        ax.plot(
            xs,
            fit.value("base_us") + fit.value("per_row_us") * xs,
            "-",
            color=col,
            lw=1,
            alpha=0.7,
            label=f"fit {device}: {fit.value('base_us'):.0f} us + {fit.value('per_row_us') * 1e3:.1f} ns x rows"
            f"\n(largest miss {miss[3]:+.0f}% at {miss[0]:,.0f} rows)",
        )
    for dev, bb, measured, pred, _ in analysis.held_out:
        if dev == device:
            ax.plot(
                [bb],
                [measured],
                "*",
                ms=12,
                color="black",
                zorder=5,
                label=f"{device} batch {bb}: held out of the fit",
            )


def _sync_share(ax, device, col, ps, b):
    """One device's extra time per .item() as a share of an epoch (one linear axis for batches
    four decades apart), filled beyond noise, and a legend entry per kind of marker drawn."""
    kinds = set()
    for p, x in zip(ps, b):
        share, ci = p.sync_cost_pct, p.sync_cost_pct_ci
        beyond = noise.beyond_noise(p.sync_cost_ci)
        kinds.add(beyond)
        if ci is not None:
            ax.errorbar(
                [x],
                [share],
                yerr=[[share - ci[0]], [ci[1] - share]],
                fmt="none",
                ecolor=col,
                alpha=0.6,
                capsize=3,
            )
        ax.plot([x], [share], "o", color=col, mfc=col if beyond else "white", ms=7)
        ax.annotate(
            f"{share:+.0f}%", (x, share), fontsize=7, xytext=(6, -3), textcoords="offset points"
        )
    if True in kinds:
        ax.plot(
            [], [], "o", color=col, mfc=col, label=f"{device}: beyond noise (95% CI excludes 0)"
        )
    if False in kinds:
        ax.plot(
            [],
            [],
            "o",
            color=col,
            mfc="white",
            label=f"{device}: within noise (95% CI holds 0)",
        )
    if None in kinds:
        ax.plot([], [], "o", color=col, mfc="white", label=f"{device}: n<2, noise unknown")


ATTRIBUTION_CAPTION = (
    "Host us per epoch in the traced pass: the phases and the rest of the epoch stacked to the "
    "traced us per epoch (the number at each bar's end; the table's columns); right: the `log` "
    "phase alone on its own us scale."
)


def attribution_plot(attr, machine, path):
    """Stacked per-epoch host phases for each configuration; the `log` phase, too small to
    see on that scale, again on its own axis; for CUDA, the GPU timeline."""
    from analysis.summary import PHASES

    gpu = [a for a in attr if a.device == "cuda"]
    rows = 2 if gpu else 1  # the GPU timeline gets a row of its own, with its own labels
    fig = plt.figure(figsize=(14, (0.38 * len(attr) + 2.2) + (0.38 * len(gpu) + 2.0 if gpu else 0)))
    grid = fig.add_gridspec(
        rows,
        2,
        width_ratios=[3, 1],
        height_ratios=[len(attr) + 4, len(gpu) + 4][:rows],
        hspace=0.35,
        wspace=0.05,
    )
    axes = [[fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])]]
    ax = axes[0][0]
    labels = [f"{a.device}: {_interval_name(a.interval, a.print100)}" for a in attr]
    y = np.arange(len(attr))
    left = np.zeros(len(attr))
    cmap = plt.get_cmap("tab10")
    for i, p in enumerate(PHASES):
        w = np.array([a.values.get(f"phase_{p}_us", 0.0) for a in attr])
        ax.barh(y, w, left=left, color=cmap(i), label=f"{p} (host us)")
        left += w
    traced = np.array([a.values.get("traced_us_per_epoch", 0.0) for a in attr])
    other = np.maximum(traced - left, 0.0)
    ax.barh(y, other, left=left, color="lightgray", label="outside the phases")
    for yi, t in zip(y, np.maximum(traced, left)):
        ax.annotate(f"{t:.0f}", (t, yi), xytext=(3, -3), textcoords="offset points", fontsize=7)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("host us per epoch (traced pass; the number: traced us per epoch)")
    ax.set_title(f"Where an epoch's host time goes: {machine}")
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.06), ncol=4)
    ax.margins(x=0.08)
    # The `log` phase (.item() + the list append/print) is under 1% of an epoch: its own axis.
    ax = axes[0][1]
    w = np.array([a.values.get("phase_log_us", 0.0) for a in attr])
    ax.barh(y, w, color=cmap(PHASES.index("log")))
    for yi, v in zip(y, w):
        ax.annotate(f"{v:.2f}", (v, yi), xytext=(3, -3), textcoords="offset points", fontsize=7)
    ax.set_yticks(y, [])
    ax.invert_yaxis()
    ax.set_xlabel("host us per epoch in `log`\n(own scale)")
    ax.set_title("The log phase alone")
    ax.set_xlim(0, (float(w.max()) or 1.0) * 1.4)  # all zero (no logging traced): a plain 0-1 axis
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(3))
    if gpu:
        ax = fig.add_subplot(grid[1, :])
        parts = [
            ("attr_gpu_busy_us", "GPU busy"),
            ("attr_idle_host_wait_us", "idle: waiting for the host"),
            ("attr_idle_kernel_wait_us", "idle: between queued kernels"),
            ("attr_idle_other_us", "idle: other"),
        ]
        gy = np.arange(len(gpu))
        left = np.zeros(len(gpu))
        for i, (k, name) in enumerate(parts):
            w = np.array([a.values.get(k, 0.0) for a in gpu])
            ax.barh(gy, w, left=left, color=cmap(i + 6), label=name)
            left += w
        ax.set_yticks(gy, [_interval_name(a.interval, a.print100) for a in gpu], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("GPU us per epoch (CUPTI)")
        ax.set_title("The GPU's epoch: busy vs idle")
        ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.06), ncol=4)
    return save_figure(fig, path)


LADDER_CAPTION = (
    "us per epoch of every rung (median), on a log axis so the fused loops' 1-2 us show beside "
    "the eager rungs' hundreds; each bar labelled with its value and its speed-up over LibTorch eager."
)


def ladder_plot(rungs, machine, path):
    """us per epoch of each rung, one bar per (device, rung), each bar labelled with its
    value and speed-up. A log axis: the rungs span two and a half decades, and on a linear
    one the fused loops were slivers a reader could not see."""
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rungs) + 1.8))
    labels = [f"{r.device}: {r.rung}" for r in rungs]
    values = [r.us_per_epoch for r in rungs]
    ax.barh(labels, values, color=[COLORS.get(r.device, "gray") for r in rungs])
    for i, r in enumerate(rungs):
        # the same digits as the ladder table: what the runs behind each figure support
        n = runs_behind(rungs, r)
        speed = f", {fmt_ratio(r.speedup, n)} vs LibTorch eager" if r.speedup == r.speedup else ""
        ax.annotate(
            f"{fmt_sig(r.us_per_epoch, 4 if r.n >= 3 else 3)} us{speed}",
            (r.us_per_epoch, i),
            xytext=(4, -3),
            textcoords="offset points",
            fontsize=8,
        )
    ax.set_xscale("log")
    lo, hi = min(values), max(values)
    ax.set_xlim(
        lo / 3, hi * 15
    )  # room on the right for the labels; the bars start left of the smallest
    ax.invert_yaxis()
    ax.set_xlabel("us per epoch (median; log)")
    ax.set_title(
        f"The overhead-removal ladder: {machine}\n(the same training on every rung; shorter is faster)"
    )
    ax.grid(alpha=0.3, axis="x", which="both")
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color=COLORS.get(d, "gray"), label=d) for d in sorted({r.device for r in rungs})
        ],
        fontsize=8,
        loc="lower right",
    )
    return save_figure(fig, path)
