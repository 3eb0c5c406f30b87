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

if __package__ in (None, ""):  # run as a script: make `analysis` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analysis import article, bench_json, plots, summary, tables  # noqa: E402
from analysis import machine_limit  # noqa: E402
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


def answer_lines(models, checks):
    lines = []
    for m in models:
        c, s = m.fit.value("per_epoch"), m.fit.value("per_item")
        lo, hi = m.fit.interval("per_item")
        calls = [n for _, _, n in checks["table_item_calls"]]
        sync_part = (max(calls) - min(calls)) * s
        total = article.EPOCHS * c + max(calls) * s
        text = (f"- **{m.device}**: one epoch costs {fmt_us(m.fit, 'per_epoch')}; a 20000-epoch run spends "
                f"{article.EPOCHS * c:.2f} s on epochs whatever the logging. The article's table rows differ only in "
                f"their `.item()` count ({', '.join(map(str, calls))}, because the every-100 print stayed). ")
        if lo <= 0 <= hi:
            text += (f"One `.item()` costs {fmt_us(m.fit, 'per_item')} (R² = {m.fit.r2:.3f}, {m.fit.n} runs): not "
                     f"distinguishable from zero here, because the run-to-run noise of whole runs is larger than "
                     f"every sync in them; even at the interval's upper end, the table's 380-call spread is worth "
                     f"{380 * hi * 1e3:.1f} ms of a {article.EPOCHS * c:.2f} s run. ")
        else:
            text += (f"One `.item()` costs {fmt_us(m.fit, 'per_item')} (R² = {m.fit.r2:.3f}, {m.fit.n} runs), so "
                     f"those rows differ by {sync_part * 1e3:.1f} ms: {100 * sync_part / total:.2f}% of the run. ")
        text += ("Time is affine in the number of syncs with a large intercept, so it is not proportional to the "
                 "number of records.")
        lines.append(text)
    lines.append(
        f"- **The article's own numbers** say the same: its two GPU runs differ by 19800 `.item()` calls and "
        f"0.91 s, {checks['per_call_us']:.1f} us per call; the table's calls span only "
        f"{checks['sync_spread_calls']} calls, worth {checks['sync_spread_s'] * 1e3:.1f} ms, against a "
        f"{checks['table_spread_s']:.2f} s spread in the table: its differences are run-to-run noise. Its "
        f"\"no recording\" run (2.86 s) never moved anything to the GPU: it is a CPU time, next to the CPU "
        f"run's 2.93 s. Its ~{checks['gpu_us_per_epoch']:.0f} us per GPU epoch is per-operation work (Python "
        f"dispatch, autograd, ~20 kernel launches), not logging.")
    return lines


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
           "Phases are host time inside our NVTX ranges; `overhead` = traced / untraced us per epoch. "
           "Definitions: README.md, *Where the time goes*.", ""]
    head = ["device", "interval", "print100", "untraced us", "traced us", "overhead"] + \
        [f"{p} us" for p in summary.PHASES] + ["us per .item()"]
    body = []
    for a in attr:
        v = a.values
        cells = [a.device, tables.interval_label(a.interval), str(a.print100),
                 f"{v.get('us_per_epoch', float('nan')):.1f}", f"{v.get('traced_us_per_epoch', float('nan')):.1f}",
                 f"{v.get('trace_overhead', float('nan')):.2f}x"]
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


def primitives_section(rows, stats, models):
    prims = summary.primitives(rows)
    md = ["", "## The primitives on their own, and the loop predicted from them", ""]
    if not prims:
        return md + ["No primitive rows in this folder (./bench --benchmark_filter='^(Dispatch|KernelLaunch|Sync|Memcpy)/').", ""]
    md += ["| primitive | us (median) | counters |", "|---|---|---|"]
    for name, p in prims.items():
        extra = ", ".join(f"{k}={v:.4g}" for k, v in p["counters"].items() if k in (
            "aten_ops_per_step", "kernels_per_step", "gpu_work_us", "queued_ops", "graph_nodes", "bytes_per_second",
            "gate_missed"))
        md.append(f"| {name} | {p['us']:.3f} | {extra} |")
    published = summary.published_comparison(prims)
    if published:
        md += ["", "Measured against published prices (ranges as issue #6 quotes them):", "",
               "| primitive | what | measured us | published us | lands |", "|---|---|---|---|---|"]
        md += [f"| {k} | {what} | {us:.2f} | {lo:g}-{hi:g} | {verdict} |" for k, what, us, lo, hi, verdict in published]
    else:
        md += ["", "Comparison with published launch, sync and graph-node prices pending: no CUDA primitive rows here."]
    pred = summary.predict_loop(prims, stats, models, summary.attribution_rows(rows))
    if pred:
        md += ["", "Predicted from the primitives: per epoch = ATen ops per step x one tiny op's host cost; "
               "per `.item()` = `Sync/item_idle` on CUDA, one tiny op on the CPU.", "",
               "Three estimates of one `.item()`: the primitive, the ItemSync fit's slope, and the traced "
               "pass's host time inside `item` ranges.", "",
               "| device | ATen ops/step | us per op | predicted us/epoch | Dispatch train_step us | ItemSync never-logging us/epoch | predicted us/.item() | fitted us/.item() | traced us/.item() |",
               "|---|---|---|---|---|---|---|---|---|"]
        for p in pred:
            md.append(f"| {p['device']} | {p['ops']:.0f} | {p['op_us']:.2f} | {p['predicted_epoch_us']:.1f} | "
                      f"{p['step_us']:.1f} | {p['measured_epoch_us']:.1f} | {p['predicted_item_us']:.2f} | "
                      f"{p['fitted_item_us']:.2f} | {p['traced_item_us']:.2f} |")
    md.append("")
    return md


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

    md = [f"# Why is the GPU slower on a tiny model? Measurements on {machine}", ""]
    md += ["Generated by `python -m analysis.report " + os.path.relpath(folder) + "` from "
           + ", ".join(f"`{os.path.basename(r.path)}`" for r in runs) + ".", ""]
    md += [f"- CPU: {ctx.get('cpu_model')} ({ctx.get('cpu_threads_torch')} torch threads); GPU: {ctx.get('gpu_name')}"
           f" (CUDA runtime {ctx.get('cuda_runtime')}, driver {ctx.get('cuda_driver')})",
           f"- torch {ctx.get('torch_version')}, commit {ctx.get('git_commit')}, "
           f"{ctx.get('epochs')} epochs per ItemSync run, timed runs untraced ({ctx.get('tracing')})", ""]
    if not any(s.device == "cuda" for s in stats):
        md += ["**GPU figures pending**: no CUDA rows ran in this folder"
               + (f" ({skipped[0][2]})" if skipped else "") + ".", ""]
    md += ["## The article's table beside ours", "",
           f"Loop time of {ctx.get('epochs')} epochs, median over repetitions; spread = (max-min)/median; "
           "\"above never\" = median minus the never-logging row with the same print100. "
           "Article figures from ../shared/ARTICLE.md (its hardware: i9-12900KF, RTX 3080 Ti, Windows, Python).",
           "", tables.render_markdown(stats), ""]
    md += ["## The model", "",
           "`loop seconds = epochs x per_epoch + .item() calls x per_item`, least squares over every "
           f"repetition of the batch-120 ItemSync rows except interval {summary.HELD_OUT_INTERVAL} (held out).", ""]
    md += ["| device | per epoch | per .item() | R² | runs | note |", "|---|---|---|---|---|---|"]
    for m in models:
        md.append(f"| {m.device} | {fmt_us(m.fit, 'per_epoch')} | {fmt_us(m.fit, 'per_item')} | {m.fit.r2:.4f} | "
                  f"{m.fit.n} | {m.fit.note} |")
    md += ["", "### Held-out prediction", ""]
    held = [(m.device, c, p) for m in models for c, p in m.held_out]
    if held:
        md += ["| configuration | measured s | predicted s | error |", "|---|---|---|---|"]
        md += [f"| {d} interval {c.interval} print100 {c.print100} | {c.median_s:.3f} | {p:.3f} | "
               f"{100 * (p - c.median_s) / c.median_s:+.2f}% |" for d, c, p in held]
    for device, b, measured, pred in batch.held_out:
        md.append(f"| {device} batch {b} (us/epoch, from the batch fit) | {measured:.1f} | {pred:.1f} | "
                  f"{100 * (pred - measured) / measured:+.1f}% |")
    if not held and not batch.held_out:
        md.append(f"No held-out rows (interval {summary.HELD_OUT_INTERVAL}, batch {summary.HELD_OUT_BATCH}) in this folder.")
    md += attribution_section(rows, machine, folder)
    md += primitives_section(rows, stats, models)
    md += ladder_section(rows, machine, folder)
    md += machine_limit.section(rows, machine, folder)
    md += ["", "## Why the remaining time is not proportional to the number of records", ""]
    md += answer_lines(models, checks)
    md += ["", "## Batch size: where the GPU starts to win", ""]
    if batch.points:
        md += ["| device | batch | us/epoch, never | us/epoch, .item() every epoch | extra us per .item() |",
               "|---|---|---|---|---|"]
        md += [f"| {p.device} | {p.batch} | {p.us_per_epoch_never:.1f} | {p.us_per_epoch_every:.1f} | "
               f"{p.sync_cost_us:+.1f} |" for p in sorted(batch.points, key=lambda p: (p.device, p.batch))]
        md.append("")
        for device, fit in batch.fits.items():
            md.append(f"- {device}: c(B) = {fit.value('base_us'):.1f} us + {fit.value('per_row_us') * 1e3:.3f} ns "
                      f"x rows (R² = {fit.r2:.3f}, {fit.note}).")
        if any(p.device == "cuda" for p in batch.points):
            md.append(f"- The GPU is faster than the CPU from batch {batch.crossover} on." if batch.crossover
                      else "- The GPU was not faster than the CPU at any swept batch.")
        else:
            md.append("- GPU batch rows pending (no CUDA rows in this folder).")
        md.append("")
    else:
        md += ["No BatchSweep rows in this folder.", ""]
    md += ["## Plots", ""]
    md.append(f"![time vs .item() calls]({os.path.basename(plots.item_calls_plot(rows, models, machine, os.path.join(folder, 'item_calls.png')))})")
    if batch.points:
        md.append(f"![batch sweep]({os.path.basename(plots.batch_plot(batch, machine, os.path.join(folder, 'batch_sweep.png')))})")
    md.append("")
    if skipped:
        md += ["## Rows that did not run", ""] + sorted({f"- {msg}" for _, _, msg in skipped}) + [""]
    return stats, "\n".join(md)


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
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
    print(f"\nwrote {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
