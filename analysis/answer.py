"""The article's whole table with ours beside it, and the answer to its homework question,
written for a reader who has only the article (../shared/ARTICLE.md)."""

import os

import numpy as np

from analysis import article, noise, paired, summary
from analysis.fmt import fmt_fit_us, fmt_runs, fmt_us
from analysis.tables import markdown_table
from analysis.trace_pages import prose as trace_prose
from analysis.trace_pages import stats as trace_stats
from analysis.trace_pages.stats import KIND_SYNC, load_attribution

NO_GPU = "no GPU on this machine"
# `./attribute --json` output on the real traces others recorded (tests/data/traces/README.md),
# committed by analysis.trace_report's regeneration commands (results/traces/README.md).
REAL_TRACES_JSON = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "results",
    "traces",
    "attribute-json",
)
# The NVIDIA ones (A100, GP100): the AMD trace, the CPU-only one and the two ranks whose GPU
# is not named stay out of a figure about CUDA syncs.
NVIDIA_TRACES = (
    "a100-alexnet-syncs",
    "a100-cuda-graphs-6streams",
    "a100-event-sync",
    "a100-event-sync-multistream",
    "gp100-steps-annotations",
)


def _ours(stats, device, interval, print100):
    return next(
        (
            c
            for c in stats
            if c.device == device
            and c.interval == interval
            and c.print100 == print100
            and c.batch == 120
        ),
        None,
    )


def _cell(c, missing):
    """Our median for the article's 20000 epochs, with the repetitions' range."""
    if c is None:
        return missing
    scale = article.EPOCHS / c.epochs  # rows run with another epoch count are scaled, and say so
    text = fmt_runs([x * scale for x in c.samples])
    return text + (f" scaled from {c.epochs} epochs" if c.epochs != article.EPOCHS else "")


def _gpu_missing(has_gpu):
    return "not run in this folder" if has_gpu else NO_GPU


def _post_runs_table(stats, gpu_missing):
    """The post's four runs, each beside ours on the CPU and the GPU."""
    head = ["the post's run", "ran on", "`.item()` calls", "post's s", "ours, cpu", "ours, cuda"]
    body = []
    for r in article.RUNS:
        ran_on = (
            "CPU (its code never moved anything to the GPU)"
            if r.label == "no recording"
            else r.device.upper()
        )
        post = f"{r.seconds:.2f}" + "".join(
            f" ({t:.2f} in {where})" for t, where in r.other_seconds
        )
        body.append(
            [
                r.label,
                ran_on,
                str(r.item_calls),
                post,
                _cell(_ours(stats, "cpu", r.interval, r.print100), "not run in this folder"),
                _cell(_ours(stats, "cuda", r.interval, r.print100), gpu_missing),
            ]
        )
    return markdown_table(head, body)


def _post_interval_table(stats, gpu_missing):
    """The post's interval table, its model from the post's own two runs, and ours."""
    md = []
    c, s = article.gpu_model()
    md += [
        "",
        (
            '**The post\'s interval table** (GPU, 20000 epochs; the post calls the figures "remaining time" = '
            "total - 3 s, but the interval-200 row's 10.02 s sits beside the 10.38 s *total* its own earlier run "
            f"measured for the same code). `model` = the post's own two GPU runs solved for a per-epoch cost "
            f"({c * 1e6:.0f} us) and a per-`.item()` cost ({s * 1e6:.0f} us as solved; {article.per_call_words()}), "
            "then applied to each row's calls."
        ),
        "",
    ]
    head = [
        "record interval",
        "records",
        "`.item()` calls",
        "post's s",
        "model from the post's runs, s",
        "post vs model",
        "ours, cpu",
        "ours, cuda",
    ]
    body = []
    for (interval, records, seconds), (_, _, calls), err in zip(
        article.TABLE, article.table_item_calls(), article_table_errors()
    ):
        body.append(
            [
                str(interval),
                str(records),
                str(calls),
                f"{seconds:.2f}",
                f"{article.EPOCHS * c + calls * s:.2f}",
                f"{err:+.1f}%",
                _cell(_ours(stats, "cpu", interval, 1), "not run in this folder"),
                _cell(_ours(stats, "cuda", interval, 1), gpu_missing),
            ]
        )
    md += markdown_table(head, body)
    return md


def article_section(stats, has_gpu):
    """Both of the post's tables, whole, whatever this folder holds."""
    gpu_missing = _gpu_missing(has_gpu)
    md = [
        "## The article's tables, with ours beside them",
        "",
        (
            "Every figure the post gives (../shared/ARTICLE.md; its hardware: i9-12900KF, RTX 3080 Ti, Windows, "
            "Python; 20000 epochs), and our run of the same loop (LibTorch in C++, same model, data, split, optimiser "
            "and `.item()` pattern): median seconds for 20000 epochs (min-max over the repetitions, n; one run: no range). `ours, cpu` "
            "is that loop on our CPU for every row, the GPU rows too (the CPU side of the post's 4x comparison). "
            "`.item()` calls follow the post's code: the every-100 print stayed in every run."
        ),
        "",
        "**The post's runs**",
        "",
    ]
    md += _post_runs_table(stats, gpu_missing)
    md += losses_table(stats)
    md += _post_interval_table(stats, gpu_missing)
    md.append("")
    return md


def losses_table(stats):
    """The loss the post's CPU run printed, beside ours where bench keeps it (the final loss)."""
    finals = sorted(
        {
            r
            for c in stats
            if c.device == "cpu" and c.batch == 120 and c.epochs == article.EPOCHS
            for r in c.final_losses
        }
    )
    md = [
        "",
        (
            "**The loss the post's CPU run printed** (the post set no seed, so its initial weights, and every loss "
            "after them, differ from ours, which start from seed 42; bench keeps only the final loss of a run):"
        ),
        "",
    ]
    body = []
    for epoch, loss in article.CPU_RUN_LOSSES:
        if epoch == article.EPOCHS and finals:
            ours = (
                f"{finals[0]:.4f}" if len(finals) == 1 else f"{finals[0]:.4f}-{finals[-1]:.4f}"
            ) + " (final loss of every CPU ItemSync run)"
        else:
            ours = "not kept"
        body.append([str(epoch), f"{loss:.4f}", ours])
    return md + markdown_table(["epoch", "post's loss", "ours, cpu"], body)


def answer_section(models, checks, stats, batch, prims, rows=()):
    """The homework question answered: the question, the model, the post's numbers, ours,
    and the regime (a deep GPU queue) in which the same model makes a sync expensive."""
    c_art, s_art = article.gpu_model()
    gpu_runs = [
        next(r for r in article.RUNS if r.label == k) for k in ("GPU", "GPU, record every 200")
    ]
    calls = [n for _, _, n in checks["table_item_calls"]]
    md = [
        "## Why is the remaining time not linear in the number of loss records?",
        "",
        (
            "The post's homework question, in its words: *\"Why is the remaining time not linear in the number of "
            'loss records?"* Its table cut the records twentyfold (200 -> 10) and the time stayed at about 10 s '
            "(10.43, 10.02, 10.12, 9.74). Had the time been proportional to the records, 10 records would have "
            "taken about 10.43 x 10/200 = 0.52 s."
        ),
        "",
        (
            "**The model** (ours, ARTICLE.md). Per epoch the CPU spends *c* issuing the epoch's work (Python or C++ "
            "dispatch, autograd, about 20 kernel launches), the GPU spends *g* executing it, and one `.item()` costs "
            "*s* (a device-to-host copy plus waiting for it). When the GPU is the faster side (g << c, a tiny model): "
        ),
        "",
        "    loop time = epochs x c + (.item() calls) x s",
        "",
        (
            "with no further constant (bench's loop timer starts at the first epoch, so set-up is outside it). The "
            "time *is* linear in the number of `.item()` calls, but (1) the calls are not the records: a record is "
            "two calls (append + print) and the every-100 print stayed, so the table's rows made "
            f"{', '.join(map(str, calls))} calls, 380 fewer from first to last row, not twenty times fewer; and "
            "(2) the epoch term, the same in every row, is hundreds of times larger than the call term, so the line "
            "is almost flat."
        ),
        "",
        (
            f"**The post's own numbers** say so. Its two GPU runs ({gpu_runs[0].seconds} s with "
            f"{gpu_runs[0].item_calls} calls, {gpu_runs[1].seconds} s with {gpu_runs[1].item_calls}) give "
            f"s = {s_art * 1e6:.0f} us ({article.per_call_words()}) and c = {c_art * 1e6:.0f} us per epoch. "
            f"The table's 380-call spread is then worth about {checks['sync_spread_s'] * 1e3:.0f} ms (under "
            f"{2 * checks['sync_spread_s'] * 1e3:.0f} ms even at twice that s), against a "
            f"{checks['table_spread_s']:.2f} s spread in the "
            f"table: the table's differences are run-to-run noise (the model above predicts every row within "
            f"{max(abs(e) for e in article_table_errors()):.1f}%). "
            f"The ~{c_art * 20000:.1f} s that stays is 20000 epochs x {c_art * 1e6:.0f} us of per-operation work; "
            'no logging change can remove it. Its "no recording" run (2.86 s) never moved anything to the GPU: '
            "it is a CPU time, next to the CPU run's 2.93 s."
        ),
        "",
    ]
    md += real_gpu_sync_lines()
    for m in models:
        md += [ours_text(m, stats, rows, prims), ""]
    md += deep_queue_lines(batch, prims, models, rows)
    return md


def ours_text(m, stats, rows, prims):
    """Our c and s on one device, from the measurement that concludes: the paired rows where
    they ran, else the whole-run fit where its runs allow an interval, else what the whole runs
    can say without one."""
    item = paired.find(paired.rows_of(rows), m.device, "item")
    if item:
        text = _paired_text(m, item)
    elif m.has_ci:
        text = _fit_text(m)
    else:
        text = _no_ci_text(m, rows, prims)
    table = [_ours(stats, m.device, k, 1) for k, _, _ in article.TABLE]
    if all(table):
        text += (
            " Our runs of the table's four configurations: "
            + ", ".join(f"{r.median_s:.3f} s" for r in table)
            + (" (one run each)." if max(r.n for r in table) < 2 else ".")
        )
    return text


def _paired_text(m, item):
    s, c = paired.per_item(item), paired.per_epoch(item)
    run = article.EPOCHS * c.value * 1e-6
    lo, hi = m.fit.interval("per_item")
    return (
        f"**Ours, {m.device}** (the paired rows, {item.rounds} interleaved rounds: *Measurements "
        f"that conclude*, below): c = {c.text()} per epoch, so {run:.2f} s of every 20000-epoch "
        f"run; s = {s.text()} per `.item()`, so the table's 380-call spread is worth "
        f"{380 * s.value * 1e-3:.2f} ms [{380 * s.lo * 1e-3:.2f}, {380 * s.hi * 1e-3:.2f}] of it. "
        "Both intervals treat the rounds, run back to back in one process, as independent; pairing "
        "cancels the drift two runs of a round share in s, a difference, but not in c, a level. "
        f"The fit over whole runs: c = {fmt_fit_us(m.fit, 'per_epoch')}, s = "
        f"{fmt_fit_us(m.fit, 'per_item')} (R² = {m.fit.r2:.3f}, {m.fit.n} runs)"
        + (": its s is within noise (its interval holds 0)." if lo <= 0 <= hi else ".")
    )


def _fit_text(m):
    lo, hi = m.fit.interval("per_item")
    c = m.fit.value("per_epoch")
    text = (
        f"**Ours, {m.device}**: c = {fmt_fit_us(m.fit, 'per_epoch')} per epoch, so {article.EPOCHS * c:.2f} s "
        f"of every 20000-epoch run; s = {fmt_fit_us(m.fit, 'per_item')} per `.item()` "
        f"(R² = {m.fit.r2:.3f}, {m.fit.n} runs). "
    )
    if lo <= 0 <= hi:
        return text + (
            f"The per-call cost is **within noise** (its interval holds 0): run-to-run noise of whole runs "
            f"is larger than every sync in them; even at the interval's upper end the table's 380-call spread "
            f"is worth {380 * hi * 1e3:.1f} ms of a {article.EPOCHS * c:.2f} s run."
        )
    return text + (
        f"The table's 380-call spread is worth {380 * m.fit.value('per_item') * 1e3:.1f} ms "
        f"[{380 * lo * 1e3:.1f}, {380 * hi * 1e3:.1f}] of a {article.EPOCHS * c:.2f} s run."
    )


def _no_ci_text(m, rows, prims):
    """Whole runs whose residuals follow the run order: no interval; the epoch's cost from the
    runs outside a slow period, and no `.item()` cost from them."""
    ordered, k = summary.slow_period(rows, m.device)
    us = [r.seconds * 1e6 / r.counters["epochs"] for r in ordered]
    text = (
        f"**Ours, {m.device}**: the whole runs cannot give c or s with an interval: their residuals "
        f"about the fit follow the order they ran in ({m.order.text()}; *Run order*, below). "
    )
    if k:
        text += (
            f"The first {k} ran in a slow period ({min(us[:k]):.0f}-{max(us[:k]):.0f} us an epoch); "
            f"the {len(us) - k} after it ran {min(us[k:]):.0f}-{max(us[k:]):.0f} us an epoch "
            f"(median {np.median(us[k:]):.0f}, one run each, every logging interval): c as these runs "
            "give it. "
        )
    else:
        text += f"They ran {min(us):.0f}-{max(us):.0f} us an epoch (median {np.median(us):.0f}). "
    idle = (prims or {}).get("Sync/item_idle") if m.device == "cuda" else None
    return text + (
        "A `.item()`'s cost is below what one run per configuration resolves"
        + (
            f"; alone on an idle GPU it costs {idle['us']:.1f} us (`Sync/item_idle`, "
            f"{idle['n']} back-to-back repetitions; in the loop it also waits out the queue)."
            if idle
            else "."
        )
    )


def article_table_errors():
    """The post's interval table against the model from its own two GPU runs, percent."""
    c, s = article.gpu_model()
    return [
        100 * (seconds - (article.EPOCHS * c + calls * s)) / (article.EPOCHS * c + calls * s)
        for (_, _, seconds), (_, _, calls) in zip(article.TABLE, article.table_item_calls())
    ]


def real_gpu_sync_lines(folder=REAL_TRACES_JSON):
    """What one blocking sync cost on real NVIDIA GPUs, from `./attribute` on traces others
    recorded, beside the post's 46 us: measured GPU data, not the post's arithmetic alone."""
    paths = [os.path.join(folder, f"{name}.json") for name in NVIDIA_TRACES]
    present = [p for p in paths if os.path.exists(p)]
    if not present:
        return [
            (
                f"**One sync on real GPUs**: not available ({folder} holds no `./attribute` output; "
                "results/traces/README.md says how to make it)."
            ),
            "",
        ]
    try:
        docs = [(os.path.basename(p), load_attribution(p)) for p in present]
    except ImportError as e:  # the GPU machine's run: its Python has no iris_trace package
        return [
            (
                f"**One sync on real GPUs**: not available here (the iris_trace package does not "
                f"import: {e}; scripts/setup.sh installs it)."
            ),
            "",
        ]
    cost = trace_stats.sync_cost(docs)
    md = [
        (
            "**One sync on real GPUs** (not ours: `./attribute` on PyTorch profiler traces recorded by others on "
            "A100 and GP100 GPUs, `results/traces/`), beside the post's roughly "
            f"{article.per_call_rounded_us():.0f} us per `.item()`: "
        )
    ]
    md += [" ".join(trace_prose.sync_cost_markdown(cost))]
    if cost is not None and cost.idle_n:
        # the calls the fit is over: synchronisation calls, not blocking copies (as trace_pages.stats.sync_cost)
        per_file = {
            name: sum(s["kind"] == KIND_SYNC for t in doc["traces"] for s in t["syncs"])
            for name, doc in docs
        }
        top = max(per_file, key=per_file.get)
        md += [
            (
                f"The closest figure to what a sync itself costs is the median of the {cost.idle_n} calls "
                f"with nothing queued, {fmt_us(cost.idle_median_blocked_us)} us (pooled from traces of "
                "different GPUs and programs; no spread). The fitted line's "
                f"constant is not: it extrapolates to 0 queued work a line fitted over all {cost.n} calls, in "
                f"which the few that waited out milliseconds weigh most (least squares), and {per_file[top]} of the "
                f"{cost.n} calls come from one trace ({top}). What makes a sync expensive is "
                "the GPU work still queued ahead of it, which it waits out: the deep-queue regime below."
            ),
            "",
        ]
    else:
        md += [
            (
                "What makes a sync expensive is the GPU work still queued ahead of it, which it waits out: the "
                "deep-queue regime below."
            ),
            "",
        ]
    return md


def _deep_queue_intro():
    """Why a deep GPU queue makes a sync cost a lot, with the post's per-call cost."""
    s_art = article.per_call_cost_from_gpu_runs()
    first = next(r for r in article.RUNS if r.label == "GPU")
    return [
        (
            "**When a sync does cost a lot: a deep GPU queue.** CUDA launches are asynchronous: without a sync the "
            "CPU issues epoch n+1 while the GPU still runs epoch n, so an epoch costs max(c, g). A sync makes the "
            "CPU wait until the queue drains, and then the GPU idles while the CPU issues the next epoch: the overlap "
            "is lost once, so one sync costs about s + min(c, g). With the post's tiny model g << c, the queue is "
            f"nearly empty when `.item()` is called and a sync costs about s (roughly "
            f"{article.per_call_rounded_us():.0f} us from the post's "
            f"own two runs, uncertain by about as much: about {s_art * first.item_calls:.1f} s of "
            f"{first.seconds} s for {first.item_calls} calls). With a large batch g grows to c and "
            "beyond; each sync then costs up to c, logging every epoch "
            "takes epochs x (c + g) instead of epochs x max(c, g) (up to twice as long), and recording less often "
            "saves time in proportion to the records it removes. On the CPU there is no queue (each op finishes "
            "before the next starts), so there the model predicts s ~ 0 at every batch."
        ),
        "",
    ]


def _measured_lines(batch):
    """Per device: at how many batch sizes logging every epoch stays within noise."""
    md = []
    for device in sorted({p.device for p in batch.points}):
        ps = sorted((p for p in batch.points if p.device == device), key=lambda p: p.batch)
        # back-to-back pairs of repetitions carry an interval but no verdict (noise.mark_reps)
        judged = [p for p in ps if p.n >= noise.FEW_REPS]
        within = [p for p in judged if noise.within_noise(p.sync_cost_ci) is not False]
        few = min(p.n for p in ps)
        text = f"- Measured, {device}: extra time per `.item()` when logging every epoch"
        if judged:
            text += f" is within noise at {len(within)} of {len(judged)} batch sizes" + (
                f" ({', '.join(str(p.batch) for p in judged if p not in within)} beyond noise)"
                if len(within) < len(judged)
                else ""
            )
        if len(judged) < len(ps):
            text += (
                f"{';' if judged else ':'} {len(ps) - len(judged)} batch sizes with n={few} "
                "back-to-back repetitions each, no verdict"
            )
        md.append(text + " (table below).")
    return md


def _cuda_model_lines(cuda, prims, models, rows):
    """The model's prediction for each CUDA batch, from s and c measured elsewhere."""
    md = []
    s = prims.get("Sync/item_idle", {}).get("us") if prims else None
    if s is None:
        model = next((m for m in models if m.device == "cuda"), None)
        s = model.fit.value("per_item") * 1e6 if model else 0.0
    # c from two places that disagree: the ItemSync runs after any slow period and the
    # smallest batch's never-logging epoch here; the model is given the range between them.
    c = cuda[0].us_per_epoch_never
    ordered, k = summary.slow_period(rows, "cuda")
    item_us = [r.seconds * 1e6 / r.counters["epochs"] for r in ordered][k:]
    c_lo = min(c, float(np.median(item_us))) if item_us else c
    c_hi = max(c, float(np.median(item_us))) if item_us else c
    where = (
        f"c about {c_lo:.0f}"
        + (f"-{c_hi:.0f}" if f"{c_lo:.0f}" != f"{c_hi:.0f}" else "")
        + " us (the batch-120 ItemSync runs"
        + (" after the slow period" if k else "")
        + f", median {np.median(item_us):.0f}; the smallest batch's never-logging epoch here, "
        f"{c:.0f}, n={cuda[0].n})"
        if item_us
        else f"c = {c:.0f} us (the smallest batch's never-logging epoch, n={cuda[0].n})"
    )
    md.append(
        f"- The model on our GPU rows, with s = {s:.1f} us (`Sync/item_idle`, idle GPU) and {where}: "
        f"a batch whose never-logging epoch is over 1.1 x {c_hi:.0f} us is taken as GPU-bound (g = that "
        "epoch > c), so a sync should cost s + c; below that g < c is not measured here and the model "
        "only bounds a sync between s and s + c. Each regime below is inferred from the epoch's time, "
        "not from a measured queue."
    )
    for p in cuda:
        e = p.us_per_epoch_never
        cost = f"a sync cost {p.sync_cost_us:+.1f} us {noise.mark_reps(p.sync_cost_ci, p.n)}"
        if e > 1.1 * c_hi:
            pred = s + c_lo
            text = (
                noise.prediction_verdict(
                    pred,
                    (s + c_lo, s + c_hi),
                    p.sync_cost_us,
                    p.sync_cost_ci,
                    "the measured 95% CI",
                ).text
                if p.n >= noise.FEW_REPS
                else "no verdict"
            )
            lo_hi = f"{s + c_lo:.0f}" + (
                f"-{s + c_hi:.0f}" if f"{s + c_lo:.0f}" != f"{s + c_hi:.0f}" else ""
            )
            md.append(
                f"- cuda batch {p.batch} (GPU-bound by its time, {e:.0f} us/epoch): {cost}; predicted "
                f"s + c = {lo_hi} us: {text}."
            )
        else:
            lo, hi = p.sync_cost_ci or (p.sync_cost_us, p.sync_cost_us)
            inside = hi >= s and lo <= s + c_hi
            md.append(
                f"- cuda batch {p.batch} (launch-bound by its time, {e:.0f} us/epoch): {cost}; "
                f"predicted between s = {s:.1f} and s + c = {s + c_hi:.0f} us: "
                + (
                    "no verdict"
                    if p.n < noise.FEW_REPS
                    else "its 95% CI meets that range"
                    if inside
                    else "its 95% CI lies OUTSIDE that range"
                )
                + "."
            )
    return md


def deep_queue_lines(batch, prims, models, rows=()):
    """When does a sync cost a lot? The same model with the GPU side made slow."""
    md = _deep_queue_intro()
    if not batch.points:
        return md + ["No BatchSweep rows in this folder to test this.", ""]
    md += _measured_lines(batch)
    cuda = sorted((p for p in batch.points if p.device == "cuda"), key=lambda p: p.batch)
    if not cuda:
        md.append(
            "- GPU: pending (no CUDA BatchSweep rows in this folder): this is the measurement that would "
            "show a sync's cost growing with the queue."
        )
    else:
        md += _cuda_model_lines(cuda, prims, models, rows)
    md.append("")
    return md
