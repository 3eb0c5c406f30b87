"""Plots for the report. Each function writes one PNG atomically and returns its path."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from analysis import article  # noqa: E402

COLORS = {"cpu": "tab:blue", "cuda": "tab:green"}


def _save(fig, path):
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)
    return path


def item_calls_plot(rows, models, machine, path):
    """Loop time against .item() calls: our repetitions, the fitted line, the article's runs."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for m in models:
        rs = [r for r in rows if r.family == "ItemSync" and r.device == m.device and r.args.get("batch") == 120]
        x = np.array([r.counters["item_calls"] for r in rs])
        y = np.array([r.seconds for r in rs])
        ax.scatter(x, y, s=14, color=COLORS.get(m.device), alpha=0.7, label=f"ours, {m.device} (repetitions)")
        epochs = rs[0].counters["epochs"]
        xs = np.linspace(0, x.max(), 200)
        ys = m.fit.predict({"fixed": np.ones_like(xs), "per_epoch": np.full_like(xs, epochs), "per_item": xs})
        ax.plot(xs, ys, color=COLORS.get(m.device),
                label=f"fit {m.device}: {m.fit.value('per_epoch') * 1e6:.1f} us/epoch + "
                      f"{m.fit.value('per_item') * 1e6:.2f} us/.item()")
    for r in article.RUNS:
        ax.scatter([r.item_calls], [r.seconds], marker="x", s=50, color=COLORS.get(r.device, "k"))
        ax.annotate(f"article: {r.label}", (r.item_calls, r.seconds), fontsize=7, xytext=(4, 4),
                    textcoords="offset points")
    for k, _, t in article.TABLE:
        ax.scatter([article.item_calls(k, 1)], [t], marker="+", s=50, color="tab:red")
    ax.scatter([], [], marker="+", color="tab:red", label="article's table (every-100 print kept)")
    ax.set_xscale("symlog", linthresh=100)
    ax.set_xlabel(".item() calls per 20000-epoch run (symlog)")
    ax.set_ylabel("loop time (s)")
    ax.set_title(f"Loop time vs .item() calls: {machine}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def batch_plot(analysis, machine, path):
    """Per-epoch cost against batch size, and the extra cost per .item() at each batch."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for device in sorted({p.device for p in analysis.points}):
        ps = sorted((p for p in analysis.points if p.device == device), key=lambda p: p.batch)
        b = [p.batch for p in ps]
        ax1.plot(b, [p.us_per_epoch_never for p in ps], "o-", color=COLORS.get(device), label=f"{device}, never log")
        ax1.plot(b, [p.us_per_epoch_every for p in ps], "s--", color=COLORS.get(device), alpha=0.6,
                 label=f"{device}, .item() every epoch")
        ax2.plot(b, [p.sync_cost_us for p in ps], "o-", color=COLORS.get(device), label=device)
    if analysis.crossover:
        ax1.axvline(analysis.crossover, color="gray", ls=":", label=f"GPU faster from batch {analysis.crossover}")
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("batch (rows; 120 = Iris, more = Iris-like synthetic)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    ax1.set_yscale("log")
    ax1.set_ylabel("us per epoch")
    ax1.set_title(f"Per-epoch cost vs batch: {machine}")
    ax2.axhline(0, color="gray", lw=0.8)
    ax2.set_yscale("symlog", linthresh=10)
    ax2.set_ylabel("extra us per .item() (every-epoch minus never)")
    ax2.set_title("Cost of one sync vs queued work (below 0: noise)")
    fig.subplots_adjust(wspace=0.35)
    return _save(fig, path)


def attribution_plot(attr, machine, path):
    """Stacked per-epoch host phases for each configuration; for CUDA, the GPU timeline."""
    from analysis.summary import PHASES
    gpu = [a for a in attr if a.device == "cuda"]
    fig, axes = plt.subplots(1, 2 if gpu else 1, figsize=(14 if gpu else 8, 0.35 * len(attr) + 2), squeeze=False)
    ax = axes[0][0]
    labels = [f"{a.device} i={a.interval or 'never'} p={a.print100}" for a in attr]
    left = np.zeros(len(attr))
    cmap = plt.get_cmap("tab10")
    for i, p in enumerate(PHASES):
        w = np.array([a.values.get(f"phase_{p}_us", 0.0) for a in attr])
        ax.barh(labels, w, left=left, color=cmap(i), label=p)
        left += w
    other = np.array([max(a.values.get("traced_us_per_epoch", 0.0) - l, 0.0) for a, l in zip(attr, left)])
    ax.barh(labels, other, left=left, color="lightgray", label="outside phases")
    ax.set_xlabel("host us per epoch (traced pass)")
    ax.set_title(f"Where an epoch's host time goes: {machine}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if gpu:
        ax = axes[0][1]
        parts = [("attr_gpu_busy_us", "GPU busy"), ("attr_idle_host_wait_us", "idle: host wait"),
                 ("attr_idle_kernel_wait_us", "idle: kernel wait"), ("attr_idle_other_us", "idle: other")]
        glabels = [f"i={a.interval or 'never'} p={a.print100}" for a in gpu]
        left = np.zeros(len(gpu))
        for i, (k, name) in enumerate(parts):
            w = np.array([a.values.get(k, 0.0) for a in gpu])
            ax.barh(glabels, w, left=left, color=cmap(i + 6), label=name)
            left += w
        ax.set_xlabel("GPU us per epoch (CUPTI)")
        ax.set_title("The GPU's epoch: busy vs idle")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, path)


def ladder_plot(rungs, machine, path):
    """us per epoch of each rung, log scale, one bar per (device, rung)."""
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(rungs) + 1.5))
    labels = [f"{r.device}: {r.rung}" for r in rungs]
    ax.barh(labels, [r.us_per_epoch for r in rungs], color=[COLORS.get(r.device, "gray") for r in rungs])
    for i, r in enumerate(rungs):
        if r.speedup == r.speedup:
            ax.annotate(f"{r.speedup:.1f}x", (r.us_per_epoch, i), xytext=(4, -3), textcoords="offset points", fontsize=7)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("us per epoch (log); label: speed-up vs LibTorch eager on the same device")
    ax.set_title(f"The overhead-removal ladder: {machine}")
    ax.grid(alpha=0.3, axis="x", which="both")
    return _save(fig, path)
