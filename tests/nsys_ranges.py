#!/usr/bin/env python3
"""Our NVTX ranges, read back through Nsight Systems (ctest nsys_ranges).

Profiles a short ItemSync cpu run of bench under `nsys profile -t nvtx,osrt` (no GPU needed),
with a traced pass whose Chrome trace bench writes too, then checks, through Nsight Systems'
own tools:
  1. `nsys stats --report nvtxsum`: every phase of the `iris` domain is there, with one
     instance per epoch run (warm-up + timed + traced: each phase's count per epoch taken from
     our own Chrome trace);
  2. the SQLite export (`nsys export --type sqlite`, read with Python's sqlite3): the ranges
     nest as in our Chrome trace (the same parent -> child pairs, the same depth per phase);
  3. per-phase totals over the traced pass's epochs (the last ones in the timeline) agree with
     bench's own traced-pass figures (phase_<name>_us) of the same run: the NVTX range is
     opened just after and closed just before our host range (capture/nvtx_phase.cpp), so it
     may be shorter, by about what an NVTX push + pop costs under nsys; the table printed says
     by how much;
  4. ./attribute reads the export: its steps are our epochs, all of them.
Exit 77 (a ctest skip) with the reason when there is no nsys; 1 when a check fails.
Standard library only.
"""

import argparse
import csv
import json
import os
import pathlib
import sqlite3
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PHASES = ("epoch", "forward", "loss", "zero_grad", "backward", "step", "log", "item")
WARMUP, EPOCHS, TRACED = 10, 100, 40
ROW = "ItemSync/cpu/interval:1/print100:0/batch:120"
# Each NVTX range lies inside our range of the same phase (pushed after it, popped before it):
# never longer, save for the two clocks' rates (steady_clock and nsys's); shorter by what an
# NVTX push and pop cost under nsys, a fraction of a microsecond (measured: README of
# docs/nsight-systems.md). The bound is on the median instance, so that one preemption
# between the two pushes on a loaded machine cannot fail the test; the totals are printed.
CLOCK_FRACTION, INSTANCE_SLACK_US = 0.005, 2.0


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(
            f"nsys_ranges: {' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}"
        )
    return p.stdout


def nest(ranges):
    """(parent, child) name pairs and the depth of each name, from (start, end, thread, name)."""
    pairs, depth = set(), {}
    by_thread = {}
    for r in ranges:
        by_thread.setdefault(r[2], []).append(r)
    for rs in by_thread.values():
        rs.sort(key=lambda r: (r[0], -r[1]))
        stack = []
        for s, e, _, name in rs:
            while stack and stack[-1][1] < e:
                stack.pop()
            if stack:
                pairs.add((stack[-1][3], name))
            depth.setdefault(name, set()).add(len(stack))
            stack.append((s, e, _, name))
    return pairs, depth


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--attribute", required=True)
    ap.add_argument("--out", required=True, help="scratch folder (emptied)")
    a = ap.parse_args()
    p = subprocess.run([str(ROOT / "scripts/nsys_path.sh")], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"SKIP: {p.stderr.strip()}")
        return 77
    nsys = p.stdout.strip()
    out = pathlib.Path(a.out)
    subprocess.run(["rm", "-rf", str(out)], check=True)
    (out / "traces").mkdir(parents=True)
    env = dict(
        os.environ, OMP_NUM_THREADS="1"
    )  # one torch thread: the test checks ranges, not speed
    run(
        [
            nsys,
            "profile",
            "-t",
            "nvtx,osrt",
            "--sample=none",
            "--cpuctxsw=none",
            "--force-overwrite",
            "true",
            "-o",
            str(out / "run"),
            a.bench,
            f"--benchmark_filter=^{ROW}/",
            "--devices=cpu",
            "--intervals=1",
            "--print100=0",
            "--batches=120",
            f"--epochs={EPOCHS}",
            f"--warmup_epochs={WARMUP}",
            f"--trace_epochs={TRACED}",
            f"--trace_file_epochs={TRACED}",
            f"--trace_dir={out / 'traces'}",
            f"--benchmark_out={out / 'bench.json'}",
            "--benchmark_out_format=json",
        ],
        env=env,
    )
    run(
        [
            nsys,
            "export",
            "--type",
            "sqlite",
            "--quiet",
            "true",
            "-o",
            str(out / "run.sqlite"),
            str(out / "run.nsys-rep"),
        ]
    )
    run(
        [
            nsys,
            "stats",
            "--quiet",
            "--report",
            "nvtxsum",
            "--format",
            "csv",
            "-o",
            str(out / "stats"),
            str(out / "run.sqlite"),
        ]
    )
    failures = []

    # Our own record of the traced pass: the Chrome trace and bench's figures.
    traces = list((out / "traces").glob("*.trace.json"))
    if not traces or (out / "bench.json").stat().st_size == 0:
        sys.exit(f"nsys_ranges: bench under nsys ran no {ROW} row (no trace file or JSON in {out})")
    trace_file = traces[0]
    bench_json = json.loads((out / "bench.json").read_text())
    if bench_json.get("context", {}).get("built_with_nvtx") != "yes":
        print(
            "SKIP: this bench was built without NVTX (no CUDA toolkit at configure time): it emits no ranges"
        )
        return 77
    ours = [
        ((round(e["ts"] * 1000)), round((e["ts"] + e["dur"]) * 1000), e["tid"], e["name"])
        for e in json.loads(trace_file.read_text())["traceEvents"]
        if e.get("cat") == "phase"
    ]
    our_epochs = sum(1 for r in ours if r[3] == "epoch")
    per_epoch = {ph: sum(1 for r in ours if r[3] == ph) / our_epochs for ph in PHASES}
    row = next(b for b in bench_json["benchmarks"] if b["name"].startswith(ROW))

    # 1. nsys stats: every phase, one instance per epoch run.
    stats = {r["Range"]: r for r in csv.DictReader(open(out / "stats_nvtxsum.csv"))}
    runs = WARMUP + EPOCHS + TRACED
    print(
        f"nsys_ranges: nvtxsum of {ROW} under nsys ({WARMUP} warm-up + {EPOCHS} timed + {TRACED} traced epochs)"
    )
    for ph in PHASES:
        got = int(stats[f"iris:{ph}"]["Instances"]) if f"iris:{ph}" in stats else 0
        want = round(per_epoch[ph] * runs)
        print(f"  iris:{ph:<10} {got:5d} instances (want {want})")
        if got != want:
            failures.append(f"iris:{ph}: {got} instances in nvtxsum, want {want}")

    # 2. The SQLite export: our ranges, nested as in our Chrome trace.
    db = sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True)
    domain = db.execute(
        "SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'iris'"
    ).fetchone()
    if domain is None:
        failures.append("no iris domain in the export")
        nsys_ranges = []
    else:
        nsys_ranges = db.execute(
            "SELECT n.start, n.end, n.globalTid, coalesce(s.value, n.text) FROM NVTX_EVENTS n"
            " LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType = 59 AND n.domainId = ?",
            domain,
        ).fetchall()
    nsys_pairs, nsys_depth = nest(nsys_ranges)
    our_pairs, our_depth = nest(ours)
    print(f"  nesting: {sorted(nsys_pairs)}")
    if nsys_pairs != our_pairs:
        failures.append(
            f"nesting differs: nsys {sorted(nsys_pairs)}, our Chrome trace {sorted(our_pairs)}"
        )
    if nsys_depth != our_depth:
        failures.append(f"depths differ: nsys {nsys_depth}, our Chrome trace {our_depth}")

    # 3. Per-phase totals over the traced pass (the last TRACED epochs) against bench's figures,
    # and instance by instance against our Chrome trace of the same epochs.
    epochs = sorted((s, e) for s, e, _, n in nsys_ranges if n == "epoch")[-TRACED:]
    print(
        f"  per-phase host time per epoch over the {TRACED} traced epochs: bench's traced pass, Nsight Systems (us),"
    )
    print("  and per instance, how much shorter the NVTX range is than ours (median, max; us)")
    for ph in PHASES[1:]:
        theirs = sorted(
            (s, e)
            for s, e, _, n in nsys_ranges
            if n == ph and any(a <= s and e <= b for a, b in epochs)
        )
        mine = sorted((s, e) for s, e, _, n in ours if n == ph)
        nsys_us = sum(e - s for s, e in theirs) / 1000 / TRACED
        bench_us = row.get(f"phase_{ph}_us", 0.0)
        diff = bench_us - nsys_us
        shorter = sorted(((e1 - s1) - (e2 - s2)) / 1000 for (s1, e1), (s2, e2) in zip(mine, theirs))
        median = shorter[len(shorter) // 2] if shorter else float("nan")
        print(
            f"    {ph:<10} {bench_us:10.2f} {nsys_us:10.2f}   shorter by {diff:6.2f} ({100 * diff / bench_us if bench_us else 0:4.1f}%);"
            f" per instance {median:5.2f}, {shorter[-1] if shorter else float('nan'):7.2f}"
        )
        if len(theirs) != len(mine):
            failures.append(
                f"{ph}: {len(theirs)} NVTX ranges in the traced epochs, {len(mine)} in our Chrome trace"
            )
        elif diff < -CLOCK_FRACTION * bench_us or median < 0 or median > INSTANCE_SLACK_US:
            failures.append(
                f"{ph}: bench {bench_us:.2f} us/epoch, nsys {nsys_us:.2f}, median instance {median:.2f} us shorter"
            )

    # 4. ./attribute on the export: our epochs are its steps.
    run([a.attribute, "--quiet", "--json", str(out / "attribute.json"), str(out / "run.sqlite")])
    rep = json.loads((out / "attribute.json").read_text())["traces"][0]
    print(f"  ./attribute: {len(rep['steps'])} steps")
    if len(rep["steps"]) != runs or any(s["name"] != "epoch" for s in rep["steps"]):
        failures.append(
            f"./attribute found {len(rep['steps'])} steps in the export, want {runs} epochs"
        )

    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
