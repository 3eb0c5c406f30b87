"""Two runs side by side, row by row, with the differences beyond noise marked.

    python -m analysis.compare results/A results/B [--out FILE.md]

A and B are results folders (the same machine on two commits, or two machines) or single
bench JSON files. Every row present in both (matched by its name: ItemSync/cpu/interval:0/...)
gets its median in A and in B, B/A, and the 95% CI of the difference of the means (Welch,
over the repetitions: analysis/noise.py); a difference whose interval excludes 0 is marked
**faster** or **slower**, the rest "within noise". The figure compared is the row's price of
one unit: us_per_op for primitives, us_per_epoch for training loops (so runs with other epoch
counts still compare), else the iteration's time. Exit 2 on bad input, naming it.

scripts/compare.sh wraps this for folders and Google Benchmark's own compare.py for files.
"""

import argparse
import glob
import os
import re
import sys

import numpy as np

from analysis import bench_json, noise
from analysis.atomic_write import write_atomic
from analysis.bench_json import BenchJsonError
from analysis.tables import markdown_table


def load_side(path):
    """(runs, {row name: [values]}, unit per name) of a folder or one JSON file."""
    if os.path.isdir(path):
        paths = sorted(
            p for p in glob.glob(os.path.join(path, "*.json")) if not p.endswith(".trace.json")
        )
        if not paths:
            raise BenchJsonError(f"{path}: no bench JSON files (*.json) here")
    elif os.path.isfile(path):
        paths = [path]
    else:
        raise BenchJsonError(f"{path}: no such results folder or bench JSON file")
    runs = [bench_json.load(p) for p in paths]
    values, units = {}, {}
    for run in runs:
        for r in run.rows:
            value, unit = row_value(r)
            name = re.sub(
                r"/iterations:\d+$", "", r.name
            )  # Google Benchmark's suffix, not a configuration
            values.setdefault(name, []).append(value)
            units[name] = unit
    return runs, values, units


def row_value(r):
    """The price of one unit of the row's work, and its name."""
    if "us_per_op" in r.counters:
        return r.counters["us_per_op"], "us/op"
    if "us_per_epoch" in r.counters:
        return r.counters["us_per_epoch"], "us/epoch"
    return r.seconds * 1e6, "us/iteration"


def describe(runs):
    ctx = runs[0].context
    commits = sorted({str(r.context.get("git_commit")) for r in runs})
    loads = [r.context.get("load_avg") for r in runs if isinstance(r.context.get("load_avg"), list)]
    load = (
        f", load average {min(l[0] for l in loads):.2f}-{max(l[0] for l in loads):.2f}"
        if loads
        else ""
    )
    return (
        f"{ctx.get('cpu_model')} / GPU {ctx.get('gpu_name')}, torch {ctx.get('torch_version')}, "
        f"commit {', '.join(commits)}{load}"
    )


HEADER = [
    "row",
    "unit",
    "A median",
    "B median",
    "B/A (medians)",
    "B-A (means), % of A's mean",
    "verdict",
]


def compare(a_path, b_path):
    """Markdown lines of the comparison; raises BenchJsonError on bad input."""
    a_runs, a_vals, units = load_side(a_path)
    b_runs, b_vals, b_units = load_side(b_path)
    units.update(b_units)
    common = sorted(k for k in a_vals if k in b_vals)
    md = [
        f"# A/B: {a_path} vs {b_path}",
        "",
        f"- A: {describe(a_runs)}",
        f"- B: {describe(b_runs)}",
        "",
        (
            "Per row: median of the repetitions in A and B and their ratio B/A; B - A, the difference "
            "of the means in % of A's mean, with its 95% CI (Welch). **faster**/**slower**: the "
            "interval excludes 0; *within noise*: it holds 0; n<2 on either side: noise unknown. "
            "Same-machine runs on the same day are the fair comparison; across days or machines the "
            "whole machine's speed moves too."
        ),
        "",
    ]
    body, verdicts = [], {"faster": 0, "slower": 0, "within noise": 0, "noise unknown": 0}
    for k in common:
        cells, verdict = row_cells(k, units[k], np.asarray(a_vals[k]), np.asarray(b_vals[k]))
        verdicts[verdict] += 1
        body.append(cells)
    md += markdown_table(HEADER, body)
    md += ["", summary_line(common, a_vals, b_vals, verdicts)]
    return md + only_in_one(a_vals, b_vals)


def row_cells(name, unit, a, b):
    """(the row's cells, its verdict) for the values of one row in A and in B."""
    diff, ci = noise.mean_difference(a, b)
    ratio = float(np.median(b) / np.median(a)) if np.median(a) else float("nan")
    if ci is None:
        verdict, ci_text = "noise unknown", "n<2"
    else:
        lo, hi = (100 * v / a.mean() for v in ci)
        ci_text = f"{100 * diff / a.mean():+.1f}% [95% CI {lo:+.1f}%, {hi:+.1f}%]"
        verdict = ("slower" if lo > 0 else "faster") if noise.beyond_noise(ci) else "within noise"
    shown = f"**{verdict}**" if verdict in ("faster", "slower") else f"*{verdict}*"
    cells = [
        name,
        unit,
        f"{np.median(a):.4g} (n={len(a)})",
        f"{np.median(b):.4g} (n={len(b)})",
        f"{ratio:.3f}x",
        ci_text,
        shown,
    ]
    return cells, verdict


def summary_line(common, a_vals, b_vals, verdicts):
    """The count of each verdict and the geometric mean of B/A over the rows in both."""
    ratios = [
        float(np.median(b_vals[k]) / np.median(a_vals[k]))
        for k in common
        if np.median(a_vals[k]) > 0
    ]
    return (
        f"{len(common)} rows in both: {verdicts['slower']} slower and {verdicts['faster']} faster beyond "
        f"noise, {verdicts['within noise']} within noise, {verdicts['noise unknown']} with n<2"
        + (
            f"; geometric mean of B/A {float(np.exp(np.mean(np.log(ratios)))):.3f}x."
            if ratios
            else "."
        )
    )


def only_in_one(a_vals, b_vals):
    """A line for each side naming the rows the other side lacks (the first 20)."""
    md = []
    for label, only in (
        ("A", [k for k in a_vals if k not in b_vals]),
        ("B", [k for k in b_vals if k not in a_vals]),
    ):
        if only:
            md += [
                f"Only in {label} ({len(only)} rows): "
                + ", ".join(only[:20])
                + (" ..." if len(only) > 20 else "")
            ]
    return md


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="results folder or bench JSON file (A, the baseline)")
    ap.add_argument("b", help="results folder or bench JSON file (B)")
    ap.add_argument("--out", help="also write the Markdown here (atomically)")
    args = ap.parse_args(argv)
    try:
        text = "\n".join(compare(args.a, args.b)) + "\n"
    except BenchJsonError as e:
        print(f"analysis.compare: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if args.out:
        write_atomic(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
