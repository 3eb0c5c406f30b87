"""TraceAnalysis with every call iris_trace.hta answers, beside HTA itself in both releases it
follows, on one trace: each side a child process that loads the trace and makes every call
(visualize=False), each call timed, its peak RSS the process's; repetitions interleaved, one
machine, one run. Writes all-calls.json and all-calls.md (results/traces/python-speed/).

    python -m experiments.hta_calls_speed --trace out/big-274MB.json --reps 3 \\
        --hta 0.6.1=/work/scratch/hta061/bin/python --hta 0.5.0=/work/scratch/hta050/bin/python

Ours runs with hta_version= each release, against that release. A call that raises (HTA's
stragglers on one rank) is timed to its exception, which is recorded. The imports are not timed.
"""

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from analysis.atomic_write import write_atomic
from experiments.attribute_speed import run_child, run_context

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "results" / "traces" / "python-speed"

# One child: load, then every call. {module} is iris_trace.hta or hta.trace_analysis.
CHILD = r"""
import io, json, os, sys, tempfile, time, contextlib
from {module} import TraceAnalysis
trace, kw = sys.argv[1], json.loads(sys.argv[2])
times, errors = {{}}, {{}}
def timed(name, f):
    t = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            out = f()
    except Exception as e:
        out, errors[name] = None, f"{{type(e).__name__}}: {{e}}"[:300]
    times[name] = time.perf_counter() - t
    return out
with tempfile.TemporaryDirectory(prefix="all-calls-speed-") as d:
    os.symlink(os.path.abspath(trace), os.path.join(d, os.path.basename(trace)))
    a = timed("load", lambda: TraceAnalysis(trace_dir=d, **kw))
    timed("get_temporal_breakdown", lambda: a.get_temporal_breakdown(visualize=False))
    timed("get_idle_time_breakdown", lambda: a.get_idle_time_breakdown(
        visualize=False, show_idle_interval_stats=True))
    timed("get_cuda_kernel_launch_stats", lambda: a.get_cuda_kernel_launch_stats(visualize=False))
    timed("get_queue_length_summary", lambda: a.get_queue_length_summary())
    series = timed("get_queue_length_time_series", lambda: a.get_queue_length_time_series())
    timed("get_time_spent_blocked_on_full_queue",
          lambda: a.get_time_spent_blocked_on_full_queue(series))
    timed("get_gpu_kernel_breakdown", lambda: a.get_gpu_kernel_breakdown(visualize=False))
    timed("get_memory_bw_time_series", lambda: a.get_memory_bw_time_series())
    timed("get_memory_bw_summary", lambda: a.get_memory_bw_summary())
    timed("get_comm_comp_overlap", lambda: a.get_comm_comp_overlap(visualize=False))
    timed("get_profiler_steps", lambda: a.get_profiler_steps())
    timed("get_potential_stragglers", lambda: a.get_potential_stragglers())
    timed("critical_path_analysis",
          lambda: a.critical_path_analysis(0, "ProfilerStep", 1)[0].summary())
print("CALLS " + json.dumps({{"times": times, "errors": errors}}))
"""


def sides(args):
    """(name, python, module, keywords) of each side: ours and HTA's per release asked."""
    out = []
    for spec in args.hta:
        release, python = spec.split("=", 1)
        out.append((f"ours {release}", sys.executable, "iris_trace.hta", {"hta_version": release}))
        out.append((f"HTA {release}", python, "hta.trace_analysis", {}))
    return out


def one_run(python, module, kw, trace, args):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    cmd = [python, "-c", CHILD.format(module=module), str(trace), json.dumps(kw)]
    rc, wall, rss, text = run_child(cmd, args.timeout_s, env=env)
    run = {"rc": rc, "process_wall_s": wall, "peak_rss_bytes": rss}
    for line in text.splitlines():
        if line.startswith("CALLS "):
            run.update(json.loads(line[len("CALLS ") :]))
    if rc != 0 or "times" not in run:
        run["error"] = text.strip()[-1500:]
    return run


def medians(runs):
    ok = [r for r in runs if "times" in r]
    if not ok:
        return None
    calls = {k: statistics.median(r["times"][k] for r in ok) for k in ok[0]["times"]}
    return {
        "runs_ok": len(ok),
        "calls_s": calls,
        "total_s": statistics.median(sum(r["times"].values()) for r in ok),
        "after_load_s": statistics.median(
            sum(r["times"].values()) - r["times"]["load"] for r in ok
        ),
        "peak_rss_mib": max(r["peak_rss_bytes"] for r in ok) / 2**20,
        "errors": ok[0].get("errors", {}),
    }


def markdown(doc):
    s = doc["sides"]
    lines = [
        "# `iris_trace.hta.TraceAnalysis` with every call, beside HTA",
        "",
        (
            f"Written by `experiments/hta_calls_speed.py` on {doc['host']} ({doc['cpus']} CPUs) at "
            f"{doc['when']}, commit {doc['commit']}, trace `{doc['trace']}` ({doc['mb']:.1f} MB), "
            f"{doc['reps']} repetitions interleaved; load average {doc['load'][0]:.2f} at the start, "
            f"{doc['load'][1]:.2f} at the end. Seconds are medians of the timed calls (imports "
            "not timed); peak RSS is each child process's largest."
        ),
        "",
        "| side | runs ok | load s | every call after it s | total s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, m in s.items():
        if m is None:
            lines.append(f"| {name} | 0 | n/a | n/a | n/a | n/a |")
            continue
        calls = m["after_load_s"]
        lines.append(
            f"| {name} | {m['runs_ok']} | {m['calls_s']['load']:.3f} | {calls:.3f} | "
            f"{m['total_s']:.3f} | {m['peak_rss_mib']:.0f} |"
        )
    lines += ["", "| call | " + " | ".join(s) + " |", "|---|" + "---:|" * len(s)]
    first = next(m for m in s.values() if m)
    for call in first["calls_s"]:
        cells = [
            f"{m['calls_s'][call]:.3f}" + (" (raises)" if call in m["errors"] else "")
            if m
            else "n/a"
            for m in s.values()
        ]
        lines.append(f"| {call} | " + " | ".join(cells) + " |")
    lines += ["", "Ratios (HTA / ours, same release):", ""]
    for release in doc["releases"]:
        ours, hta = s.get(f"ours {release}"), s.get(f"HTA {release}")
        if ours and hta:
            lines.append(
                f"- {release}: total {hta['total_s'] / ours['total_s']:.1f}x faster, peak RSS "
                f"{ours['peak_rss_mib'] / hta['peak_rss_mib']:.2f} of HTA's"
            )
    lines += ["", "Where a side raises:", ""]
    for name, m in s.items():
        for call, err in (m or {}).get("errors", {}).items():
            lines.append(f"- {name}, {call}: `{err.splitlines()[0]}`")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", required=True, type=Path)
    ap.add_argument("--hta", action="append", required=True, help="RELEASE=PYTHON, repeatable")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout-s", type=int, default=1800)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if not args.trace.is_file():
        raise SystemExit(f"hta_calls_speed: {args.trace}: no such trace file")
    load0 = os.getloadavg()[0]
    runs = {name: [] for name, *_ in sides(args)}
    for rep in range(args.reps):
        for name, python, module, kw in sides(args):
            run = one_run(python, module, kw, args.trace, args)
            runs[name].append(run)
            total = sum(run.get("times", {}).values())
            print(f"rep {rep} {name}: rc={run['rc']} {total:.2f} s", flush=True)
    doc = {
        **run_context(),
        "trace": args.trace.name,
        "mb": args.trace.stat().st_size / 1e6,
        "reps": args.reps,
        "load": [load0, os.getloadavg()[0]],
        "releases": [spec.split("=", 1)[0] for spec in args.hta],
        "sides": {name: medians(r) for name, r in runs.items()},
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "all-calls.json", json.dumps(doc, indent=1) + "\n")
    write_atomic(args.out / "all-calls.md", markdown(doc))
    print(f"wrote {args.out / 'all-calls.md'}")


if __name__ == "__main__":
    main()
