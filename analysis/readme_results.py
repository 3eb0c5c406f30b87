"""README's headline-results table, computed from the committed results, never typed.

    python -m analysis.readme_results            rewrite the block in README.md
    python -m analysis.readme_results --check    exit 1, with a diff, when README.md's block differs

The block sits between BEGIN and END (marker comments) in README.md. Every figure in it comes
from the modules that write the report, over committed files only:

- the post's own figures: analysis.article (gpu_model: its two GPU runs solved for a cost per
  epoch and per `.item()`; RUNS: its CPU run);
- ours: the CPU run in results/cpu-intel-xeon-processor-2c and the GPU run in results/nvidia-h200
  (analysis.report.load_folder), through
  analysis.summary (fit_devices, summarize, attribution_rows, primitives, predict_loop),
  analysis.report (prediction_cases), analysis.report_prose (skipped_lines) and
  analysis.machine_limit (rung_limits);
- one sync on real GPUs: analysis.trace_pages.stats.sync_cost over results/traces/attribute-json
  (the NVIDIA traces analysis.answer names);
- ./attribute's speed: results/traces/speed.json (experiments/attribute_speed.py).
"""

import argparse
import difflib
import json
import math
import os
import sys

import numpy as np

from analysis import answer, article, launch_queue, machine_limit, noise, paired, report, summary
from analysis.atomic_write import write_atomic
from analysis.fmt import fmt_ratio, fmt_runs, fmt_sig, fmt_us
from analysis.tables import markdown_table
from analysis.trace_pages.stats import load_attribution, sync_cost

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
CPU_FOLDER = os.path.join(ROOT, "results", "cpu-intel-xeon-processor-2c")
GPU_FOLDER = os.path.join(ROOT, "results", "nvidia-h200")
SPEED_JSON = os.path.join(ROOT, "results", "traces", "speed.json")
# Every file or folder the block is computed from (its test asks git whether they changed).
SOURCES = (CPU_FOLDER, GPU_FOLDER, SPEED_JSON, answer.REAL_TRACES_JSON)
BEGIN = "<!-- results:begin (written by python -m analysis.readme_results; do not edit by hand) -->"
END = "<!-- results:end -->"


def _rel(path):
    return os.path.relpath(path, ROOT)


def _ci(fit, name, scale=1e6, spec=".1f"):
    lo, hi = fit.interval(name)
    return f"{fit.value(name) * scale:{spec}} us [95% CI {lo * scale:{spec}}, {hi * scale:{spec}}]"


def _speed_rows(path):
    """(text for the table) from experiments/attribute_speed.py's JSON."""
    with open(path) as f:
        doc = json.load(f)
    done = [r for r in doc["results"] if r.get("attribute", {}).get("runs_ok")]
    small, big = (
        min(done, key=lambda r: r["uncompressed_bytes"]),
        max(done, key=lambda r: r["uncompressed_bytes"]),
    )
    hta = [r["speedup_hta_over_attribute"] for r in done if "speedup_hta_over_attribute" in r]
    # digits follow the spread of the whole processes' wall times (half their range over the median)
    half = max(
        (r["attribute"]["wall_s_max"] - r["attribute"]["wall_s_min"])
        / 2
        / r["attribute"]["wall_s_median"]
        for r in (small, big)
    )
    pct = 5 * math.ceil(20 * half)  # to the next 5 %
    digits = 2 if pct > 1 else 3
    text = (
        f"~{fmt_sig(small['attribute']['mb_per_s'], digits)} MB/s of JSON on a "
        f"{small['uncompressed_bytes'] / 1e6:.1f} MB trace, ~{fmt_sig(big['attribute']['mb_per_s'], digits)} "
        f"MB/s on {big['uncompressed_bytes'] / 1e6:.0f} MB (median of {doc['reps']} whole processes, "
        f"which spread +-{pct} % about it)"
    )
    if hta:
        runs = doc.get("hta_reps", 1)
        against = f"against {'one HTA run' if runs == 1 else f'{runs} HTA runs'} each"
        text += (
            f"; roughly {fmt_sig(min(hta), 1)}-{fmt_sig(max(hta), 1)}x faster than HTA 0.5.0's load + "
            f"idle breakdown ({against})"
            if len(hta) > 1
            else f"; roughly {fmt_sig(hta[0], 1)}x faster than HTA 0.5.0's load + idle breakdown ({against})"
        )
    text += (
        f"; host {doc['host']}, 1-minute load {doc['loadavg_1min_start']:.1f} at the start "
        f"([speed.md]({_rel(os.path.join(os.path.dirname(path), 'speed.md'))}))"
    )
    return text


def _load(folder):
    """(rows, ItemSync stats, fits by device) of one results folder, or None when absent."""
    if not folder or not os.path.isdir(folder):
        return None
    runs = report.load_folder(folder)
    rows = [r for run in runs for r in run.rows]
    models = {m.device: m for m in summary.fit_devices(rows)}
    return runs, rows, summary.summarize(rows, "ItemSync"), models


def _fit_cell(model, name, what):
    lo, hi = model.fit.interval(name)
    return f"{what}{_ci(model.fit, name)}" + (
        ": within noise (the interval holds 0)" if lo <= 0 <= hi else ""
    )


def _range(values, spec=".1f"):
    lo, hi = f"{min(values):{spec}}", f"{max(values):{spec}}"
    return lo if lo == hi else f"{lo}-{hi}"


def _epoch_prediction(rows, stats, models, device):
    """The loop predicted from one tiny op, as the report's first prediction case words it."""
    pred = next(
        (
            p
            for p in summary.predict_loop(
                summary.primitives(rows),
                stats,
                list(models.values()),
                summary.attribution_rows(rows),
            )
            if p["device"] == device
        ),
        None,
    )
    if not pred:
        return None
    _, pv, pr, mv, mr, *_ = report.prediction_cases(pred)[0]
    v = noise.prediction_verdict(pv, pr, mv, mr, "the measured range")
    n = summary.primitives(rows)[f"Dispatch/{device}-add"]["n"]
    op = (
        f"the tiny op spread {pred['op_spread_pct']:.0f}% over {n} repetitions"
        if n >= 3
        else f"the tiny op: {n} back-to-back repetitions"
    )
    # n<3 repetitions of the op, or one measured run: three significant digits at most
    few = n < 3 or len(pred.get("measured_epoch_samples_us", ())) < 2
    pred_text = f"~{fmt_sig(pv, 2)}" if few else f"{pv:.1f}"
    meas_text = f"{fmt_sig(mv, 3)}" if few else f"{mv:.1f}"
    verdict = v.text if v.kind == "unknown" else v.kind
    if v.kind == "unknown":
        verdict = f"{v.err_pct:+.0f}% (one run: no verdict)"
    return (
        f"{pred['ops']:.0f} ATen ops x {pred['op_us']:.2f} us = {pred_text} us against {meas_text} us "
        f"measured: {verdict} ({op})"
    )


def _gpu_cells(gpu, gpu_folder):
    """The GPU run's cell of every row (None: that row has no GPU figure)."""
    if gpu is None:
        return {}
    _, rows, stats, models = gpu
    prims = summary.primitives(rows)
    cells = _gpu_fit_cells(models, prims, rows)
    cells.update(_gpu_run_cells(stats, rows))
    where = _gpu_where_cell(rows, gpu_folder)
    if where:
        cells["where"] = where
    p = _epoch_prediction(rows, stats, models, "cuda")
    if p:
        cells["predicted"] = p
    sync = [(k, prims[k]) for k in ("Sync/stream_idle", "Sync/item_idle") if k in prims]
    if sync:
        cells["sync"] = (
            "; ".join(f"`{k}` {fmt_sig(v['us'], 2 if v['n'] < 3 else 3)} us" for k, v in sync)
            + f" (alone on the H200, nothing queued; {_reps(max(v['n'] for _, v in sync))})"
        )
    ladder = summary.ladder(rows)
    rungs = {(r.device, r.rung): r for r in ladder}
    shown = [
        rungs[k]
        for k in (("cuda", "cuda_graph"), ("cuda", "persistent_kernel"), ("cpu", "fused_cpu"))
        if k in rungs
    ]
    if shown:
        cells["fused"] = "; ".join(
            f"{r.rung} ({'GPU' if r.device == 'cuda' else 'its CPU, 1 thread'}) "
            f"{fmt_sig(r.us_per_epoch, 2 if r.n < 3 else 3)} us/epoch, "
            f"{fmt_ratio(r.speedup, summary.runs_behind(ladder, r))} LibTorch eager"
            for r in shown
        ) + (
            " (one run each, eager too)"
            if max(summary.runs_behind(ladder, r) for r in shown) < 2
            else ""
        )
    bracket = summary.batch_analysis(rows).bracket
    if bracket:
        cells["crossover"] = _crossover_cell(bracket)
    return cells


def _reps(n):
    return "one run" if n < 2 else f"{n} back-to-back repetitions"


def _crossover_cell(b):
    """Where the GPU starts to win, as the bracket the swept batches support."""
    text = (
        f"at or below batch {b.hi}"
        if b.lo is None
        else f"between batch {b.lo} (the GPU slower) and {b.hi} (faster there and at every larger batch)"
    )
    for a, nxt, ua, ub in b.backwards:
        text += (
            f"; its CPU's never-logging epoch falls from {ua:,.0f} us at {a} rows to {ub:,.0f} at "
            f"{nxt}, a curve going backwards, so the GPU's lead at {a} does not settle it"
        )
    return text + f" ({_reps(b.n)} a point)"


def _gpu_fit_cells(models, prims, rows):
    """One .item() and one epoch on the GPU: the idle primitive, and the whole runs outside any
    slow period (one each: no interval)."""
    cuda, cpu = models.get("cuda"), models.get("cpu")
    if not cuda:
        return {}
    item = prims.get("Sync/item_idle")
    return {
        "item": (
            f"{item['us']:.1f} us on an idle GPU (`Sync/item_idle`, {_reps(item['n'])}); "
            if item
            else ""
        )
        + (
            _fit_cell(cuda, "per_item", "the fit over whole runs: ")
            if cuda.has_ci
            else "in the loop: not resolved (whole runs of one each, not independent: REPORT.md, "
            "*Run order*)"
        ),
        "epoch": "GPU "
        + _runs_cell(cuda, rows)
        + (f"; its CPU {_runs_cell(cpu, rows)}" if cpu else ""),
    }


def _runs_cell(model, rows):
    """An epoch's cost from a device's whole runs: the fit where they allow an interval, else
    the range of the runs outside a slow period."""
    if model.has_ci:
        return f"{_ci(model.fit, 'per_epoch')}, fitted over {model.fit.n} runs"
    ordered, k = summary.slow_period(rows, model.device)
    us = [r.seconds * 1e6 / r.counters["epochs"] for r in ordered][k:]
    return (
        f"{min(us):.0f}-{max(us):.0f} us (median {np.median(us):.0f}; "
        + (f"the {len(us)} whole runs after the slow period" if k else f"{len(us)} whole runs")
        + ", one each, every logging interval; no interval: they drift with their run order)"
    )


def _gpu_run_cells(stats, rows):
    """The post's two runs' configurations on the GPU machine's CPU and on its GPU; a GPU run
    in the slow period gives way to the same loop without the every-100 print after it."""
    cells = {}
    post_cpu = next(r for r in article.RUNS if r.label == "CPU")
    ours = answer._ours(stats, "cpu", post_cpu.interval, post_cpu.print100)
    if ours:
        cells["cpu_run"] = (
            f"{fmt_runs(ours.samples, '.2f', ' s')}; the GPU machine's CPU, LibTorch C++"
        )
    post_gpu = next(r for r in article.RUNS if r.label == "GPU")
    g = answer._ours(stats, "cuda", post_gpu.interval, post_gpu.print100)
    if not g:
        return cells
    ordered, k = summary.slow_period(rows, "cuda")
    slow = {(r.args.get("interval"), r.args.get("print100")) for r in ordered[:k]}
    if (g.interval, g.print100) not in slow:
        text = f"{fmt_runs(g.samples, '.2f', ' s')}"
        if ours:
            text += f", {fmt_sig(g.median_s / ours.median_s)}x its CPU's {ours.median_s:.2f} s"
        cells["gpu_run"] = text
        return cells
    alt = answer._ours(stats, "cuda", g.interval, 1 - g.print100)
    alt_cpu = answer._ours(stats, "cpu", g.interval, 1 - g.print100)
    text = ""
    if alt and (alt.interval, alt.print100) not in slow:
        text = f"{fmt_runs(alt.samples, '.2f', ' s')} for the same loop without the every-100 print, after the slow period"
        if alt_cpu:
            text += (
                f", {fmt_sig(alt.median_s / alt_cpu.median_s)}x its CPU's {alt_cpu.median_s:.2f} s "
                f"for that loop ({_reps(min(alt.n, alt_cpu.n))} each); "
            )
    cells["gpu_run"] = (
        text
        + f"the post's exact loop: {fmt_runs(g.samples, '.2f', ' s')}, in the slow period after the "
        "build (REPORT.md, *Run order*)"
    )
    return cells


def _gpu_where_cell(rows, gpu_folder):
    """Where a traced CUDA epoch goes (GPU busy, launches), with the launch queue when read."""
    attr = [a for a in summary.attribution_rows(rows) if a.device == "cuda"]
    if not attr:
        return None
    busy = [a.values["attr_gpu_busy_us"] for a in attr if "attr_gpu_busy_us" in a.values]
    api = [a.values["attr_launch_api_us"] for a in attr if "attr_launch_api_us" in a.values]
    traced = [a.values["traced_us_per_epoch"] for a in attr if "traced_us_per_epoch" in a.values]
    launches = [a.values["attr_launches"] for a in attr if "attr_launches" in a.values]
    text = (
        f"traced (CUPTI on; range over {len(attr)} configurations): GPU busy {_range(busy)} us of "
        f"a traced epoch of {_range(traced, '.0f')} us; {_range(launches, '.0f')} launches an epoch "
        f"take {_range(api, '.0f')} us of host API time, traced"
    )
    launch = summary.primitives(rows).get("KernelLaunch/host_launch")
    if launch and launches and min(launches) == max(launches):
        text += (
            f" (untraced, one launch costs {launch['us']:.2f} us, `KernelLaunch/host_launch`: "
            f"{launches[0]:.0f} x {launch['us']:.2f} = {launches[0] * launch['us']:.0f} us)"
        )
    queue = launch_queue.queue_rows(attr, gpu_folder)
    if queue:
        regimes = sorted({launch_queue.regime_text(q.regimes) for q in queue})
        text += (
            f"; the launch queue (traced) empty {_range([100 * q.empty_share for q in queue], '.0f')}% "
            f"of a traced epoch, at most {max(q.depth_max for q in queue)} deep: "
            f"{' / '.join(regimes)} ({len(queue)} configurations)"
        )
    # Untraced, the same verdict from figures tracing does not inflate: the kernels' own time
    # against the whole untraced epoch.
    untraced = [u for a in attr for u in a.untraced_us]
    if busy and untraced:
        text += (
            f"; untraced the GPU idles most of an epoch too: GPU busy ~{np.median(busy):.0f} us (the "
            f"kernels' own time) of an untraced epoch of {_range(untraced, '.0f')} us"
        )
    return text


def results_block(
    folder=CPU_FOLDER,
    speed_json=SPEED_JSON,
    traces_json=answer.REAL_TRACES_JSON,
    gpu_folder=GPU_FOLDER,
):
    """The lines between the markers."""
    runs, rows, stats, models = _load(folder)
    gpu = _load(gpu_folder)
    cells = _gpu_cells(gpu, gpu_folder)
    pending = "pending" if gpu is None else "-"
    body = _answer_rows(models["cpu"], stats, cells, pending, rows)
    body += _measured_rows(rows, stats, models, speed_json, cells, pending)
    gpu_name = os.path.basename(gpu_folder.rstrip("/")) if gpu else None
    lines = [
        f"Ours: the committed CPU run, `{os.path.basename(folder.rstrip('/'))}` (2-core Xeon VM, "
        f"shared cores; every figure with its context in "
        f"[REPORT.md]({_rel(os.path.join(folder, 'REPORT.md'))}))"
        + (
            f", and the GPU run, `{gpu_name}` (one H200 and its 16-core Xeon, lent for one session; "
            f"[REPORT.md]({_rel(os.path.join(gpu_folder, 'REPORT.md'))}))"
            if gpu
            else ""
        )
        + f". The post's: its own runs ({_rel(os.path.join(ROOT, 'analysis', 'article.py'))}).",
        "",
    ]
    head = ["figure", "the post (i9-12900KF, RTX 3080 Ti)", "ours, CPU VM", "ours, H200 machine"]
    lines += markdown_table(head, body)
    # Not ours: traces others recorded on other GPUs, so below the table, not in a column of ours.
    sync = _real_sync_cell(traces_json)
    if sync:
        lines += ["", f"One sync in GPU traces others recorded (A100, GP100; not ours): {sync}."]
    return lines + _skipped_lines(runs, gpu)


def _answer_rows(cpu, stats, cells, pending, rows=()):
    """The article's answer: one .item(), one epoch's work, the post's two runs against ours;
    ours from the paired rows where they ran (the measurement that concludes)."""
    c_art, _ = article.gpu_model()
    post_cpu = next(r for r in article.RUNS if r.label == "CPU")
    post_gpu = next(r for r in article.RUNS if r.label == "GPU")
    ours_cpu = answer._ours(stats, "cpu", post_cpu.interval, post_cpu.print100)
    item = paired.find(paired.rows_of(rows), "cpu", "item")
    if item:
        s, c = paired.per_item(item), paired.per_epoch(item)
        # The rounds ran back to back in one process: the intervals assume them independent.
        # Pairing cancels drift in a difference (s), not in a level (c), so c gets the
        # whole-run fit beside it.
        how = (
            f"`Paired`: {item.rounds} rounds, the two loops interleaved in one process"
            + (", flagged disturbed by its noise probe" if item.disturbed else "")
            + "; the interval treats the rounds as independent"
        )
        item_cell = f"{s.text()} ({how}; the drift both loops share cancels in this difference)"
        epoch_cell = (
            f"CPU (LibTorch C++): {c.text('.1f')} ({how}; drift does not cancel in a level); "
            f"the whole-run fit beside it: {_ci(cpu.fit, 'per_epoch')} ({cpu.fit.n} runs)"
        )
    else:
        item_cell = _fit_cell(cpu, "per_item", "")
        epoch_cell = (
            f"CPU (LibTorch C++): {_ci(cpu.fit, 'per_epoch')}, fitted over {cpu.fit.n} runs"
        )
    return [
        [
            "one `.item()`",
            article.per_call_words(),
            item_cell,
            cells.get("item", pending),
        ],
        [
            "one epoch's work, whatever the logging",
            (
                f"GPU {c_art * 1e6:.0f} us (the same two runs); CPU {post_cpu.seconds / article.EPOCHS * 1e6:.0f} us "
                f"({post_cpu.seconds:.2f} s / {article.EPOCHS})"
            ),
            epoch_cell,
            cells.get("epoch", pending),
        ],
        [
            f"the post's CPU run ({post_cpu.item_calls} `.item()` calls, {article.EPOCHS} epochs)",
            f"{post_cpu.seconds:.2f} s (Python, i9-12900KF)",
            f"{fmt_runs(ours_cpu.samples, '.2f', ' s')}; LibTorch C++, median",
            cells.get("cpu_run", pending),
        ],
        [
            "the post's GPU run (the same loop on CUDA)",
            f"{post_gpu.seconds:.2f} s, {post_gpu.seconds / post_cpu.seconds:.1f}x its CPU run",
            "-",
            cells.get("gpu_run", pending),
        ],
    ]


def _measured_rows(rows, stats, models, speed_json, cells, pending):
    """Where an epoch goes, its prediction, one sync on real GPUs, ./attribute's speed, the
    machine limit and the crossover batch: each row only where its data is there."""
    body = []
    attr = [a for a in summary.attribution_rows(rows) if a.device == "cpu"]
    if attr:
        back = [a.values["phase_backward_us"] for a in attr if "phase_backward_us" in a.values]
        traced = [
            a.values["traced_us_per_epoch"] for a in attr if "traced_us_per_epoch" in a.values
        ]
        body.append(
            [
                "where an epoch goes (traced pass)",
                "-",
                (
                    f"`backward` {min(back):.1f}-{max(back):.1f} us of a traced epoch of {min(traced):.1f}-"
                    f"{max(traced):.1f} us (range over the medians of {len(attr)} configurations)"
                ),
                cells.get("where", pending),
            ]
        )
    p = _epoch_prediction(rows, stats, models, "cpu")
    if p:
        body.append(
            ["an epoch predicted from one tiny op", "-", p, cells.get("predicted", pending)]
        )
    if "sync" in cells or pending == "pending":
        body.append(["one sync, nothing queued", "-", "- (no GPU)", cells.get("sync", pending)])
    if os.path.exists(speed_json):
        body.append(["`./attribute`'s speed", "-", _speed_rows(speed_json), "-"])
    fused = next((x for x in machine_limit.rung_limits(rows) if x.rung == "fused_cpu"), None)
    if fused:
        body.append(
            [
                "the same training, overhead removed",
                "-",
                (
                    f"hand-fused on 1 CPU thread: {fmt_sig(fused.us_per_epoch, 3)} us/epoch, {fmt_ratio(fused.speedup_eager, fused.n)} "
                    f"LibTorch eager, {fused.pct_of_peak:.0f}% of the core's float32 FMA peak"
                ),
                cells.get("fused", pending),
            ]
        )
    body.append(["the batch from which the GPU wins", "-", "-", cells.get("crossover", pending)])
    return body


def _real_sync_cell(traces_json):
    """One sync's cost on the real traces others recorded (./attribute's JSON), or None."""
    paths = [os.path.join(traces_json, f"{n}.json") for n in answer.NVIDIA_TRACES]
    docs = [(os.path.basename(p), load_attribution(p)) for p in paths if os.path.exists(p)]
    cost = sync_cost(docs) if docs else None
    if cost is None or not cost.idle_n:
        return None
    return (
        f"{fmt_us(cost.idle_median_blocked_us)} us, the median of {cost.idle_n} calls with nothing "
        f"queued, from a pool of {len(cost.sources)} traces on different GPUs (no spread); "
        f"{fmt_us(cost.median_blocked_us)} us median of all {cost.n} (`./attribute` on "
        "[results/traces](results/traces/index.md))"
    )


def _skipped_lines(runs, gpu):
    """The rows the CPU run skipped, counted as report_prose.skipped_lines counts them: per
    family and reason."""
    skipped = [(run.path, name, msg) for run in runs for name, msg in run.skipped]
    if not skipped:
        return []
    by_reason = {}
    for _, name, msg in skipped:
        fam = by_reason.setdefault(msg, {})
        fam[name.split("/")[0]] = fam.get(name.split("/")[0], 0) + 1
    return [
        "",
        ("Every GPU figure is pending: the CPU run" if gpu is None else "The CPU run")
        + f" skipped {len(skipped)} rows ("
        + "; ".join(
            ", ".join(f"{f} {n}" for f, n in sorted(fams.items())) + f": `{msg}`"
            for msg, fams in sorted(by_reason.items())
        )
        + ")"
        + ("." if gpu is None else "; the GPU figures are the H200 run's."),
    ]


def render(readme_text, block):
    """README text with the block between the markers replaced."""
    start, end = readme_text.find(BEGIN), readme_text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README.md: no '{BEGIN}' ... '{END}' markers")
    return readme_text[: start + len(BEGIN)] + "\n" + "\n".join(block) + "\n" + readme_text[end:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check", action="store_true", help="exit 1 with a diff when README.md's block differs"
    )
    ap.add_argument("--readme", default=README)
    args = ap.parse_args(argv)
    with open(args.readme) as f:
        old = f.read()
    new = render(old, results_block())
    if args.check:
        if new != old:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True),
                    new.splitlines(True),
                    "README.md (committed)",
                    "README.md (from the results)",
                )
            )
            print(
                "README.md's results block differs from the committed results: run python -m analysis.readme_results",
                file=sys.stderr,
            )
            return 1
        return 0
    if new != old:
        write_atomic(args.readme, new)
        print(f"rewrote the results block of {_rel(args.readme)}")
    else:
        print(f"{_rel(args.readme)}: results block already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
