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

from analysis import answer, article, bench_json, machine_limit, noise, plots, summary, tables  # noqa: E402
from analysis.bench_json import BenchJsonError  # noqa: E402

MACHINE_FIELDS = ("cpu_model", "gpu_name")


def load_folder(folder):
    paths = sorted(p for p in glob.glob(os.path.join(folder, "*.json")) if not p.endswith(".trace.json"))
    if not paths:
        raise BenchJsonError(f"{folder}: no bench JSON files (*.json) here")
    runs = [bench_json.load(p) for p in paths]
    first = runs[0]
    for run in runs[1:]:
        for key in MACHINE_FIELDS:
            a, b = first.context.get(key), run.context.get(key)
            if str(a).strip() != str(b).strip():
                raise BenchJsonError(f"{run.path}: context field '{key}' is {b!r} but {first.path} has {a!r}: "
                                     "one results folder holds one machine's runs")
    return runs


def fmt_us(fit, name):
    lo, hi = fit.interval(name)
    return f"{fit.value(name) * 1e6:.2f} us [95% CI {lo * 1e6:.2f}, {hi * 1e6:.2f}]"


def attribution_section(rows, machine, folder):
    attr = summary.attribution_rows(rows)
    md = ["", "## Where the time of an epoch goes (traced pass)", ""]
    failed = sorted({r.name for r in rows if r.counters.get("trace_failed", 0) > 0})
    if failed:
        md += [f"**The traced pass FAILED on {len(failed)} configuration(s)** (bench printed why on stderr; their "
               "timed figures stand): " + "; ".join(failed), ""]
    if not attr:
        return md + ["No traced pass in this folder (run bench with --trace_epochs=N).", ""]
    md += ["A separate pass after the timed runs (`--trace_epochs`), per epoch, median over repetitions. "
           "Phases are host time inside our NVTX ranges. `untraced us` and `traced us` are medians of the "
           "repetitions' us per epoch; `overhead` = median traced / median untraced, marked *within noise* when "
           "the 95% CI of traced - untraced (Welch, over the repetitions) holds 0. "
           "Definitions: README.md, *Where the time goes*.", ""]
    head = ["device", "interval", "print100", "untraced us", "traced us", "overhead"] + \
        [f"{p} us" for p in summary.PHASES] + ["us per .item()"]
    body = []
    for a in attr:
        v = a.values
        untraced = float(np.median(a.untraced_us)) if a.untraced_us else float("nan")
        traced = float(np.median(a.traced_us)) if a.traced_us else float("nan")
        ci = a.overhead_ci
        mark = " within noise" if ci is not None and not noise.beyond_noise(ci) else (
            "" if ci is not None else " (n<2)")
        cells = [a.device, tables.interval_label(a.interval), str(a.print100),
                 f"{untraced:.1f}", f"{traced:.1f}", f"{a.overhead:.2f}x{mark}"]
        cells += [f"{v.get(f'phase_{p}_us', 0.0):.1f}" for p in summary.PHASES]
        cells.append(f"{v['item_us_per_call']:.1f}" if "item_us_per_call" in v else "-")
        body.append(cells)
    md += tables.markdown_table(head, body)
    gpu = [a for a in attr if a.device == "cuda"]
    if gpu:
        head = ["interval", "print100", "launches", "launch API us", "kernels", "GPU busy us", "blocked us",
                "idle: host wait us", "idle: kernel wait us", "idle: other us", "launch delay p50 us"]
        body = [[tables.interval_label(a.interval), str(a.print100)] +
                [f"{a.values.get(k, float('nan')):.1f}" for k in summary.GPU_FIELDS] for a in gpu]
        md += ["", "GPU timeline per epoch (CUPTI):", ""] + tables.markdown_table(head, body)
        md += ["", kernel_count_check(rows, gpu)]
    else:
        md += ["", "GPU timeline (CUPTI) pending: no CUDA rows in this folder."]
    md += ["", f"![attribution]({os.path.basename(plots.attribution_plot(attr, machine, os.path.join(folder, 'attribution.png')))})", ""]
    return md


def kernel_count_check(rows, gpu_attr):
    """Kernels per epoch by CUPTI (traced pass, never logging) beside torch.profiler's count
    of the same step in Python (experiments/python_eager.py --profile-kernels)."""
    cupti = next((a.values.get("attr_kernels") for a in gpu_attr if a.interval == 0 and a.print100 == 0), None)
    prof = [r.counters["torch_profiler_kernels_per_epoch"] for r in rows
            if "torch_profiler_kernels_per_epoch" in r.counters]
    if cupti is None or not prof:
        return "Kernel count cross-check pending (needs the never-logging CUDA row and python_eager --profile-kernels)."
    verdict = "they agree" if abs(cupti - prof[0]) < 0.5 else f"they DIFFER by {cupti - prof[0]:+.1f}"
    return (f"Kernels per epoch: {cupti:.1f} by CUPTI in bench's traced pass, {prof[0]:.1f} by torch.profiler on "
            f"the same step in Python eager (SGD one update per parameter, as LibTorch's): {verdict}.")


SPREAD_OK_PCT = 10.0   # a primitive whose repetitions spread more than this cannot predict a loop to 10%


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
        return md + ["No primitive rows in this folder (./bench --benchmark_filter='^(Dispatch|KernelLaunch|Sync|Memcpy)/').", ""]
    run = next((r for r in runs if any(x.family in summary.PRIMITIVE_FAMILIES for x in r.rows)), None)
    md += ["Median over the repetitions of the price of one operation; spread = (max-min)/median over them."
           + (f" Their run: {load_note(run)}." if run else ""), "",
           "| primitive | us (median) | spread (n) | counters |", "|---|---|---|---|"]
    for name, p in prims.items():
        extra = ", ".join(f"{k}={v:.4g}" for k, v in p["counters"].items() if k in (
            "aten_ops_per_step", "kernels_per_step", "gpu_work_us", "queued_ops", "graph_nodes", "bytes_per_second",
            "gate_missed"))
        md.append(f"| {name} | {p['us']:.3f} | {p['spread_pct']:.1f}% (n={p['n']}) | {extra} |")
    unstable = [k for k, p in prims.items() if p["spread_pct"] > SPREAD_OK_PCT or p["n"] < 3]
    if unstable:
        md += ["", f"**Not stable enough to predict to {SPREAD_OK_PCT:g}%**: " + ", ".join(
            f"{k} ({prims[k]['spread_pct']:.0f}%, n={prims[k]['n']})" for k in unstable)
            + ". On a shared machine (other processes on the same cores) this spread is an upper bound of what a "
              "quiet machine gives; predictions below carry it."]
    else:
        md += ["", f"Every primitive's spread is under {SPREAD_OK_PCT:g}% over at least 3 repetitions."]
    published = summary.published_comparison(prims)
    if published:
        md += ["", "Measured against published prices (ranges as issue #6 quotes them):", "",
               "| primitive | what | measured us | published us | lands |", "|---|---|---|---|---|"]
        md += [f"| {k} | {what} | {us:.2f} | {lo:g}-{hi:g} | {verdict} |" for k, what, us, lo, hi, verdict in published]
    else:
        md += ["", "Comparison with published launch, sync and graph-node prices pending: no CUDA primitive rows here."]
    pred = summary.predict_loop(prims, stats, models, summary.attribution_rows(rows))
    if pred:
        md += ["", "Predictions from the primitives, each beside what was measured and a verdict: *within noise* "
               "when the prediction's range [from the primitive's repetitions] meets the measurement's range [its "
               "repetitions, or the fit's 95% CI], *inconclusive* when they meet only because the prediction's own "
               f"spread is over {SPREAD_OK_PCT:g}%, else *off by* the medians' error; the likely reason is given "
               "whenever the verdict is not *within noise* or the medians differ by more than 10%.", "",
               "| device | prediction | predicted | measured | verdict | likely reason (when off, or >10% apart) |",
               "|---|---|---|---|---|---|"]
        for p in pred:
            md += [prediction_row(p, *x) for x in prediction_cases(p)]
    md.append("")
    return md


def _range_verdict(pred, pred_range, measured, measured_range):
    """within noise when [pred_range] and [measured_range] overlap; the error of the medians either way."""
    err = 100.0 * (pred - measured) / measured if measured else float("nan")
    if not measured_range or any(v != v for v in (*pred_range, *measured_range)):
        return f"{err:+.1f}% (n<2: noise unknown)", False
    tol = 1e-9 * max(abs(pred), abs(measured))   # exact agreement must not fail on rounding
    overlap = min(pred_range) <= max(measured_range) + tol and min(measured_range) <= max(pred_range) + tol
    if not overlap:
        return f"off by {err:+.1f}%", False
    spread = 100.0 * (max(pred_range) - min(pred_range)) / pred if pred else 0.0
    if spread > SPREAD_OK_PCT:   # ranges that meet only because the primitive itself is noisy test nothing
        return f"inconclusive ({err:+.1f}%; the prediction's own spread is {spread:.0f}%)", False
    return f"within noise ({err:+.1f}%)", True


def prediction_cases(p):
    """(what, predicted, its range, measured, its range, measured text, reason if off) for one device."""
    r = lambda xs: (min(xs), max(xs)) if len(xs) >= 2 else None   # one repetition: no range
    ms = p["measured_epoch_samples_us"]
    over = p["predicted_epoch_us"] > p["measured_epoch_us"]
    epoch_reason = ("the op count includes nested ATen calls (`linear` calls `t` and `addmm`, autograd nodes call "
                    "their kernels): they run inside a parent's dispatch and cost less than a whole top-level "
                    "`a + a`" if over else
                    "the step's ops do more than a 1-element add (matrix products, autograd bookkeeping, the "
                    "allocator), so one tiny op undercounts them")
    cases = [(f"us/epoch = {p['ops']:.0f} ATen ops x {p['op_us']:.2f} us (one tiny op)", p["predicted_epoch_us"],
              r(p["predicted_epoch_range_us"]), p["measured_epoch_us"], r(ms), "ItemSync never-logging us/epoch",
              epoch_reason + f"; the tiny op's own spread is {p['op_spread_pct']:.0f}%"),
             ("us/epoch = Dispatch train_step (the same loop, timed alone)", p["step_us"], r(p.get("step_samples_us", ())),
              p["measured_epoch_us"], r(ms), "ItemSync never-logging us/epoch",
              "measured minutes apart on cores whose load changed in between")]
    fit_ci = p.get("fitted_item_ci_us")
    item_what = "us/.item() = Sync/item_idle" if p["device"] == "cuda" else "us/.item() = one tiny op"
    cases.append((item_what, p["predicted_item_us"], None, p["fitted_item_us"], fit_ci,
                  "the ItemSync fit's slope [95% CI]",
                  "in the loop a `.item()` also waits for the kernels still queued (s + min(c, g) in the model), "
                  "which Sync/item_idle on an idle GPU does not" if p["device"] == "cuda" else
                  "the fit's slope carries whole runs' noise divided by the calls"))
    traced = p.get("traced_item_samples_us") or ()
    if traced:
        cases.append((item_what, p["predicted_item_us"], None, p["traced_item_us"], r(traced),
                      "traced host time in `item` ranges (median [range over configurations])",
                      "the traced `item` range also holds the conversion to a C++ float and, on CUDA, the wait "
                      "for the queue"))
    return cases


def prediction_row(p, what, pred, pred_range, measured, measured_range, measured_what, reason):
    text, ok = _range_verdict(pred, pred_range or (pred, pred), measured, measured_range)
    rng = lambda x: f" [{x[0]:.2f}, {x[1]:.2f}]" if x else ""
    err = abs(pred - measured) / measured if measured else 0.0
    # A reason whenever the medians differ by more than 10%, even when the ranges meet.
    return (f"| {p['device']} | {what} | {pred:.2f}{rng(pred_range)} | {measured:.2f}{rng(measured_range)} "
            f"{measured_what} | {text} | {'' if ok and err <= 0.10 else reason} |")


def ladder_section(rows, machine, folder):
    rungs = summary.ladder(rows)
    md = ["", "## How fast can it be: the overhead-removal ladder", ""]
    if not rungs:
        return md + ["No Ladder rows in this folder (./bench --benchmark_filter=Ladder).", ""]
    epochs = sorted({int(r.counters["epochs"]) for r in rows if r.family == "Ladder"})
    md += [f"The same problem on every rung: {'/'.join(map(str, epochs))} epochs from the same seeded weights, the loss kept every 100 "
           "epochs. Speed-up against LibTorch eager on the same device in this folder (medians); errors are the "
           "worst repetition's relative difference from LibTorch float64 on the CPU (losses at every record, final "
           "weights).", "",
           "| device | rung | us/epoch | speed-up vs eager | loss error | weight error | host syncs | runs |",
           "|---|---|---|---|---|---|---|---|"]
    fmt = lambda v, f: "-" if v != v else format(v, f)  # nan -> "-"
    for r in rungs:
        md.append(f"| {r.device} | {r.rung} | {r.us_per_epoch:.2f} | {fmt(r.speedup, '.1f')}x | "
                  f"{fmt(r.max_loss_error, '.1e')} | {fmt(r.max_weight_error, '.1e')} | {fmt(r.host_syncs, '.0f')} | {r.n} |")
    md += ["", "Targets:", ""]
    for text, verdict in summary.ladder_targets(rungs):
        md.append(f"- {text}: " + ("pending (rows not in this folder)" if verdict is None
                                   else f"{'met' if verdict[0] else 'NOT met'} ({verdict[1]})"))
    md += ["", f"![ladder]({os.path.basename(plots.ladder_plot(rungs, machine, os.path.join(folder, 'ladder.png')))})", ""]
    return md


def build_report(folder, machine):
    runs = load_folder(folder)
    rows = [r for run in runs for r in run.rows]
    for run in runs:
        bench_json.require_counters(run, "ItemSync", ["epochs", "item_calls", "records"])
        bench_json.require_counters(run, "BatchSweep", ["epochs", "item_calls"])
    stats = summary.summarize(rows, "ItemSync")
    if not stats:
        raise BenchJsonError(f"{folder}: no ItemSync rows that ran (run ./bench --benchmark_filter=ItemSync)")
    models = summary.fit_devices(rows)
    batch = summary.batch_analysis(rows)
    checks = summary.article_checks()
    skipped = [(run.path, name, msg) for run in runs for name, msg in run.skipped]
    ctx = runs[0].context

    has_gpu = any(s.device == "cuda" for s in stats) or str(ctx.get("gpu_name", "none")).strip() not in ("none", "")

    md = [f"# Why is the GPU slower on a tiny model? Measurements on {machine}", ""]
    md += ["Generated by `python -m analysis.report " + os.path.relpath(folder) + "` from "
           + ", ".join(f"`{os.path.basename(r.path)}`" for r in runs) + ".", ""]
    md += [f"- CPU: {ctx.get('cpu_model')} ({ctx.get('cpu_threads_torch')} torch threads); GPU: {ctx.get('gpu_name')}"
           f" (CUDA runtime {ctx.get('cuda_runtime')}, driver {ctx.get('cuda_driver')})",
           f"- torch {ctx.get('torch_version')}, {ctx.get('epochs')} epochs per ItemSync run, timed runs untraced "
           f"({ctx.get('tracing')})",
           "- runs: " + "; ".join(f"`{os.path.basename(r.path)}` commit {r.context.get('git_commit')}, {load_note(r)}"
                                  for r in runs), ""]
    if not any(s.device == "cuda" for s in stats):
        md += ["**GPU figures pending**: no CUDA rows ran in this folder"
               + (f" ({skipped[0][2]})" if skipped else "") + ".", ""]
    md += answer.article_section(stats, has_gpu)
    md += answer.answer_section(models, checks, stats, batch, summary.primitives(rows))
    md += ["## Our whole sweep", "",
           f"Loop time of {ctx.get('epochs')} epochs, median over repetitions; spread = (max-min)/median; "
           "\"above never\" = this row's median minus the never-logging row's median with the same print100, "
           "with the 95% CI of the difference of the two rows' means (Welch, over the repetitions), marked *within noise* when it holds 0. "
           "Article figures as in the tables above.", "", tables.render_markdown(stats), ""]
    md += ["## The model", "",
           "`loop seconds = epochs x per_epoch + .item() calls x per_item`, least squares over every "
           f"repetition of the batch-120 ItemSync rows except interval {summary.HELD_OUT_INTERVAL} (held out).", ""]
    md += ["| device | per epoch | per .item() | R² | runs | note |", "|---|---|---|---|---|---|"]
    for m in models:
        md.append(f"| {m.device} | {fmt_us(m.fit, 'per_epoch')} | {fmt_us(m.fit, 'per_item')} | {m.fit.r2:.4f} | "
                  f"{m.fit.n} | {m.fit.note} |")
    md += ["", "### Held-out prediction", "",
           "Verdict: *within noise* when the prediction lies inside the measured repetitions' range, else *off by* "
           "its error against their median.", ""]
    held = [(m.device, c, p) for m in models for c, p in m.held_out]
    if held or batch.held_out:
        md += ["| configuration | measured (range, n) | predicted | verdict | likely reason when off |",
               "|---|---|---|---|---|"]
    for d, c, p in held:
        text, _, ok = noise.verdict(p, c.samples)
        md.append(f"| {d} interval {c.interval} print100 {c.print100} (s) | {c.median_s:.3f} "
                  f"({c.min_s:.3f}-{c.max_s:.3f}, n={c.n}) | {p:.3f} | {text} | "
                  f"{'' if ok else 'the fit averages over runs whose speed moved with the machine load'} |")
    for device, b, measured, pred, samples in batch.held_out:
        text, err, ok = noise.verdict(pred, samples)
        reason = "" if ok else ("an affine c(B) over four decades of batch: the per-row cost is not one number "
                                "(cache-resident batches cost less per row than the 10^6-row batch that "
                                "dominates the slope)" if err > 0 else
                                "an affine c(B) over four decades of batch: the per-row cost is not one number")
        md.append(f"| {device} batch {b} (us/epoch, from the batch fit) | {measured:.1f} "
                  f"({min(samples):.1f}-{max(samples):.1f}, n={len(samples)}) | {pred:.1f} | {text} | {reason} |")
    if not held and not batch.held_out:
        md.append(f"No held-out rows (interval {summary.HELD_OUT_INTERVAL}, batch {summary.HELD_OUT_BATCH}) in this folder.")
    md += ["", f"![time vs .item() calls]({os.path.basename(plots.item_calls_plot(rows, models, machine, os.path.join(folder, 'item_calls.png')))})", ""]
    md += attribution_section(rows, machine, folder)
    md += primitives_section(rows, stats, models, runs)
    md += ["", "## Batch size: where the GPU starts to win, and what a sync costs with more work queued", ""]
    if batch.points:
        md += ["`extra us per .item()` = (median us/epoch logging every epoch - median us/epoch never logging), one "
               "`.item()` per epoch; beside it the 95% CI of the same difference of means (Welch, over the repetitions) and *within noise* marks "
               "an interval that holds 0.", "",
               "| device | batch | us/epoch, never | us/epoch, .item() every epoch | extra us per .item() |",
               "|---|---|---|---|---|"]
        md += [f"| {p.device} | {p.batch} | {p.us_per_epoch_never:.1f} | {p.us_per_epoch_every:.1f} | "
               f"{p.sync_cost_us:+.1f} {noise.mark(p.sync_cost_ci)} |"
               for p in sorted(batch.points, key=lambda p: (p.device, p.batch))]
        md.append("")
        for device, fit in batch.fits.items():
            md.append(f"- {device}: c(B) = {fit.value('base_us'):.1f} us + {fit.value('per_row_us') * 1e3:.3f} ns "
                      f"x rows (R² = {fit.r2:.3f}, {fit.note}; batch {summary.HELD_OUT_BATCH} held out).")
        if any(p.device == "cuda" for p in batch.points):
            md.append(f"- The GPU is faster than the CPU from batch {batch.crossover} on." if batch.crossover
                      else "- The GPU was not faster than the CPU at any swept batch.")
        else:
            md.append("- GPU batch rows pending (no CUDA rows in this folder).")
        md += ["", f"![batch sweep]({os.path.basename(plots.batch_plot(batch, machine, os.path.join(folder, 'batch_sweep.png')))})", ""]
    else:
        md += ["No BatchSweep rows in this folder.", ""]
    md += ladder_section(rows, machine, folder)
    md += machine_limit.section(rows, machine, folder)
    if skipped:
        md += ["## Rows that did not run", ""] + skipped_lines(skipped) + [""]
    return stats, "\n".join(md)


def skipped_lines(skipped):
    """One line per family and reason: '- Memcpy: 144 rows skipped: no CUDA driver ...'."""
    count = {}
    for _, name, msg in skipped:
        key = (name.split("/")[0], msg)
        count[key] = count.get(key, 0) + 1
    return [f"- {family}: {n} row{'s' if n > 1 else ''} {msg if msg.startswith('skipped') else 'failed: ' + msg}"
            for (family, msg), n in sorted(count.items())]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="results folder holding bench JSON (e.g. results/nvidia-h200)")
    ap.add_argument("--machine", help="name for titles (default: the folder name)")
    args = ap.parse_args(argv)
    folder = os.path.abspath(args.folder)
    machine = args.machine or os.path.basename(folder.rstrip("/"))
    try:
        stats, text = build_report(folder, machine)
    except BenchJsonError as e:
        print(f"analysis.report: {e}", file=sys.stderr)
        return 2
    print(tables.render_text(stats))
    out = os.path.join(folder, "REPORT.md")
    tables.write_atomic(out, text)
    print(f"\nwrote {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
