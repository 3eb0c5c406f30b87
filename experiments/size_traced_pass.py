#!/usr/bin/env python3
"""How many epochs each ItemSync row's traced pass can have, from a probe run.

The GPU script first runs two ItemSync cuda rows with a short traced pass each, in one
process (the first CUPTI session in a process pays for enabling concurrent-kernel tracing,
which can stall for seconds; the second shows the steady cost). From the second pass's
start + stop time and traced time per epoch, this picks the largest epoch count (between
--min and --max) for which ROWS traced passes fit in BUDGET_S seconds, and prints it on
stdout; what it measured goes to stderr.

    experiments/size_traced_pass.py PROBE.json --rows 14 --budget_s 60 [--min 100 --max 500]

Exit 2 with a message when the probe has fewer than one traced row."""

import argparse
import json
import sys


def traced_rows(doc):
    return [
        r
        for r in doc.get("benchmarks", [])
        if r.get("run_type") != "aggregate"
        and not r.get("error_occurred")
        and r.get("attr_epochs", 0) > 0
        and "trace_start_s" in r
    ]


def size(rows, n_rows, budget_s, lo, hi):
    steady = rows[1] if len(rows) > 1 else rows[0]  # the first pays the one-off start-up
    fixed = steady["trace_start_s"] + steady["trace_stop_s"]
    per_epoch = steady["traced_us_per_epoch"] * 1e-6
    epochs = int((budget_s / n_rows - fixed) / per_epoch) if per_epoch > 0 else hi
    return max(lo, min(hi, epochs)), fixed, per_epoch


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("probe")
    ap.add_argument(
        "--rows", type=int, required=True, help="traced rows to fit (ItemSync cuda: 14)"
    )
    ap.add_argument(
        "--budget_s", type=float, required=True, help="seconds all traced passes may take"
    )
    ap.add_argument("--min", type=int, default=100)
    ap.add_argument("--max", type=int, default=500)
    args = ap.parse_args(argv)
    try:
        with open(args.probe) as f:
            rows = traced_rows(json.load(f))
    except (OSError, ValueError) as e:
        print(f"size_traced_pass: {args.probe}: not a readable bench JSON ({e})", file=sys.stderr)
        return 2
    if not rows:
        print(
            f"size_traced_pass: {args.probe}: no row with a traced pass (trace_start_s, attr_epochs > 0)",
            file=sys.stderr,
        )
        return 2
    epochs, fixed, per_epoch = size(rows, args.rows, args.budget_s, args.min, args.max)
    for i, r in enumerate(rows[:2]):
        print(
            f"size_traced_pass: traced pass {i + 1}: start {r['trace_start_s']:.3f} s, stop {r['trace_stop_s']:.3f} s, "
            f"{r['traced_us_per_epoch']:.1f} us/epoch traced",
            file=sys.stderr,
        )
    print(
        f"size_traced_pass: {args.rows} rows x ({fixed:.2f} s + E x {per_epoch * 1e6:.1f} us) within "
        f"{args.budget_s:.0f} s -> E = {epochs}",
        file=sys.stderr,
    )
    print(epochs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
