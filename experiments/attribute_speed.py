#!/usr/bin/env python3
"""Side-by-side speed of `./attribute` and Holistic Trace Analysis 0.5.0 on the same trace files
(issue #10, item 8): wall time and peak RSS of each, several repetitions interleaved
(attribute, HTA, attribute, HTA, ...) so that both see the same machine load.

    python3 experiments/attribute_speed.py [--attribute ./attribute] [--hta-python PY] \\
        [--reps 3] TRACE...

  attribute side: `ATTRIBUTE --json /dev/null TRACE` (binary from --attribute, else $ATTRIBUTE,
      else ./attribute); skipped, and said so, when the binary does not exist.
  HTA side: in the scratch venv's Python (--hta-python, else $HTA_PYTHON, else
      /work/scratch/hta-venv/bin/python; HTA is never a dependency of the project),
      `TraceAnalysis(trace_dir=<folder holding a link to TRACE>)` (its load: parse, filter)
      then `get_idle_time_breakdown(visualize=False)`, in a child process of its own. The child
      runs under an address-space limit (--hta-mem-gib, default 16) and a timeout
      (--hta-timeout-s) so that a trace too large for HTA fails on its own instead of pushing the
      shared machine into swap; the failure is recorded. After one failure HTA is not run again
      on that trace.

Each run's wall time is measured here (monotonic clock around the child) and its peak RSS is
the child's own (os.wait4's ru_maxrss, which covers the descendants it waited for). Throughput is
uncompressed JSON bytes (MB = 1e6 bytes) / median wall time; for a .gz input the uncompressed
size is counted by streaming it through gzip. Writes OUT_DIR/speed.json and speed.md (default
results/traces/), each to a temporary file renamed when complete. Timings on a shared 2-core
machine are noisy: compare the ratio measured in the same run, not absolute numbers across runs.
"""
import argparse
import gzip
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_HTA_PYTHON = "/work/scratch/hta-venv/bin/python"
# The targets, printed beside the measurements (they are not asserted here).
TARGET_MB_S = 300.0
TARGET_RSS_RATIO = 1.5
TARGET_SPEEDUP = 20.0

# Runs in the HTA venv: HTA reads a folder of rank files, so TRACE is linked into a fresh one.
HTA_CHILD = r"""
import json, os, sys, tempfile, time
trace = sys.argv[1]
with tempfile.TemporaryDirectory(prefix="hta-speed-") as d:
    os.symlink(os.path.abspath(trace), os.path.join(d, os.path.basename(trace)))
    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis
    a = TraceAnalysis(trace_dir=d)
    t1 = time.perf_counter()
    idle, _ = a.get_idle_time_breakdown(visualize=False)
    t2 = time.perf_counter()
print("HTA_SPEED " + json.dumps({"load_s": t1 - t0, "idle_s": t2 - t1, "idle_rows": len(idle)}))
"""


def uncompressed_bytes(path):
    if not str(path).endswith(".gz"):
        return os.path.getsize(path)
    n = 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            n += len(chunk)
    return n


def run_child(cmd, timeout_s, env=None, mem_limit_bytes=None):
    """Run cmd; return (rc or 'timeout', wall_s, peak_rss_bytes, output)."""
    def limit():
        if mem_limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit_bytes, mem_limit_bytes))

    out = tempfile.TemporaryFile(mode="w+")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, preexec_fn=limit)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        p.kill()

    timer = threading.Timer(timeout_s, kill)
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    text = out.read()
    rc = "timeout" if timed_out.is_set() else p.returncode
    return rc, wall, ru.ru_maxrss * 1024, text


def summarise(runs, size):
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    walls = [r["wall_s"] for r in ok]
    med = statistics.median(walls)
    rss = max(r["peak_rss_bytes"] for r in ok)
    return {"runs_ok": len(ok), "wall_s_median": med, "wall_s_min": min(walls),
            "wall_s_max": max(walls), "mb_per_s": size / 1e6 / med,
            "peak_rss_bytes": rss, "peak_rss_over_size": rss / size}


def measure(trace, args):
    size = uncompressed_bytes(trace)
    res = {"trace": str(trace), "compressed": str(trace).endswith(".gz"),
           "file_bytes": os.path.getsize(trace), "uncompressed_bytes": size,
           "attribute": {"runs": []}, "hta": {"runs": []}}
    attr = Path(args.attribute)
    have_attr = attr.is_file() and os.access(attr, os.X_OK)
    if not have_attr:
        res["attribute"]["not_run"] = f"no executable at {args.attribute}"
    hta_py = Path(args.hta_python)
    hta_ok = hta_py.exists() and not args.skip_hta
    if not hta_ok:
        res["hta"]["not_run"] = ("skipped (--skip-hta)" if args.skip_hta
                                 else f"no Python at {hta_py} (create the scratch venv)")
    env = dict(os.environ)
    env.pop("HTA_DISABLE_NS_ROUNDING", None)  # HTA's default settings
    for rep in range(args.reps):
        if have_attr:
            rc, wall, rss, text = run_child([str(attr), "--json", "/dev/null", str(trace)],
                                            args.attribute_timeout_s)
            res["attribute"]["runs"].append({"rc": rc, "wall_s": wall, "peak_rss_bytes": rss})
            print(f"  attribute rep {rep}: rc={rc} {wall:.2f} s, {rss / 2**20:.0f} MiB", flush=True)
            if rc != 0:
                res["attribute"]["error"] = text.strip()[-2000:]
                have_attr = False
        if hta_ok and rep < args.hta_reps:
            rc, wall, rss, text = run_child(
                [str(hta_py), "-c", HTA_CHILD, str(trace)], args.hta_timeout_s, env=env,
                mem_limit_bytes=int(args.hta_mem_gib * 2**30))
            run = {"rc": rc, "wall_s": wall, "peak_rss_bytes": rss}
            for line in text.splitlines():
                if line.startswith("HTA_SPEED "):
                    run.update(json.loads(line[len("HTA_SPEED "):]))
            res["hta"]["runs"].append(run)
            print(f"  HTA rep {rep}: rc={rc} {wall:.2f} s, {rss / 2**20:.0f} MiB", flush=True)
            if rc != 0:
                tail = [l for l in text.strip().splitlines() if l.strip()][-3:]
                res["hta"]["error"] = (f"exit {rc} after {wall:.0f} s (limits: "
                                       f"{args.hta_mem_gib:g} GiB address space, "
                                       f"{args.hta_timeout_s} s): " + " | ".join(tail))
                hta_ok = False  # do not repeat a failure that costs minutes
    for side in ("attribute", "hta"):
        s = summarise(res[side]["runs"], size)
        if s:
            res[side].update(s)
    a, h = res["attribute"], res["hta"]
    if "wall_s_median" in a and "wall_s_median" in h:
        res["speedup_hta_over_attribute"] = h["wall_s_median"] / a["wall_s_median"]
    return res


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def markdown(doc):
    lines = [
        "# `./attribute` vs HTA 0.5.0: speed on the same trace files",
        "",
        f"Written by `experiments/attribute_speed.py` on {doc['host']} at {doc['when_utc']} "
        f"({doc['reps']} repetitions, interleaved; HTA in the first {doc['hta_reps']}; binary "
        f"`{doc['attribute_binary']}` built {doc['attribute_binary_mtime_utc']}"
        f"{', source at commit ' + doc['git_commit'][:7] if doc.get('git_commit') else ''}). "
        "Wall time of each tool's whole process; MB = "
        "1e6 bytes of uncompressed JSON; peak RSS is the process's own. Load average (1 min) "
        f"when the run started: {fmt(doc.get('loadavg_1min_start'), '.2f')}, when it ended: "
        f"{fmt(doc.get('loadavg_1min_end'), '.2f')}. A shared 2-core machine is noisy: "
        "the ratio measured in the same run is the figure to compare across machines.",
        "",
        f"Targets of issue #10: >= {TARGET_MB_S:g} MB/s, peak RSS <= {TARGET_RSS_RATIO:g}x the "
        f"uncompressed size, >= {TARGET_SPEEDUP:g}x faster than HTA's load + idle breakdown.",
        "",
        "| trace | uncompressed MB | tool | runs ok | median wall s | MB/s | peak RSS MiB | "
        "RSS / size |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    notes = [f"- WARNING: {doc['warning']}"] if doc.get("warning") else []
    for r in doc["results"]:
        name = Path(r["trace"]).name
        for side in ("attribute", "hta"):
            s = r[side]
            rss = s.get("peak_rss_bytes")
            lines.append(
                f"| {name} | {r['uncompressed_bytes'] / 1e6:.1f} | {side} | "
                f"{s.get('runs_ok', 0)}/{len(s['runs'])} | {fmt(s.get('wall_s_median'), '.3f')} | "
                f"{fmt(s.get('mb_per_s'), '.1f')} | "
                f"{fmt(rss / 2**20 if rss else None, '.0f')} | "
                f"{fmt(s.get('peak_rss_over_size'), '.2f')} |")
            for key in ("not_run", "error"):
                if key in s:
                    notes.append(f"- {name}, {side}: {key.replace('_', ' ')}: {s[key]}")
        if "speedup_hta_over_attribute" in r:
            notes.append(f"- {name}: HTA median / attribute median = "
                         f"{r['speedup_hta_over_attribute']:.1f}x")
        h = [x for x in r["hta"]["runs"] if "load_s" in x]
        if h:
            notes.append(f"- {name}, HTA inside its process (median): load "
                         f"{statistics.median(x['load_s'] for x in h):.2f} s, idle breakdown "
                         f"{statistics.median(x['idle_s'] for x in h):.2f} s")
    return "\n".join(lines + [""] + notes + [""] + verdicts(doc)) + "\n"


def verdicts(doc):
    """One line per target of issue #10 and trace: met or not, from the medians above."""
    out = ["Targets, from the medians above:"]
    for r in doc["results"]:
        name = Path(r["trace"]).name
        a = r["attribute"]
        checks = [("throughput", a.get("mb_per_s"), TARGET_MB_S, ">=", "MB/s"),
                  ("peak RSS / size", a.get("peak_rss_over_size"), TARGET_RSS_RATIO, "<=", "x"),
                  ("HTA / attribute", r.get("speedup_hta_over_attribute"), TARGET_SPEEDUP, ">=", "x")]
        for what, value, target, op, unit in checks:
            if value is None:
                out.append(f"- {name}, {what}: not measured")
                continue
            met = value >= target if op == ">=" else value <= target
            out.append(f"- {name}, {what}: {value:.2f} {unit} (target {op} {target:g}): "
                       f"{'met' if met else '**not met**'}")
    return out


def write_atomic(path, text):
    tmp = Path(str(path) + ".partial")
    tmp.write_text(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", help="trace files (.json or .json.gz)")
    ap.add_argument("--attribute", default=os.environ.get("ATTRIBUTE", "./attribute"))
    ap.add_argument("--hta-python", default=os.environ.get("HTA_PYTHON", DEFAULT_HTA_PYTHON))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hta-reps", type=int, default=None,
                    help="run HTA in the first N repetitions only (default: all); for a 1 GB trace, where "
                         "one HTA run takes about ten minutes")
    ap.add_argument("--hta-timeout-s", type=int, default=1800)
    ap.add_argument("--hta-mem-gib", type=float, default=16)
    ap.add_argument("--attribute-timeout-s", type=int, default=600)
    ap.add_argument("--skip-hta", action="store_true")
    ap.add_argument("--out-dir", default=str(REPO / "results" / "traces"))
    args = ap.parse_args()
    for t in args.traces:
        if not Path(t).is_file():
            print(f"attribute_speed: {t}: no such trace file", file=sys.stderr)
            sys.exit(2)
    if args.hta_reps is None:
        args.hta_reps = args.reps
    if args.reps < 1:
        print("attribute_speed: --reps must be at least 1", file=sys.stderr)
        sys.exit(2)

    def mtime(path):
        return (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(path)))
                if os.path.exists(path) else None)

    built = mtime(args.attribute)
    digest = None
    if os.path.isfile(args.attribute):
        with open(args.attribute, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    load_start = os.getloadavg()[0]
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    results = []
    for t in args.traces:
        print(f"{t}:", flush=True)
        results.append(measure(Path(t), args))
    doc = {"tool": "attribute_speed", "host": f"{platform.node()} ({os.cpu_count()} CPUs)",
           "when_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "reps": args.reps,
           "hta_reps": args.hta_reps,
           "attribute_binary": args.attribute,
           "attribute_binary_mtime_utc": built, "attribute_binary_sha256": digest,
           "hta_python": args.hta_python, "git_commit": commit,
           "loadavg_1min_start": load_start, "loadavg_1min_end": os.getloadavg()[0],
           "targets": {"mb_per_s": TARGET_MB_S, "peak_rss_over_size": TARGET_RSS_RATIO,
                       "speedup_hta_over_attribute": TARGET_SPEEDUP},
           "results": results}
    if mtime(args.attribute) != built:  # rebuilt while measuring: the runs mix two binaries
        doc["warning"] = f"{args.attribute} changed during the run ({built} -> {mtime(args.attribute)})"
        print(f"attribute_speed: warning: {doc['warning']}", file=sys.stderr)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "speed.json", json.dumps(doc, indent=1) + "\n")
    write_atomic(out / "speed.md", markdown(doc))
    print(f"wrote {out / 'speed.json'} and {out / 'speed.md'}")


if __name__ == "__main__":
    main()
