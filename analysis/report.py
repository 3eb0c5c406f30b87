"""One command from bench JSON to results/<machine>/REPORT.md and its plots.

    python -m analysis.report results/<machine>         (from the repository root)

Reads every Google Benchmark JSON in the folder (item_sync.json, batch_sweep.json, ...),
prints the article's table beside ours, fits the model, and writes REPORT.md and PNGs
next to the JSON. Every output is written to a temporary file and renamed, so a failed
run leaves the previous report intact. Exit 2 with a message naming the file and field
on bad input.

This module puts the sections together; their words are in report_prose.py, their tables
in report_tables.py, their plots in plots.py (each drawn before the line that places it).
"""

import argparse
import glob
import os
import sys

from analysis import (
    answer,
    bench_json,
    fmt,
    launch_queue,
    machine_limit,
    noise,
    paired,
    paired_report,
    plots,
    replay_prediction,
    report_tables,
    summary,
    tables,
)
from analysis import fit as fitting
from analysis import report_prose as prose
from analysis.atomic_write import write_atomic
from analysis.bench_json import BenchJsonError
from analysis.tables import markdown_figure

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


def attribution_section(rows, machine, folder):
    attr = summary.attribution_rows(rows)
    md = ["", prose.ATTRIBUTION_HEADING, ""]
    failed = sorted({r.name for r in rows if r.counters.get("trace_failed", 0) > 0})
    if failed:
        md += [prose.TRACE_FAILED.format(n=len(failed), names="; ".join(failed)), ""]
    if not attr:
        return md + [prose.NO_TRACED_PASS, ""]
    md += [prose.ATTRIBUTION_INTRO, ""] + report_tables.attribution_table(attr)
    gpu = [a for a in attr if a.device == "cuda"]
    if gpu:
        md += ["", prose.GPU_TIMELINE, ""] + report_tables.gpu_timeline_table(gpu)
        md += ["", kernel_count_check(rows, gpu)]
        queue = launch_queue.queue_rows(gpu, folder)
        md += ["", prose.QUEUE_INTRO, ""]
        md += report_tables.queue_table(queue) if queue else [prose.QUEUE_PENDING]
    else:
        md += ["", prose.GPU_TIMELINE_PENDING]
    if any(a.values.get("attr_launch_queue") == 0 for a in attr if a.device == "cpu"):
        md += ["", prose.NO_QUEUE_ON_CPU]
    png = plots.attribution_plot(attr, machine, os.path.join(folder, "attribution.png"))
    return md + markdown_figure("attribution", png, plots.ATTRIBUTION_CAPTION)


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
        return prose.KERNEL_COUNT_PENDING
    verdict = (
        "they agree" if abs(cupti - prof[0]) < 0.5 else f"they DIFFER by {cupti - prof[0]:+.1f}"
    )
    return prose.KERNEL_COUNT.format(cupti=cupti, prof=prof[0], verdict=verdict)


def primitives_section(rows, stats, models, runs=()):
    prims = summary.primitives(rows)
    md = ["", prose.PRIMITIVES_HEADING, ""]
    if not prims:
        return md + [prose.NO_PRIMITIVES, ""]
    # Each family's rows may come from a file of their own (dispatch.json, primitives.json):
    # every such run's load is named, and each published comparison takes its own run's.
    prim_runs = [r for r in runs if any(x.family in summary.PRIMITIVE_FAMILIES for x in r.rows)]
    intro = prose.PRIMITIVES_INTRO
    if len(prim_runs) == 1:
        intro += prose.PRIMITIVES_RUN.format(load=prose.load_note(prim_runs[0]))
    elif prim_runs:
        intro += prose.PRIMITIVES_RUNS.format(
            loads="; ".join(f"`{os.path.basename(r.path)}` {prose.load_note(r)}" for r in prim_runs)
        )
    md += [intro, ""] + report_tables.primitives_table(prims)
    ok = prose.SPREAD_OK_PCT
    # Two reasons apart: a spread over the bound is measured instability; fewer than 3
    # repetitions is too little to judge, whatever their spread.
    wide = [k for k, p in prims.items() if p["n"] >= 3 and p["spread_pct"] > ok]
    few = [k for k, p in prims.items() if p["n"] < 3]
    if wide:
        which = ", ".join(f"{k} ({prims[k]['spread_pct']:.0f}%, n={prims[k]['n']})" for k in wide)
        md += ["", prose.UNSTABLE.format(ok=ok, which=which)]
    if few:
        spreads = [prims[k]["spread_pct"] for k in few]
        md += [
            "",
            prose.TOO_FEW_REPS.format(
                count=len(few),
                n=max(prims[k]["n"] for k in few),
                lo=min(spreads),
                hi=max(spreads),
                ok=ok,
                over=", ".join(k for k in few if prims[k]["spread_pct"] > ok) or "none",
            ),
        ]
    if not wide and not few:
        md += ["", prose.ALL_STABLE.format(ok=ok)]
    published = summary.published_comparison(prims)
    if published:
        notes = {}
        for key, *_ in published:
            if prims[key]["n"] < 3:
                run = next(
                    (r for r in prim_runs if any(x.family == key.split("/")[0] for x in r.rows)),
                    None,
                )
                notes[key] = prose.published_note(prims[key]["n"], run)
        md += ["", prose.PUBLISHED_INTRO, ""] + report_tables.published_table(published, notes)
    else:
        md += ["", prose.NO_PUBLISHED]
    pred = summary.predict_loop(prims, stats, models, summary.attribution_rows(rows))
    if pred:
        cells = [report_tables.prediction_row(p, *x) for p in pred for x in prediction_cases(p)]
        md += ["", prose.PREDICTIONS_INTRO.format(ok=ok), ""]
        md += report_tables.prediction_table(cells)
    md.append("")
    return md


class Reps(tuple):
    """(min, max) of the repetitions, and how many there were (`n`): a table shows a range of
    fewer than 3 as no range (report_tables._range)."""

    n = 0


def _min_max(xs):
    """(min, max) of the repetitions; None for one repetition (no range)."""
    if len(xs) < 2:
        return None
    r = Reps((min(xs), max(xs)))
    r.n = len(xs)
    return r


def prediction_cases(p):
    """(what, predicted, its range, measured, its range, measured text, reason if off, the two
    figures' noise.Kind or None when of one kind) for one device."""
    ms = p["measured_epoch_samples_us"]
    over = p["predicted_epoch_us"] > p["measured_epoch_us"]
    epoch_reason = (prose.EPOCH_OVER if over else prose.EPOCH_UNDER) + (
        prose.TINY_OP_SPREAD.format(spread=p["op_spread_pct"])
        if p.get("op_n", 3) >= 3
        else prose.TINY_OP_FEW.format(n=p["op_n"])
    )
    cases = [
        (
            f"us/epoch = {p['ops']:.0f} ATen ops x {p['op_us']:.2f} us (one tiny op)",
            p["predicted_epoch_us"],
            _min_max(p["predicted_epoch_range_us"]),
            p["measured_epoch_us"],
            _min_max(ms),
            "ItemSync never-logging us/epoch",
            epoch_reason,
            None,
        ),
        (
            "us/epoch = Dispatch train_step (the same loop, timed alone)",
            p["step_us"],
            _min_max(p.get("step_samples_us", ())),
            p["measured_epoch_us"],
            _min_max(ms),
            "ItemSync never-logging us/epoch",
            prose.STEP_APART,
            None,
        ),
    ]
    fit_ci = p.get("fitted_item_ci_us")
    # On CUDA Sync/item_idle waits on an idle GPU; a `.item()` in the loop also waits out the
    # queue, and a traced one pays CUPTI's share too: each pair gets no verdict (noise.Kind).
    cuda = p["device"] == "cuda"
    idle, loop = noise.Kind("idle" if cuda else None), noise.Kind("in-loop" if cuda else None)
    traced_loop = noise.Kind(loop.where, traced=True)
    item_what = (
        "us/.item() = Sync/item_idle" if p["device"] == "cuda" else "us/.item() = one tiny op"
    )
    # The .item() predictions carry the primitive's own range too: a 49%-spread tiny op makes
    # them as inconclusive as the per-epoch row built on the same op.
    item_range = _min_max(p.get("predicted_item_samples_us", ()))
    # A fit over runs that drift with their run order has no interval (the Model table says
    # so), and no verdict can rest on its slope.
    has_ci = p.get("fit_has_ci", True)
    cases.append(
        (
            item_what,
            p["predicted_item_us"],
            item_range,
            p["fitted_item_us"],
            fit_ci if has_ci else None,
            "the ItemSync fit's slope [95% CI]" if has_ci else prose.SLOPE_NO_CI,
            prose.ITEM_QUEUE if p["device"] == "cuda" else prose.ITEM_FIT_NOISE,
            (idle, loop),
        )
        + (() if has_ci else (noise.Verdict(prose.SLOPE_NO_VERDICT, "unknown", float("nan")),))
    )
    traced = p.get("traced_item_samples_us") or ()
    if traced:
        cases.append(
            (
                item_what,
                p["predicted_item_us"],
                item_range,
                p["traced_item_us"],
                _min_max(traced),
                "traced host time in `item` ranges (median [range over configurations])",
                prose.TRACED_ITEM,
                (idle, traced_loop),
            )
        )
    return cases


def ladder_section(rows, machine, folder):
    rungs = summary.ladder(rows)
    md = ["", prose.LADDER_HEADING, ""]
    if not rungs:
        return md + [prose.NO_LADDER, ""]
    suspect = summary.suspect_rungs(rungs, rows)
    md += [prose.LADDER_INTRO, ""] + report_tables.ladder_table(rungs, suspect) + [""]
    md += [prose.SUSPECT.format(device=d, rung=r, why=why) for (d, r), why in suspect.items()]
    md += ladder_notes(rungs)
    md += ["", "Targets:", ""]
    for text, verdict in summary.ladder_targets(rungs):
        md.append(
            f"- {text}: "
            + (
                prose.TARGET_PENDING
                if verdict is None
                else f"{'met' if verdict[0] else 'NOT met'} ({verdict[1]})"
            )
        )
    png = plots.ladder_plot(rungs, machine, os.path.join(folder, "ladder.png"))
    return md + markdown_figure("ladder", png, plots.LADDER_CAPTION)


def ladder_notes(rungs):
    """What the ladder table alone would leave unsaid: rungs that are one configuration
    measured twice, and rungs whose run did not check its losses against float64."""
    md = []
    for a, b in summary.same_configuration_pairs(rungs):
        diff, ci = noise.mean_difference(a.samples_us, b.samples_us)
        md.append(
            prose.SAME_CONFIGURATION.format(
                a=a.rung,
                b=b.rung,
                threads=a.threads,
                a_speedup=fmt.fmt_ratio(a.speedup, summary.runs_behind(rungs, a)),
                b_speedup=fmt.fmt_ratio(b.speedup, summary.runs_behind(rungs, b)),
                # one run each supports two significant digits, not a hundredth of a us
                diff=f"{diff:+.2f}" if ci is not None else "+" * (diff > 0) + fmt.fmt_sig(diff),
                mark=noise.mark(ci, fmt="+.2f"),
            )
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
                prose.NOT_CHECKED.format(
                    device=r.device,
                    rung=r.rung,
                    loss=r.final_loss,
                    eager_loss=e.final_loss,
                    same=same,
                )
            )
    return md


def held_out_section(models, batch, concluded=frozenset()):
    """The held-out ItemSync configurations and batch, each against its prediction; one verdict
    per configuration, so those in `concluded` (paired.concluded_held_out) point to the paired
    rows' verdict instead of giving their own."""
    md = ["", prose.HELD_OUT_HEADING, "", prose.HELD_OUT_INTRO.format(tight=noise.TIGHT_PCT), ""]
    rows = []
    for m in models:
        for c, p in m.held_out:
            v = noise.prediction_verdict(
                p,
                None,
                c.median_s,
                (c.min_s, c.max_s) if c.n >= 2 else None,
                "the repetitions' range",
            )
            paired_says = (m.device, "interval", c.interval, c.print100) in concluded
            rows.append(
                [
                    f"{m.device} interval {c.interval} print100 {c.print100} (s)",
                    fmt.fmt_runs(c.samples),
                    f"{p:.3f}",
                    prose.HELD_OUT_PAIRED if paired_says else v.text,
                    "" if v.agrees or paired_says else prose.HELD_OUT_LOAD,
                ]
            )
    for device, b, measured, pred, samples in batch.held_out:
        v = noise.prediction_verdict(
            pred, None, measured, _min_max(samples), "the repetitions' range"
        )
        paired_says = (device, "batch", b, None) in concluded
        reason = (
            "" if v.agrees else prose.BATCH_HELD_OUT_OVER if v.err_pct > 0 else prose.BATCH_HELD_OUT
        )
        rows.append(
            [
                f"{device} batch {b} (us/epoch, from the batch fit)",
                fmt.fmt_runs(samples, ".1f"),
                f"{pred:.1f}",
                prose.HELD_OUT_PAIRED if paired_says else v.text,
                "" if paired_says else reason,
            ]
        )
    if rows:
        return md + report_tables.held_out_table(rows)
    return md + [
        prose.NO_HELD_OUT.format(interval=summary.HELD_OUT_INTERVAL, batch=summary.HELD_OUT_BATCH)
    ]


def run_order_section(rows, models):
    """The ItemSync rows in the order they ran, for each device whose fit's residuals follow
    that order or whose first runs lead a slow period: the evidence the intervals left out."""
    md = []
    for m in models:
        ordered, k = summary.slow_period(rows, m.device)
        if m.has_ci and not k:
            continue
        us = [r.seconds * 1e6 / r.counters["epochs"] for r in ordered]
        body = [
            [
                str(i + 1),
                (
                    f"interval {tables.interval_label(r.args.get('interval', 0))} print100 "
                    f"{r.args.get('print100', 0)}"
                ),
                f"{u:.1f}",
                "slow period" if i < k else "",
            ]
            for i, (r, u) in enumerate(zip(ordered, us))
        ]
        md += ["### Run order: " + m.device, "", prose.run_order_intro(m, us, k), ""]
        md += tables.markdown_table(["run", "configuration", "us/epoch", ""], body) + [""]
    return md


def batch_section(batch, machine, folder):
    md = ["", prose.BATCH_HEADING, ""]
    if not batch.points:
        return md + [prose.NO_BATCH, ""]
    md += [prose.BATCH_INTRO, ""] + report_tables.batch_table(batch.points) + [""]
    for device, f in batch.fits.items():
        ps = [p for p in batch.points if p.device == device]
        worst = fitting.batch_cost_misses(
            f, [p.batch for p in ps], [p.us_per_epoch_never for p in ps]
        )[0]
        md.append(
            prose.BATCH_FIT.format(
                device=device,
                base=f.value("base_us"),
                per_row_ns=f.value("per_row_us") * 1e3,
                r2=f.r2,
                note=f.note,
                held_out=summary.HELD_OUT_BATCH,
                batch=worst[0],
                fitted=worst[2],
                measured=worst[1],
                err=worst[3],
                reason=". " + prose.BATCH_MISS_REASON if abs(worst[3]) > noise.TIGHT_PCT else "",
            )
        )
    if any(p.device == "cuda" for p in batch.points):
        md.append(prose.gpu_wins(batch.bracket))
    else:
        md.append(prose.NO_GPU_BATCH)
    png = plots.batch_plot(batch, machine, os.path.join(folder, "batch_sweep.png"))
    return md + markdown_figure("batch sweep", png, plots.BATCH_CAPTION)


def _whole_run_spread(stats):
    """The repetitions' spread of the sweep's rows, in words: '17-42% (max-min over the median)'."""
    spreads = [100 * (c.max_s - c.min_s) / c.median_s for c in stats if c.n >= 2 and c.median_s]
    if not spreads:
        return "an unknown amount (one repetition each)"
    return (
        f"{min(spreads):.0f}-{max(spreads):.0f}% (max-min over the median, the sweep table's rows)"
    )


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

    md = [prose.TITLE.format(machine=machine), ""]
    md += [
        "Generated by `python -m analysis.report "
        + os.path.relpath(folder)
        + "` from "
        + ", ".join(f"`{os.path.basename(r.path)}`" for r in runs)
        + ".",
        "",
    ]
    md += prose.machine_lines(ctx, runs) + [""]
    if not any(s.device == "cuda" for s in stats):
        md += [prose.GPU_PENDING + (f" ({skipped[0][2]})" if skipped else "") + ".", ""]
    md += answer.article_section(stats, has_gpu)
    md += answer.answer_section(models, checks, stats, batch, summary.primitives(rows), rows)
    nevers = [c for c in stats if c.interval == 0 and c.batch == summary.FIT_BATCH]
    md += [prose.SWEEP_HEADING, "", prose.sweep_intro(ctx.get("epochs"), nevers), ""]
    md += [tables.render_markdown(stats, models), ""]
    md += run_order_section(rows, models)
    md += [prose.MODEL_HEADING, "", prose.model_intro(), ""] + report_tables.model_table(models)
    md += held_out_section(models, batch, paired.concluded_held_out(paired.rows_of(rows)))
    png = plots.item_calls_plot(rows, models, machine, os.path.join(folder, "item_calls.png"))
    md += markdown_figure("time vs .item() calls", png, plots.ITEM_CALLS_CAPTION)
    md += attribution_section(rows, machine, folder)
    md += [fmt.one_run_ranges(line) for line in replay_prediction.section(folder, stats)]
    md += paired_report.section(rows, models, batch, folder, _whole_run_spread(stats))
    md += primitives_section(rows, stats, models, runs)
    md += batch_section(batch, machine, folder)
    md += ladder_section(rows, machine, folder)
    md += machine_limit.section(rows, machine, folder)
    if skipped:
        md += [prose.SKIPPED_HEADING, ""] + prose.skipped_lines(skipped) + [""]
    return tables.render_text(stats, models), "\n".join(md)


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
    write_atomic(out, text)
    print(f"\nwrote {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
