"""README's headline-results table, computed from the committed results, never typed.

    python -m analysis.readme_results            rewrite the block in README.md
    python -m analysis.readme_results --check    exit 1, with a diff, when README.md's block differs

The block sits between BEGIN and END (marker comments) in README.md. Every figure in it comes
from the modules that write the report, over committed files only:

- the post's own figures: analysis.article (gpu_model: its two GPU runs solved for a cost per
  epoch and per `.item()`; RUNS: its CPU run);
- ours: the CPU run in results/cpu-intel-xeon-processor-2c (analysis.report.load_folder), through
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
import os
import sys

if __package__ in (None, ""):  # run as a script: make `analysis` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analysis import answer, article, machine_limit, noise, report, summary  # noqa: E402
from analysis.attribute_json.reader import load_attribution  # noqa: E402
from analysis.fmt import fmt_us  # noqa: E402
from analysis.trace_pages.stats import sync_cost  # noqa: E402
from analysis.tables import markdown_table, write_atomic  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
CPU_FOLDER = os.path.join(ROOT, "results", "cpu-intel-xeon-processor-2c")
SPEED_JSON = os.path.join(ROOT, "results", "traces", "speed.json")
BEGIN = "<!-- results:begin (written by python -m analysis.readme_results; do not edit by hand) -->"
END = "<!-- results:end -->"


def _rel(path):
    return os.path.relpath(path, ROOT)


def _ci(fit, name, scale=1e6, spec=".1f"):
    lo, hi = fit.interval(name)
    return f"{fit.value(name) * scale:{spec}} us [95% CI {lo * scale:{spec}}, {hi * scale:{spec}}]"


def _speed_rows(path):
    """(text for the table) from experiments/attribute_speed.py's JSON."""
    doc = json.load(open(path))
    done = [r for r in doc["results"] if r.get("attribute", {}).get("runs_ok")]
    small, big = (
        min(done, key=lambda r: r["uncompressed_bytes"]),
        max(done, key=lambda r: r["uncompressed_bytes"]),
    )
    hta = [r["speedup_hta_over_attribute"] for r in done if "speedup_hta_over_attribute" in r]
    text = (
        f"{small['attribute']['mb_per_s']:.0f} MB/s of JSON on a {small['uncompressed_bytes'] / 1e6:.1f} MB trace, "
        f"{big['attribute']['mb_per_s']:.0f} MB/s on {big['uncompressed_bytes'] / 1e6:.0f} MB (median of "
        f"{doc['reps']} whole processes)"
    )
    if hta:
        text += (
            f"; {min(hta):.0f}-{max(hta):.0f}x faster than HTA 0.5.0's load + idle breakdown"
            if len(hta) > 1
            else f"; {hta[0]:.0f}x faster than HTA 0.5.0's load + idle breakdown"
        )
    text += (
        f"; host {doc['host']}, 1-minute load {doc['loadavg_1min_start']:.1f} at the start "
        f"([speed.md]({_rel(os.path.join(os.path.dirname(path), 'speed.md'))}))"
    )
    return text


def results_block(folder=CPU_FOLDER, speed_json=SPEED_JSON, traces_json=answer.REAL_TRACES_JSON):
    """The lines between the markers."""
    runs = report.load_folder(folder)
    rows = [r for run in runs for r in run.rows]
    stats = summary.summarize(rows, "ItemSync")
    models = summary.fit_devices(rows)
    cpu = next(m for m in models if m.device == "cpu")
    report_md = _rel(os.path.join(folder, "REPORT.md"))
    machine = os.path.basename(folder.rstrip("/"))
    c_art, s_art = article.gpu_model()
    post_cpu = next(r for r in article.RUNS if r.label == "CPU")
    ours_cpu = answer._ours(stats, "cpu", post_cpu.interval, post_cpu.print100)

    body = []
    # 1. the article's answer: what one .item() costs
    lo, hi = cpu.fit.interval("per_item")
    body.append(
        [
            "one `.item()`",
            f"{s_art * 1e6:.1f} us (its two GPU runs solved for it)",
            f"CPU: {_ci(cpu.fit, 'per_item')}"
            + (": within noise (the interval holds 0)" if lo <= 0 <= hi else "")
            + "; GPU: pending",
        ]
    )
    # 2. what stays: the per-epoch work
    body.append(
        [
            "one epoch's work, whatever the logging",
            f"GPU {c_art * 1e6:.0f} us (the same two runs); CPU {post_cpu.seconds / article.EPOCHS * 1e6:.0f} us "
            f"({post_cpu.seconds:.2f} s / {article.EPOCHS})",
            f"CPU (LibTorch C++): {_ci(cpu.fit, 'per_epoch')}, fitted over {cpu.fit.n} runs",
        ]
    )
    # 3. the post's CPU run against our loop
    body.append(
        [
            f"the post's CPU run ({post_cpu.item_calls} `.item()` calls, {article.EPOCHS} epochs)",
            f"{post_cpu.seconds:.2f} s (Python, i9-12900KF)",
            f"{ours_cpu.median_s:.3f} s ({ours_cpu.min_s:.3f}-{ours_cpu.max_s:.3f}, n={ours_cpu.n}; LibTorch "
            "C++, median)",
        ]
    )
    # 4. where an epoch goes
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
                f"`backward` {min(back):.1f}-{max(back):.1f} us of a traced epoch of {min(traced):.1f}-"
                f"{max(traced):.1f} us (range over the medians of {len(attr)} configurations)",
            ]
        )
    # 5. the loop predicted from its primitives
    pred = next(
        (
            p
            for p in summary.predict_loop(
                summary.primitives(rows), stats, models, summary.attribution_rows(rows)
            )
            if p["device"] == "cpu"
        ),
        None,
    )
    if pred:
        what, pv, pr, mv, mr, _, _ = report.prediction_cases(pred)[0]
        v = noise.prediction_verdict(pv, pr, mv, mr, "the measured range")
        body.append(
            [
                "an epoch predicted from one tiny op",
                "-",
                f"{pred['ops']:.0f} ATen ops x {pred['op_us']:.2f} us = {pv:.1f} us against {mv:.1f} us "
                f"measured: {v.kind} (the tiny op spread {pred['op_spread_pct']:.0f}%)",
            ]
        )
    # 6. one sync on real GPUs
    paths = [os.path.join(traces_json, f"{n}.json") for n in answer.NVIDIA_TRACES]
    docs = [(os.path.basename(p), load_attribution(p)) for p in paths if os.path.exists(p)]
    cost = sync_cost(docs) if docs else None
    if cost is not None and cost.idle_n:
        body.append(
            [
                "one sync on real GPUs (A100, GP100 traces others recorded)",
                "-",
                f"{fmt_us(cost.idle_median_blocked_us)} us median with nothing queued "
                f"({cost.idle_n} of {cost.n} calls); {fmt_us(cost.median_blocked_us)} us median "
                f"of all {cost.n} (`./attribute` on [results/traces](results/traces/index.md))",
            ]
        )
    # 7. ./attribute's speed
    if os.path.exists(speed_json):
        body.append(["`./attribute`'s speed", "-", _speed_rows(speed_json)])
    # 8. the machine limit
    fused = next((x for x in machine_limit.rung_limits(rows) if x.rung == "fused_cpu"), None)
    if fused:
        body.append(
            [
                "the same training, hand-fused (CPU, 1 thread)",
                "-",
                f"{fused.us_per_epoch:.2f} us/epoch, {fused.speedup_eager:.1f}x LibTorch eager, "
                f"{fused.pct_of_peak:.0f}% of the core's float32 FMA peak",
            ]
        )
    skipped = [(run.path, name, msg) for run in runs for name, msg in run.skipped]
    lines = [
        f"Ours: the committed CPU run, `{machine}` (2-core Xeon VM, shared cores; every figure with its "
        f"context in [REPORT.md]({report_md})). The post's: its own runs ({_rel(os.path.join(ROOT, 'analysis', 'article.py'))}).",
        "",
    ]
    lines += markdown_table(["figure", "the post (i9-12900KF, RTX 3080 Ti)", "ours"], body)
    if skipped:  # counted as report_prose.skipped_lines counts them: per family and reason
        by_reason = {}
        for _, name, msg in skipped:
            fam = by_reason.setdefault(msg, {})
            fam[name.split("/")[0]] = fam.get(name.split("/")[0], 0) + 1
        lines += [
            "",
            f"Every GPU figure is pending: that run skipped {len(skipped)} rows ("
            + "; ".join(
                ", ".join(f"{f} {n}" for f, n in sorted(fams.items())) + f": `{msg}`"
                for msg, fams in sorted(by_reason.items())
            )
            + ").",
        ]
    return lines


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
    old = open(args.readme).read()
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
