#!/usr/bin/env python3
"""Do timed rows run slower after a CUPTI-traced pass in the same process?

Runs bench's KernelLaunch/host_launch and Sync/item_idle rows (cuda) in a fresh process
("alone") and in a process where Dispatch/cuda-train_step first counts kernels with a CUPTI
session ("after a traced pass"; Dispatch is registered before the primitives, so it runs
first), alternating ROUNDS times, and sets the medians side by side. The CUPTI session
detaches (cuptiFinalize) at the end of every traced pass; if it did not, CUPTI would stay
loaded and the "after" rows would pay for it.

    experiments/cupti_detach_check.py --bench build/bench --out results/<machine>/cupti_detach [--rounds 2]

Writes OUT/cupti_detach.json (every bench JSON's rows of interest) and OUT/cupti_detach.md,
each atomically. Without a GPU the rows are skipped and the page says so. Cost on a GPU:
~4 bench processes x ~6 s."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from analysis.atomic_write import write_atomic

ROWS = ("KernelLaunch/host_launch", "Sync/item_idle")
TRACED_FIRST = "Dispatch/cuda-train_step"


def run_bench(bench, out_json, with_trace, budget_s):
    names = ([TRACED_FIRST] if with_trace else []) + list(ROWS)
    flt = "^(" + "|".join(names) + ")"
    cmd = [
        bench,
        f"--benchmark_filter={flt}",
        "--devices=cuda",
        "--benchmark_min_time=0.2",
        "--benchmark_repetitions=3",
        f"--benchmark_out={out_json}",
        "--benchmark_out_format=json",
    ]
    if budget_s:
        cmd.append(f"--budget_s={budget_s}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(
            f"cupti_detach_check: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}"
        )
    with open(out_json) as f:
        return json.load(f)["benchmarks"]


def row_key(name):
    return name.split("/manual_time")[0].split("/repeats:")[0]


def summarize(samples):
    """samples: {mode: [bench rows]} -> lines of Markdown and a dict of medians."""
    table, skipped = {}, []
    for mode, rows in samples.items():
        for r in rows:
            key = row_key(r["name"])
            if r.get("run_type") == "aggregate" or key not in ROWS:
                continue
            if r.get("error_occurred"):
                skipped.append(f"{key}: {r.get('error_message', '')}")
                continue
            table.setdefault(key, {}).setdefault(mode, []).append(r["us_per_op"])
    lines = [
        "# Timed rows alone and after a CUPTI-traced pass",
        "",
        "Median host cost per operation (us) over every repetition of every round; "
        "ratio = after / alone. The CUPTI session detaches after each traced pass, so the ratio "
        "should be within the run-to-run spread (the min-max column).",
        "",
    ]
    medians = {}
    traced = [
        r
        for r in samples.get("after_trace", [])
        if row_key(r["name"]) == TRACED_FIRST and r.get("run_type") != "aggregate"
    ]
    counted = [r["kernels_per_step"] for r in traced if "kernels_per_step" in r]
    if counted:
        lines += [
            f"The traced pass ran before the rows in every 'after' process ({TRACED_FIRST}: "
            f"{statistics.median(counted):.0f} kernels per step counted by CUPTI).",
            "",
        ]
    elif traced:
        lines += [
            f"The traced pass did NOT run ({TRACED_FIRST}: "
            f"{traced[0].get('error_message') or traced[0].get('label', '')}): the comparison means nothing.",
            "",
        ]
    if not table:
        lines.append("Not measured: " + ("; ".join(sorted(set(skipped))) or "no rows"))
        return lines, medians
    lines += [
        "| row | alone (us) | after a traced pass (us) | ratio | alone min-max |",
        "|---|---|---|---|---|",
    ]
    for key in ROWS:
        modes = table.get(key, {})
        if "alone" not in modes or "after_trace" not in modes:
            lines.append(f"| {key} | missing | missing | | |")
            continue
        a, b = statistics.median(modes["alone"]), statistics.median(modes["after_trace"])
        medians[key] = {"alone_us": a, "after_trace_us": b, "ratio": b / a}
        lines.append(
            f"| {key} | {a:.2f} | {b:.2f} | {b / a:.2f}x | {min(modes['alone']):.2f}-{max(modes['alone']):.2f} |"
        )
    return lines, medians


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", required=True, help="folder for cupti_detach.json and .md (created)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--budget_s", type=float, default=0, help="passed to each bench run")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if not os.access(args.bench, os.X_OK):
        ap.error(f"--bench: {args.bench} is not an executable file")
    os.makedirs(args.out, exist_ok=True)
    samples = {"alone": [], "after_trace": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            for mode in ("alone", "after_trace"):  # alternated: drift hits both
                rows = run_bench(
                    args.bench,
                    os.path.join(tmp, f"{mode}-{i}.json"),
                    mode == "after_trace",
                    args.budget_s,
                )
                samples[mode] += rows
    lines, medians = summarize(samples)
    write_atomic(
        os.path.join(args.out, "cupti_detach.json"),
        json.dumps({"rows": samples, "medians": medians}, indent=1),
    )
    write_atomic(os.path.join(args.out, "cupti_detach.md"), "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
