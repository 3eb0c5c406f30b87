"""One command from bench JSON to results/<machine>/REPORT.md and its plots.

    python -m analysis.report results/<machine>         (from the repository root)

Reads every Google Benchmark JSON in the folder (item_sync.json, batch_sweep.json, ...),
prints the article's table beside ours, fits the model, and writes REPORT.md and PNGs
next to the JSON. Every output is written to a temporary file and renamed, so a failed
run leaves the previous report intact. Exit 2 with a message naming the file and field
on bad input.
"""

import argparse
import glob
import os
import sys

import numpy as np

if __package__ in (None, ""):  # run as a script: make `analysis` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analysis import answer, bench_json, machine_limit, noise, plots, summary, tables  # noqa: E402
from analysis import fit as fitting  # noqa: E402
from analysis.bench_json import BenchJsonError  # noqa: E402
from analysis import replay_validation  # noqa: E402

MACHINE_FIELDS = ("cpu_model", "gpu_name")


def load_folder(folder):
    paths = sorted(
        p for p in glob.glob(os.path.join(folder, "*.json")) if not p.endswith(".trace.json")
    )
    if not paths:
        raise BenchJsonError(f"{folder}: no bench JSON files (*.json) here")
    runs = [bench_json.load(p) for p in paths]
    first = runs[0]
    for run in runs[1:]:
        for key in MACHINE_FIELDS:
            a, b = first.context.get(key), run.context.get(key)
            if str(a).strip() != str(b).strip():
                raise BenchJsonError(
                    f"{run.path}: context field '{key}' is {b!r} but {first.path} has {a!r}: "
                    "one results folder holds one machine's runs"
                )
    return runs


def fmt_us(fit, name):
    lo, hi = fit.interval(name)
    return f"{fit.value(name) * 1e6:.2f} us [95% CI {lo * 1e6:.2f}, {hi * 1e6:.2f}]"


def attribution_section(rows, machine, folder):
    attr = summary.attribution_rows(rows)
    md = ["", "## Where the time of an epoch goes (traced pass)", ""]
    failed = sorted({r.name for r in rows if r.counters.get("trace_failed", 0) > 0})
    if failed:
        md += [
            f"**The traced pass FAILED on {len(failed)} configuration(s)** (bench printed why on stderr; their "
            "timed figures stand): " + "; ".join(failed),
            "",
        ]
    if not attr:
        return md + ["No traced pass in this folder (run bench with --trace_epochs=N).", ""]
    md += [
        "A separate pass after the timed runs (`--trace_epochs`), per epoch, median over repetitions. "
        "Phases are host time inside our NVTX ranges; `outside the phases` is the rest of the traced epoch, so "
        "that the phases and it add up to `traced us`. `untraced us` and `traced us` are medians of the "
        "repetitions' us per epoch and `overhead` = median traced / median untraced; `traced - untraced` is the "
        "difference of the means with its 95% CI (Welch, over the repetitions), *within noise* when that holds "
        "0. `us per .item()` is the traced host time of one `.item()` (not a share of the epoch). "
        "Definitions: docs/experiment.md, *Where the time goes*.",
        "",
    ]
    head = (
        [
            "device",
            "interval",
            "print100",
            "untraced us",
            "traced us",
            "overhead",
            "traced - untraced us (mean)",
        ]
        + [f"{p} us" for p in summary.PHASES]
        + ["outside the phases us", "us per .item()"]
    )
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
    md += tables.markdown_table(head, body)
    gpu = [a for a in attr if a.device == "cuda"]
    if gpu:
        head = [
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
        body = [
            [tables.interval_label(a.interval), str(a.print100)]
            + [f"{a.values.get(k, float('nan')):.1f}" for k in summary.GPU_FIELDS]
            for a in gpu
        ]
        md += ["", "GPU timeline per epoch (CUPTI):", ""] + tables.markdown_table(head, body)
        md += ["", kernel_count_check(rows, gpu)]
    else:
        md += ["", "GPU timeline (CUPTI) pending: no CUDA rows in this folder."]
    md += [
        "",
        f"![attribution]({os.path.basename(plots.attribution_plot(attr, machine, os.path.join(folder, 'attribution.png')))})",
        "",
        f"*{plots.ATTRIBUTION_CAPTION}*",
        "",
    ]
    return md


def kernel_count_check(rows, gpu_attr):
    """Kernels per epoch by CUPTI (traced pass, never logging) beside torch.profiler's count
    of the same step in Python (experiments/python_eager.py --profile-kernels)."""
    cupti = next(
        (a.values.get("attr_kernels") for a in gpu_attr if a.interval == 0 and a.print100 == 0),
        None,
    )
    prof = [
        r.counters["torch_profiler_kernels_per_epoch"]
        for r in rows
        if "torch_profiler_kernels_per_epoch" in r.counters
    ]
    if cupti is None or not prof:
        return "Kernel count cross-check pending (needs the never-logging CUDA row and python_eager --profile-kernels)."
    verdict = (
        "they agree" if abs(cupti - prof[0]) < 0.5 else f"they DIFFER by {cupti - prof[0]:+.1f}"
    )
    return (
        f"Kernels per epoch: {cupti:.1f} by CUPTI in bench's traced pass, {prof[0]:.1f} by torch.profiler on "
        f"the same step in Python eager (SGD one update per parameter, as LibTorch's): {verdict}."
    )


# Why an affine per-epoch cost misses a batch by more than 10%: a likely reason, said as one.
BATCH_MISS_REASON = (
    "An affine cost has one price per row; the measured price per row is not one number across four "
    "decades of batch (a likely reason, not measured here: the largest batches' tensors no longer "
    "fit the caches, and allocations that size are mapped afresh page by page), and the weighted "
    "fit follows the many smaller batches"
)
SPREAD_OK_PCT = (
    noise.TIGHT_PCT
)  # a primitive whose repetitions spread more than this cannot predict a loop to 10%


def load_note(run):
    """'load average 1.99 on 2 CPUs' from Google Benchmark's context, when it recorded one."""
    load, cpus = run.context.get("load_avg"), run.context.get("num_cpus")
    if isinstance(load, list) and load and isinstance(load[0], (int, float)):
        return f"1-minute load average {load[0]:.2f} on {cpus} CPUs when it started"
    return "load not recorded"


def primitives_section(rows, stats, models, runs=()):
    prims = summary.primitives(rows)
    md = ["", "## The primitives on their own, and the loop predicted from them", ""]
    if not prims:
        return md + [
            "No primitive rows in this folder (./bench --benchmark_filter='^(Dispatch|KernelLaunch|Sync|Memcpy)/').",
            "",
        ]
    run = next(
        (r for r in runs if any(x.family in summary.PRIMITIVE_FAMILIES for x in r.rows)), None
    )
    md += [
        "Median over the repetitions of the price of one operation; spread = (max-min)/median over them."
        + (f" Their run: {load_note(run)}." if run else ""),
        "",
        "| primitive | us (median) | spread (n) | counters |",
        "|---|---|---|---|",
    ]
    for name, p in prims.items():
        extra = ", ".join(
            f"{k}={v:.4g}"
            for k, v in p["counters"].items()
            if k
            in (
                "aten_ops_per_step",
                "kernels_per_step",
                "gpu_work_us",
                "queued_ops",
                "graph_nodes",
                "bytes_per_second",
                "gate_missed",
            )
        )
        md.append(f"| {name} | {p['us']:.3f} | {p['spread_pct']:.1f}% (n={p['n']}) | {extra} |")
    unstable = [k for k, p in prims.items() if p["spread_pct"] > SPREAD_OK_PCT or p["n"] < 3]
    if unstable:
        md += [
            "",
            f"**Not stable enough to predict to {SPREAD_OK_PCT:g}%**: "
            + ", ".join(f"{k} ({prims[k]['spread_pct']:.0f}%, n={prims[k]['n']})" for k in unstable)
            + ". On a shared machine (other processes on the same cores) this spread is an upper bound of what a "
            "quiet machine gives; predictions below carry it.",
        ]
    else:
        md += [
            "",
            f"Every primitive's spread is under {SPREAD_OK_PCT:g}% over at least 3 repetitions.",
        ]
    published = summary.published_comparison(prims)
    if published:
        md += [
            "",
            "Measured against published prices (ranges as issue #6 quotes them):",
            "",
            "| primitive | what | measured us | published us | lands |",
            "|---|---|---|---|---|",
        ]
        md += [
            f"| {k} | {what} | {us:.2f} | {lo:g}-{hi:g} | {verdict} |"
            for k, what, us, lo, hi, verdict in published
        ]
    else:
        md += [
            "",
            "Comparison with published launch, sync and graph-node prices pending: no CUDA primitive rows here.",
        ]
    pred = summary.predict_loop(prims, stats, models, summary.attribution_rows(rows))
    if pred:
        md += [
            "",
            "Predictions from the primitives, each beside what was measured, with a verdict (analysis/noise.py): "
            "*agrees* when the prediction's range [from the primitive's repetitions] meets the measurement's "
            "range [its repetitions, or the fit's 95% CI] and both are narrower than "
            f"{SPREAD_OK_PCT:g}% of their centre; *inconclusive* when they meet only because one of them is wider "
            "(or the measured CI holds 0, against which no % error is computed); else *off by* the error against "
            "the measurement. The verdict says its reason; the last column gives the likely physical reason "
            "whenever the verdict is not *agrees*.",
            "",
            "| device | prediction | predicted | measured | verdict | likely reason (when not agrees) |",
            "|---|---|---|---|---|---|",
        ]
        for p in pred:
            md += [prediction_row(p, *x) for x in prediction_cases(p)]
    md.append("")
    return md


def prediction_cases(p):
    """(what, predicted, its range, measured, its range, measured text, reason if off) for one device."""
    r = lambda xs: (min(xs), max(xs)) if len(xs) >= 2 else None  # one repetition: no range
    ms = p["measured_epoch_samples_us"]
    over = p["predicted_epoch_us"] > p["measured_epoch_us"]
    epoch_reason = (
        "the op count includes nested ATen calls (`linear` calls `t` and `addmm`, autograd nodes call "
        "their kernels): they run inside a parent's dispatch and cost less than a whole top-level "
        "`a + a`"
        if over
        else "the step's ops do more than a 1-element add (matrix products, autograd bookkeeping, the "
        "allocator), so one tiny op undercounts them"
    )
    cases = [
        (
            f"us/epoch = {p['ops']:.0f} ATen ops x {p['op_us']:.2f} us (one tiny op)",
            p["predicted_epoch_us"],
            r(p["predicted_epoch_range_us"]),
            p["measured_epoch_us"],
            r(ms),
            "ItemSync never-logging us/epoch",
            epoch_reason + f"; the tiny op's own spread is {p['op_spread_pct']:.0f}%",
        ),
        (
            "us/epoch = Dispatch train_step (the same loop, timed alone)",
            p["step_us"],
            r(p.get("step_samples_us", ())),
            p["measured_epoch_us"],
            r(ms),
            "ItemSync never-logging us/epoch",
            "measured minutes apart on cores whose load changed in between",
        ),
    ]
    fit_ci = p.get("fitted_item_ci_us")
    item_what = (
        "us/.item() = Sync/item_idle" if p["device"] == "cuda" else "us/.item() = one tiny op"
    )
    # The .item() predictions carry the primitive's own range too: a 49%-spread tiny op makes
    # them as inconclusive as the per-epoch row built on the same op.
    item_range = r(p.get("predicted_item_samples_us", ()))
    cases.append(
        (
            item_what,
            p["predicted_item_us"],
            item_range,
            p["fitted_item_us"],
            fit_ci,
            "the ItemSync fit's slope [95% CI]",
            "in the loop a `.item()` also waits for the kernels still queued (s + min(c, g) in the model), "
            "which Sync/item_idle on an idle GPU does not"
            if p["device"] == "cuda"
            else "the fit's slope carries whole runs' noise divided by the calls",
        )
    )
    traced = p.get("traced_item_samples_us") or ()
    if traced:
        cases.append(
            (
                item_what,
                p["predicted_item_us"],
                item_range,
                p["traced_item_us"],
                r(traced),
                "traced host time in `item` ranges (median [range over configurations])",
                "the traced `item` range also holds the conversion to a C++ float and, on CUDA, the wait "
                "for the queue",
            )
        )
    return cases


def prediction_row(p, what, pred, pred_range, measured, measured_range, measured_what, reason):
    v = noise.prediction_verdict(pred, pred_range, measured, measured_range, "the measured range")
    rng = lambda x: f" [{x[0]:.2f}, {x[1]:.2f}]" if x else ""
    return (
        f"| {p['device']} | {what} | {pred:.2f}{rng(pred_range)} | {measured:.2f}{rng(measured_range)} "
        f"{measured_what} | {v.text} | {'' if v.agrees else reason} |"
    )


def ladder_section(rows, machine, folder):
    rungs = summary.ladder(rows)
    md = ["", "## How fast can it be: the overhead-removal ladder", ""]
    if not rungs:
        return md + ["No Ladder rows in this folder (./bench --benchmark_filter=Ladder).", ""]
    md += [
        "The same problem on every rung, from the same seeded weights, the loss kept every 100 epochs "
        "(`.item()` on the rungs that sync for it: `host syncs`); the rungs did not all run as many epochs "
        "(`epochs`, `losses kept`), so they compare per epoch. Speed-up against LibTorch eager on the same device "
        "in this folder (ratio of medians). Errors are the worst repetition's relative difference from the same "
        "training in float64 on the CPU (LibTorch's for bench's rungs, PyTorch's for the Python ones; losses at "
        "every record, final weights); *not checked* where the run did not make that check.",
        "",
        "| device | rung | threads | epochs | losses kept | us/epoch | speed-up vs eager | loss error "
        "| weight error | host syncs | runs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    fmt = lambda v, f, missing="-": missing if v != v else format(v, f)  # nan -> missing
    for r in rungs:
        md.append(
            f"| {r.device} | {r.rung} | {fmt(r.threads, '.0f')} | {fmt(r.epochs, '.0f')} | "
            f"{fmt(r.records, '.0f')} | {r.us_per_epoch:.2f} | {fmt(r.speedup, '.1f')}x | "
            f"{fmt(r.max_loss_error, '.1e', 'not checked')} | {fmt(r.max_weight_error, '.1e', 'not checked')} | "
            f"{fmt(r.host_syncs, '.0f')} | {r.n} |"
        )
    md.append("")
    md += ladder_notes(rungs)
    md += ["", "Targets:", ""]
    for text, verdict in summary.ladder_targets(rungs):
        md.append(
            f"- {text}: "
            + (
                "pending (rows not in this folder)"
                if verdict is None
                else f"{'met' if verdict[0] else 'NOT met'} ({verdict[1]})"
            )
        )
    md += [
        "",
        f"![ladder]({os.path.basename(plots.ladder_plot(rungs, machine, os.path.join(folder, 'ladder.png')))})",
        "",
        f"*{plots.LADDER_CAPTION}*",
        "",
    ]
    return md


def ladder_notes(rungs):
    """What the ladder table alone would leave unsaid: rungs that are one configuration
    measured twice, and rungs whose run did not check its losses against float64."""
    md = []
    for a, b in summary.same_configuration_pairs(rungs):
        diff, ci = noise.mean_difference(a.samples_us, b.samples_us)
        md.append(
            f"- {a.rung} and {b.rung} both ran on {a.threads:.0f} threads here: one configuration measured "
            f"twice, so their {a.speedup:.2f}x and {b.speedup:.2f}x differ by run-to-run noise only "
            f"({b.rung} - {a.rung}, difference of the means: {diff:+.2f} us/epoch "
            f"{noise.mark(ci, fmt='+.2f')})."
        )
    eager = {r.device: r for r in rungs if r.rung == "libtorch_eager"}
    for r in rungs:
        if r.max_loss_error != r.max_loss_error and r.device in eager:
            e = eager[r.device]
            same = (
                "the same float32 value"
                if r.final_loss == e.final_loss
                else f"{abs(r.final_loss - e.final_loss) / abs(e.final_loss):.1e} apart (relative)"
            )
            md.append(
                f"- {r.device} {r.rung}: its run wrote no comparison of its losses and weights with float64; "
                f"its final loss, {r.final_loss:.7g}, and LibTorch eager's, "
                f"{e.final_loss:.7g}, are {same}."
            )
    return md


def build_report(folder, machine):
    runs = load_folder(folder)
    rows = [r for run in runs for r in run.rows]
    for run in runs:
        bench_json.require_counters(run, "ItemSync", ["epochs", "item_calls", "records"])
        bench_json.require_counters(run, "BatchSweep", ["epochs", "item_calls"])
    stats = summary.summarize(rows, "ItemSync")
    if not stats:
        raise BenchJsonError(
            f"{folder}: no ItemSync rows that ran (run ./bench --benchmark_filter=ItemSync)"
        )
    models = summary.fit_devices(rows)
    batch = summary.batch_analysis(rows)
    checks = summary.article_checks()
    skipped = [(run.path, name, msg) for run in runs for name, msg in run.skipped]
    ctx = runs[0].context

    has_gpu = any(s.device == "cuda" for s in stats) or str(
        ctx.get("gpu_name", "none")
    ).strip() not in ("none", "")

    md = [f"# Why is the GPU slower on a tiny model? Measurements on {machine}", ""]
    md += [
        "Generated by `python -m analysis.report "
        + os.path.relpath(folder)
        + "` from "
        + ", ".join(f"`{os.path.basename(r.path)}`" for r in runs)
        + ".",
        "",
    ]
    md += [
        f"- CPU: {ctx.get('cpu_model')} ({ctx.get('cpu_threads_torch')} torch threads); GPU: {ctx.get('gpu_name')}"
        f" (CUDA runtime {ctx.get('cuda_runtime')}, driver {ctx.get('cuda_driver')})",
        f"- torch {ctx.get('torch_version')}, {ctx.get('epochs')} epochs per ItemSync run, timed runs untraced "
        f"({ctx.get('tracing')})",
        "- runs: "
        + "; ".join(
            f"`{os.path.basename(r.path)}` commit {r.context.get('git_commit')}, {load_note(r)}"
            for r in runs
        ),
        "",
    ]
    if not any(s.device == "cuda" for s in stats):
        md += [
            "**GPU figures pending**: no CUDA rows ran in this folder"
            + (f" ({skipped[0][2]})" if skipped else "")
            + ".",
            "",
        ]
    md += answer.article_section(stats, has_gpu)
    md += answer.answer_section(models, checks, stats, batch, summary.primitives(rows))
    nevers = [c for c in stats if c.interval == 0 and c.batch == summary.FIT_BATCH]
    md += [
        "## Our whole sweep",
        "",
        f"Loop time of {ctx.get('epochs')} epochs, median over repetitions; spread = (max-min)/median. "
        "`above 0 calls` = this row's mean minus the reference, the model's fitted loop time at 0 `.item()` "
        "calls (epochs x per_epoch, the fit in the next section, over every repetition of every fitted row), "
        "with the 95% CI of that same difference (Welch-Satterthwaite over the row's repetitions and the fit), "
        "marked *within noise* when it holds 0. Why that reference: a single never-logging row is 3 "
        "repetitions, and one slow repetition moves it"
        + (
            " (here the never-logging rows spread "
            + " and ".join(
                f"{c.spread_pct:.1f}% ({c.device}, print100 {c.print100})" for c in nevers
            )
            + ")"
            if nevers
            else ""
        )
        + "; the fit at 0 calls is what every row says not logging costs, and no one row moves it much. "
        "Article figures as in the tables above.",
        "",
        tables.render_markdown(stats, models),
        "",
    ]
    md += [
        "## The model",
        "",
        "`loop seconds = epochs x per_epoch + .item() calls x per_item`, least squares over every "
        f"repetition of the batch-{summary.FIT_BATCH} ItemSync rows except interval {summary.HELD_OUT_INTERVAL} "
        "(held out).",
        "",
    ]
    md += ["| device | per epoch | per .item() | R² | runs | note |", "|---|---|---|---|---|---|"]
    for m in models:
        md.append(
            f"| {m.device} | {fmt_us(m.fit, 'per_epoch')} | {fmt_us(m.fit, 'per_item')} | {m.fit.r2:.4f} | "
            f"{m.fit.n} | {m.fit.note} |"
        )
    md += [
        "",
        "### Held-out prediction",
        "",
        "Each held-out configuration's prediction against its repetitions' range (min-max), with the verdict "
        "of analysis/noise.py: *agrees* when the prediction lies inside the range and the range is narrower than "
        f"{noise.TIGHT_PCT:g}% of its median, *inconclusive* when it lies inside only a wider range, else *off by* "
        "its error against the median.",
        "",
    ]
    held = [(m.device, c, p) for m in models for c, p in m.held_out]
    if held or batch.held_out:
        md += [
            "| configuration | measured (range, n) | predicted | verdict | likely reason when not agrees |",
            "|---|---|---|---|---|",
        ]
    for d, c, p in held:
        v = noise.prediction_verdict(
            p, None, c.median_s, (c.min_s, c.max_s) if c.n >= 2 else None, "the repetitions' range"
        )
        md.append(
            f"| {d} interval {c.interval} print100 {c.print100} (s) | {c.median_s:.3f} "
            f"({c.min_s:.3f}-{c.max_s:.3f}, n={c.n}) | {p:.3f} | {v.text} | "
            f"{'' if v.agrees else 'the fit averages over runs whose speed moved with the machine load'} |"
        )
    for device, b, measured, pred, samples in batch.held_out:
        v = noise.prediction_verdict(
            pred,
            None,
            measured,
            (min(samples), max(samples)) if len(samples) >= 2 else None,
            "the repetitions' range",
        )
        reason = (
            ""
            if v.agrees
            else (
                "an affine c(B) over four decades of batch: the per-row cost is not one number "
                "(cache-resident batches cost less per row than the 10^6-row batch that "
                "dominates the slope)"
                if v.err_pct > 0
                else "an affine c(B) over four decades of batch: the per-row cost is not one number"
            )
        )
        md.append(
            f"| {device} batch {b} (us/epoch, from the batch fit) | {measured:.1f} "
            f"({min(samples):.1f}-{max(samples):.1f}, n={len(samples)}) | {pred:.1f} | {v.text} | {reason} |"
        )
    if not held and not batch.held_out:
        md.append(
            f"No held-out rows (interval {summary.HELD_OUT_INTERVAL}, batch {summary.HELD_OUT_BATCH}) in this folder."
        )
    md += [
        "",
        f"![time vs .item() calls]({os.path.basename(plots.item_calls_plot(rows, models, machine, os.path.join(folder, 'item_calls.png')))})",
        "",
        f"*{plots.ITEM_CALLS_CAPTION}*",
        "",
    ]
    md += attribution_section(rows, machine, folder)
    md += replay_validation.section(folder, stats)
    md += primitives_section(rows, stats, models, runs)
    md += [
        "",
        "## Batch size: where the GPU starts to win, and what a sync costs with more work queued",
        "",
    ]
    if batch.points:
        md += [
            "`extra us per .item()` = (mean us/epoch logging every epoch - mean us/epoch never logging), one "
            "`.item()` per epoch, with the 95% CI of that same difference of means (Welch, over the repetitions), "
            "*within noise* when it holds 0; `% of an epoch` is the same figure and interval divided by the mean "
            "never-logging epoch (what the plot's right panel draws). The us/epoch columns are medians.",
            "",
            "| device | batch | us/epoch, never | us/epoch, .item() every epoch | extra us per .item() (mean) "
            "| % of an epoch |",
            "|---|---|---|---|---|---|",
        ]
        md += [
            f"| {p.device} | {p.batch} | {p.us_per_epoch_never:.1f} | {p.us_per_epoch_every:.1f} | "
            f"{p.sync_cost_us:+.1f} {noise.mark(p.sync_cost_ci)} | "
            f"{p.sync_cost_pct:+.1f}% {noise.mark(p.sync_cost_pct_ci, unit='%')} |"
            for p in sorted(batch.points, key=lambda p: (p.device, p.batch))
        ]
        md.append("")
        for device, f in batch.fits.items():
            ps = [p for p in batch.points if p.device == device]
            worst = fitting.batch_cost_misses(
                f, [p.batch for p in ps], [p.us_per_epoch_never for p in ps]
            )[0]
            md.append(
                f"- {device}: c(B) = {f.value('base_us'):.1f} us + {f.value('per_row_us') * 1e3:.3f} ns "
                f"x rows (R² = {f.r2:.3f}, {f.note}; batch {summary.HELD_OUT_BATCH} held out). "
                f"Its largest miss: batch {worst[0]:,}, fitted {worst[2]:,.0f} us against {worst[1]:,.0f} "
                f"measured ({worst[3]:+.0f}%)"
                + (". " + BATCH_MISS_REASON if abs(worst[3]) > noise.TIGHT_PCT else "")
                + "."
            )
        if any(p.device == "cuda" for p in batch.points):
            md.append(
                f"- The GPU is faster than the CPU from batch {batch.crossover} on."
                if batch.crossover
                else "- The GPU was not faster than the CPU at any swept batch."
            )
        else:
            md.append("- GPU batch rows pending (no CUDA rows in this folder).")
        md += [
            "",
            f"![batch sweep]({os.path.basename(plots.batch_plot(batch, machine, os.path.join(folder, 'batch_sweep.png')))})",
            "",
            f"*{plots.BATCH_CAPTION}*",
            "",
        ]
    else:
        md += ["No BatchSweep rows in this folder.", ""]
    md += ladder_section(rows, machine, folder)
    md += machine_limit.section(rows, machine, folder)
    if skipped:
        md += ["## Rows that did not run", ""] + skipped_lines(skipped) + [""]
    return tables.render_text(stats, models), "\n".join(md)


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="results folder holding bench JSON (e.g. results/nvidia-h200)")
    ap.add_argument("--machine", help="name for titles (default: the folder name)")
    args = ap.parse_args(argv)
    folder = os.path.abspath(args.folder)
    machine = args.machine or os.path.basename(folder.rstrip("/"))
    try:
        console, text = build_report(folder, machine)
    except BenchJsonError as e:
        print(f"analysis.report: {e}", file=sys.stderr)
        return 2
    print(console)
    out = os.path.join(folder, "REPORT.md")
    tables.write_atomic(out, text)
    print(f"\nwrote {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
