"""Revisions of the trace tools on one trace, in one interleaved run: `./attribute` (the
whole process, `--quiet --json /dev/null TRACE`) and the package's TraceAnalysis with its three
calls (timed inside the child, as experiments/python_speed.py does), each side in turn every
repetition (the order reversed every other one), so that all see the same machine load. For a
change that must keep the speed:

    python -m experiments.revision_speed --trace out/big-274MB.json --reps 7 \\
        --side e8b6c73=/tmp/old/attribute:/tmp/old-pkg --side HEAD=build-trace/attribute:/tmp/new-pkg

Each --side is NAME=ATTRIBUTE_BINARY:PACKAGE_DIR (the folder holding that revision's installed
`iris_trace`, put first on PYTHONPATH). Writes OUT_DIR/revision-speed.json and .md (default
results/traces/python-speed/): per side and tool the median, min and max wall time and peak RSS,
and each side's median over the first's.
"""

import argparse
import json
import os
import sys
from pathlib import Path

from analysis.atomic_write import write_atomic
from experiments import python_speed
from experiments.attribute_speed import run_child, run_context, summarise, uncompressed_bytes

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "results" / "traces" / "python-speed"
TOOLS = ("attribute", "TraceAnalysis + 3 calls")


def side(spec):
    name, _, paths = spec.partition("=")
    binary, _, package = paths.partition(":")
    if not (name and binary and package):
        raise argparse.ArgumentTypeError(f"--side {spec!r}: expected NAME=ATTRIBUTE:PACKAGE_DIR")
    if not os.path.isfile(binary):
        raise argparse.ArgumentTypeError(f"--side {spec!r}: {binary} is not a file")
    # Else the child would import the environment's own iris_trace and time it for this side.
    if not os.path.isdir(os.path.join(package, "iris_trace")):
        raise argparse.ArgumentTypeError(f"--side {spec!r}: {package} holds no iris_trace")
    return name, binary, package


def one_rep(sides, trace, timeout_s, rep):
    """{(side, tool): run} of one repetition, the sides in turn (reversed every other one, so
    that neither always goes first)."""
    out = {}
    for name, binary, package in sides if rep % 2 == 0 else sides[::-1]:
        rc, wall, rss, text = run_child(
            [binary, "--quiet", "--json", "/dev/null", str(trace)], timeout_s
        )
        out[name, TOOLS[0]] = {"rc": rc, "wall_s": wall, "peak_rss_bytes": rss}
        if rc != 0:
            out[name, TOOLS[0]]["error"] = text.strip()[-500:]
        env = dict(os.environ, PYTHONPATH=package, PYTHONWARNINGS="ignore")
        out[name, TOOLS[1]] = python_speed.measure(
            "python_hta", sys.executable, trace, run_child, timeout_s, env=env
        )
    return out


def markdown(doc):
    first = doc["sides"][0]
    lines = [
        "# Revisions' speed on one trace: `./attribute` and `TraceAnalysis` + 3 calls",
        "",
        f"Written by `experiments/revision_speed.py` on {doc['host']} ({doc['cpus']} CPUs) at "
        f"{doc['when']}, commit {doc['commit']}, trace `{doc['trace']}` ({doc['mb']:.1f} MB of JSON), "
        f"{doc['reps']} repetitions, the sides interleaved; load average {doc['load_before']:.2f} "
        f"at the start, {doc['load_after']:.2f} at the end. `./attribute`: the whole process; "
        "TraceAnalysis: load and calls timed inside the child (imports not).",
        "",
        f"| tool | side | runs ok | median s | min-max s | peak RSS MiB | median / {first}'s |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for tool in TOOLS:
        base = doc["summary"][first][tool]
        for name in doc["sides"]:
            s = doc["summary"][name][tool]
            if s is None:
                lines.append(f"| {tool} | {name} | 0 | n/a | n/a | n/a | n/a |")
                continue
            ratio = s["wall_s_median"] / base["wall_s_median"] if base else float("nan")
            lines.append(
                f"| {tool} | {name} | {s['runs_ok']} | {s['wall_s_median']:.3f} | "
                f"{s['wall_s_min']:.3f}-{s['wall_s_max']:.3f} | "
                f"{s.get('peak_rss_bytes', float('nan')) / 2**20:.0f} | {ratio:.3f} |"
            )
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", type=Path, required=True)
    ap.add_argument("--side", type=side, action="append", required=True)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--timeout-s", type=float, default=600)
    ap.add_argument("--out-dir", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not args.trace.is_file():
        ap.error(f"--trace {args.trace}: no such file")
    if args.reps < 1:
        ap.error(f"--reps {args.reps}: expected at least 1")
    names = [n for n, _, _ in args.side]
    if len(set(names)) != len(names):
        ap.error(f"--side: each side needs a name of its own, got {names}")
    load_before = os.getloadavg()[0]
    runs = {(n, t): [] for n, _, _ in args.side for t in TOOLS}
    for rep in range(args.reps):
        for key, run in one_rep(args.side, args.trace, args.timeout_s, rep).items():
            runs[key].append(run)
            print(
                f"rep {rep + 1}/{args.reps} {key[0]} {key[1]}: rc={run['rc']} "
                f"{run.get('wall_s', float('nan')):.3f} s",
                file=sys.stderr,
            )
    size = uncompressed_bytes(args.trace)
    doc = {
        **run_context(),
        "trace": args.trace.name,
        "mb": size / 1e6,
        "reps": args.reps,
        "sides": [n for n, _, _ in args.side],
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "summary": {n: {t: summarise(runs[n, t], size) for t in TOOLS} for n, _, _ in args.side},
        "runs": {f"{n} / {t}": r for (n, t), r in runs.items()},
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out_dir / "revision-speed.json", json.dumps(doc, indent=1) + "\n")
    write_atomic(args.out_dir / "revision-speed.md", markdown(doc))
    print(markdown(doc))


if __name__ == "__main__":
    main()
