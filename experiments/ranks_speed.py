"""Many ranks with the Python package: N per-rank copies of a large trace (default 16 of
make_big_trace.py's 1 GB trace, each with its own distributedInfo.rank), read by
`iris_trace.attribute(folder)` in a child process: its wall time and peak RSS (the child's
ru_maxrss), with the workers and memory bound it chose and the machine's load.

    python3 -m experiments.make_big_trace --out out/big-1GB.json
    python3 -m experiments.ranks_speed --python PY --source out/big-1GB.json --ranks 16 \\
        --folder out/ranks-16 [--delete] [--out-dir results/traces/python-speed]

PY: a Python with the iris_trace package. Writes OUT_DIR/ranks-speed.json and .md (through
analysis.atomic_write). --delete removes the rank copies afterwards (16 GB for 16 ranks of 1 GB). The rank
copies are written once (not timed) and reused while their size matches the source's.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from analysis.atomic_write import open_atomic, write_atomic

REPO = Path(__file__).resolve().parent.parent
HEAD = 1 << 20  # distributedInfo sits in the header, before traceEvents

CHILD = r"""
import json, os, sys, time
from iris_trace import attribute, _ranks
t0 = time.perf_counter()
r = attribute(sys.argv[1])
n = len(r.json)
t1 = time.perf_counter()
print("RANKS " + json.dumps({"call_s": t1 - t0, "ranks": len(r.files), "json_chars": n,
      "waits_for": r.waits_for, "steps": int((~r.steps["is_total"]).sum()),
      "max_memory": _ranks.default_max_memory(), "cores": os.cpu_count()}))
"""


def write_rank(source, dest, rank):
    """source with distributedInfo.rank = rank, streamed (the header rewritten, the rest copied)."""
    with open(source, "rb") as src, open_atomic(dest, "wb") as out:
        head = src.read(HEAD)
        cut = head.find(b'"traceEvents"')
        if cut < 0:
            sys.exit(f"ranks_speed: {source}: no traceEvents in its first {HEAD} bytes")
        fixed, n = re.subn(rb'("rank":\s*)\d+', rb"\g<1>%d" % rank, head[:cut], count=1)
        if n != 1:
            sys.exit(f"ranks_speed: {source}: no distributedInfo rank in its header")
        out.write(fixed + head[cut:])
        while chunk := src.read(1 << 24):
            out.write(chunk)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", required=True)
    ap.add_argument("--source", default=str(REPO / "out" / "big-1GB.json"))
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--folder", default=str(REPO / "out" / "ranks-16"))
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--delete", action="store_true")
    ap.add_argument("--out-dir", default=str(REPO / "results" / "traces" / "python-speed"))
    args = ap.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    size = os.path.getsize(args.source)
    for k in range(args.ranks):
        dest = folder / f"rank-{k}.json"
        if not dest.exists() or abs(dest.stat().st_size - size) > 64:
            print(f"writing {dest}", flush=True)
            write_rank(args.source, dest, k)
    total = sum(p.stat().st_size for p in folder.glob("rank-*.json"))
    runs = []
    for rep in range(args.reps):
        runs.append(run_once(args.python, folder))
        print(f"rep {rep}: {json.dumps(runs[-1])}", flush=True)
    doc = {
        "tool": "ranks_speed",
        "when_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host_cpus": os.cpu_count(),
        "source": args.source,
        "ranks": args.ranks,
        "bytes_total": total,
        "runs": runs,
        "page_cache_note": "the rank files were written just before (not timed); the machine's "
        "24 GiB cannot cache all 16 GB, so most of each read comes from disk or a partly "
        "warm cache",
    }
    ok = [r for r in runs if r["rc"] == 0]
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("ranks-speed.json", json.dumps(doc, indent=1) + "\n"),
        ("ranks-speed.md", "\n".join(markdown(doc, args, size)) + "\n"),
    ):
        write_atomic(out_dir / name, text)
    print(f"wrote {out_dir}/ranks-speed.md")
    if args.delete:
        for p in folder.glob("rank-*.json"):
            p.unlink()
        folder.rmdir()
    sys.exit(0 if ok else 1)


def run_once(python, folder):
    """One child reading the folder: its wall time, peak RSS, the load, and what it printed."""
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    p = subprocess.Popen([python, "-c", CHILD, str(folder)], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    run = {
        "rc": os.waitstatus_to_exitcode(status),
        "process_wall_s": wall,
        "peak_rss_bytes": ru.ru_maxrss * 1024,
        "loadavg_1min_start": load,
        "loadavg_1min_end": os.getloadavg()[0],
    }
    for line in out.splitlines():
        if line.startswith("RANKS "):
            run.update(json.loads(line[6:]))
    return run


def markdown(doc, args, size):
    """The page's lines: what was read, each repetition, and the memory target."""
    total, runs = doc["bytes_total"], doc["runs"]
    lines = [
        "# Many ranks: `iris_trace.attribute(folder)` on generated rank traces",
        "",
        f"Written by `experiments/ranks_speed.py` at {doc['when_utc']} ({os.cpu_count()} CPUs): "
        f"{args.ranks} ranks, copies of `{Path(args.source).name}` ({size / 1e6:.1f} MB each, "
        f"{total / 1e9:.2f} GB in all), read by one `attribute(folder)` call in a child process; "
        "peak RSS is the child's (ru_maxrss). " + doc["page_cache_note"] + ".",
        "",
        "| rep | rc | call s | process s | GB/s | peak RSS MiB | load 1 min start-end |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    for i, r in enumerate(runs):
        call = r.get("call_s")
        lines.append(
            f"| {i} | {r['rc']} | {call if call is None else f'{call:.1f}'} | {r['process_wall_s']:.1f} | "
            f"{'n/a' if call is None else f'{total / 1e9 / call:.2f}'} | {r['peak_rss_bytes'] / 2**20:.0f} | "
            f"{r['loadavg_1min_start']:.2f}-{r['loadavg_1min_end']:.2f} |"
        )
    ok = [r for r in runs if r["rc"] == 0]
    if ok:
        peak = max(r["peak_rss_bytes"] for r in ok)
        lines += [
            "",
            (
                f"Target: peak memory under 3 GB: {peak / 1e9:.2f} GB: "
                f"{'met' if peak < 3e9 else '**not met**'}."
            ),
        ]
    return lines


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
