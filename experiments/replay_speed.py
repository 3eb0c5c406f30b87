"""How long the replay takes against `./attribute`'s own report on the same trace (the
target: the replay of the 1 GB trace takes at most 2x ./attribute's own time on it).

    python3 -m experiments.make_big_trace --out /tmp/big/a100-1GB.json      # ~1-3 min, never committed
    cp build-trace/attribute /tmp/big/attribute-snapshot                     # a rebuild cannot change it mid-run
    python3 -m experiments.replay_speed --attribute /tmp/big/attribute-snapshot --reps 5 /tmp/big/a100-1GB.json

Three whole processes per repetition, interleaved so that all three see the same machine load:
  attribute   ATTRIBUTE --quiet --json /dev/null TRACE                  (import + attribution)
  replay      ATTRIBUTE --quiet --json /dev/null --replay TRACE         (import + unchanged replay
                                                                         and the replay with typical delays)
  what-if     ATTRIBUTE --quiet --json /dev/null --what-if no-syncs --what-if log-every=1,10,never TRACE
Wall time around each child (monotonic clock) and its peak RSS (os.wait4), median over the
repetitions with min and max, the 1-minute load average before and after. Writes
OUT_DIR/replay-speed.json and replay-speed.md (default results/traces/), each renamed into place
when complete. Cost: reps x 3 runs of ~3-15 s each on the 1 GB trace.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from analysis.atomic_write import write_atomic
from experiments.attribute_speed import run_child, summarise, uncompressed_bytes

REPO = Path(__file__).resolve().parent.parent
MODES = {
    "attribute": [],
    "replay": ["--replay"],
    "what-if": ["--what-if", "no-syncs", "--what-if", "log-every=1,10,never"],
}
LIMIT = 2.0  # the replay may take at most this many times ./attribute's own time


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def markdown(doc):
    lines = [
        "# Replay speed: `./attribute --replay` / `--what-if` against `./attribute` on the same trace",
        "",
        (
            f"Written by `experiments/replay_speed.py` (commit {doc['commit']}, binary sha256 "
            f"{doc['binary_sha256'][:12]}), {doc['reps']} interleaved repetitions per mode, 1-minute load average "
            f"{doc['load_before']:.1f} before and {doc['load_after']:.1f} after on {doc['cpus']} CPUs."
        ),
        "",
    ]
    for t in doc["traces"]:
        lines += [
            f"## `{t['trace']}` ({t['bytes'] / 1e6:.1f} MB of JSON)",
            "",
            "| mode | runs | wall s median (min-max) | MB/s | peak RSS MB | wall / attribute |",
            "|---|---|---|---|---|---|",
        ]
        base = t["modes"]["attribute"]
        for mode, s in t["modes"].items():
            if s is None:
                lines.append(f"| {mode} | 0 | failed | - | - | - |")
                continue
            ratio = s["wall_s_median"] / base["wall_s_median"] if base else float("nan")
            lines.append(
                f"| {mode} | {s['runs_ok']} | {s['wall_s_median']:.2f} ({s['wall_s_min']:.2f}-{s['wall_s_max']:.2f}) | "
                f"{s['mb_per_s']:.0f} | {s['peak_rss_bytes'] / 1e6:.0f} | {ratio:.2f}x |"
            )
        lines += ["", t["verdict"], ""]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--attribute", default=os.environ.get("ATTRIBUTE", str(REPO / "attribute")))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout-s", type=float, default=600)
    ap.add_argument("--out", default=str(REPO / "results" / "traces"))
    args = ap.parse_args()
    if not os.access(args.attribute, os.X_OK):
        print(
            f"replay_speed: {args.attribute} is not an executable (build ./attribute first)",
            file=sys.stderr,
        )
        return 2
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    doc = {
        "commit": commit,
        "binary": args.attribute,
        "binary_sha256": sha256(args.attribute),
        "reps": args.reps,
        "cpus": os.cpu_count(),
        "load_before": os.getloadavg()[0],
        "traces": [],
    }
    for trace in args.traces:
        size = uncompressed_bytes(trace)
        runs = {m: [] for m in MODES}
        for rep in range(args.reps):
            for mode, flags in MODES.items():
                cmd = [args.attribute, "--quiet", "--json", "/dev/null"] + flags + [trace]
                rc, wall, rss, text = run_child(cmd, args.timeout_s)
                runs[mode].append(
                    {"rc": rc, "wall_s": wall, "peak_rss_bytes": rss, "load": os.getloadavg()[0]}
                )
                print(
                    f"{Path(trace).name} rep {rep + 1} {mode}: rc {rc}, {wall:.2f} s, {rss / 1e6:.0f} MB",
                    flush=True,
                )
                if rc != 0:
                    print(text[-2000:], file=sys.stderr)
        modes = {m: summarise(r, size) for m, r in runs.items()}
        a, r = modes["attribute"], modes["replay"]
        if a and r:
            ratio = r["wall_s_median"] / a["wall_s_median"]
            verdict = (
                f"The replay took {ratio:.2f}x ./attribute's own time (median of {args.reps}; asked: at most "
                f"{LIMIT:.0f}x): {'met' if ratio <= LIMIT else 'NOT met'}."
            )
        else:
            verdict = "A mode failed: no verdict."
        doc["traces"].append(
            {"trace": str(trace), "bytes": size, "modes": modes, "runs": runs, "verdict": verdict}
        )
    doc["load_after"] = os.getloadavg()[0]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "replay-speed.json", json.dumps(doc, indent=1) + "\n")
    write_atomic(out / "replay-speed.md", markdown(doc))
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
