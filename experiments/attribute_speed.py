"""Speed of `./attribute` on plain and gzip traces, against the parse limit and against
Holistic Trace Analysis 0.5.0, on the same trace files and in one run: wall
time and peak RSS, several repetitions interleaved (attribute on the plain file, attribute on its
.gz, the parse limit, HTA, then again ...) so that all see the same machine load.

    python3 -m experiments.attribute_speed [--attribute ./attribute] [--parse-limit BIN] \\
        [--hta-python PY] [--reps 3] [--make-gz] TRACE.json...

  attribute side: `ATTRIBUTE --time --json /dev/null TRACE` (binary from --attribute, else
      $ATTRIBUTE, else ./attribute); skipped, and said so, when the binary does not exist. Each
      plain TRACE.json is measured with its TRACE.json.gz beside it when that exists (--make-gz
      writes a missing one first with `gzip -9`, the level PyTorch's profiler uses through
      Python's gzip module; not timed). `--time` says which inflater read the .gz (ISA-L, zlib).
  parse limit: `json_parse_limit TRACE --reps 1` (build/json_parse_limit beside the attribute
      binary, else --parse-limit): simdjson alone reading every field of the same bytes on all
      cores; its own timing of the parse only (the file is read and cut into chunks untimed).
  HTA side: in the scratch venv's Python (--hta-python, else $HTA_PYTHON, else
      /work/scratch/hta-venv/bin/python; HTA is never a dependency of the project),
      `TraceAnalysis(trace_dir=<folder holding a link to TRACE>)` (its load: parse, filter)
      then `get_idle_time_breakdown(visualize=False)`, in a child process of its own, on the
      plain file. The child runs under an address-space limit (--hta-mem-gib, default 16) and a
      timeout (--hta-timeout-s) so that a trace too large for HTA fails on its own instead of
      pushing the shared machine into swap; the failure is recorded. After one failure HTA is
      not run again on that trace; --hta-max-mb skips it on larger traces.

Each run's wall time is measured here (monotonic clock around the child) and its peak RSS is
the child's own (os.wait4's ru_maxrss, which covers the descendants it waited for). Throughput is
uncompressed JSON bytes (MB = 1e6 bytes) / median wall time. Writes OUT_DIR/speed.json and
speed.md (default results/traces/), each through analysis.atomic_write, with the
1-minute load average before and after. Timings on a shared 2-core machine are noisy: compare
the ratios measured in the same run, not absolute numbers across runs.
"""

import argparse
import datetime
import gzip
import hashlib
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from analysis.atomic_write import open_atomic, write_atomic
from experiments import python_speed

REPO = Path(__file__).resolve().parent.parent

DEFAULT_HTA_PYTHON = "/work/scratch/hta-venv/bin/python"
# The targets asked of the tool, printed beside the measurements (not asserted here).
TARGET_MB_S = 300.0  # whole process, any trace
TARGET_RSS_RATIO = 1.5  # peak RSS / uncompressed size
TARGET_SPEEDUP = 20.0  # HTA's load + idle breakdown / attribute
TARGET_GZ_RATIO = 1.1  # .gz wall / plain wall
TARGET_PLAIN_MB_S = 800.0  # plain JSON, whole process, on the 274 MB and 1 GB traces,
TARGET_LIMIT_RATIO = 1.3  #   or within 1.3x of the parse limit's time, whichever is lower
BIG_TRACE_BYTES = 100e6  # ">= 800 MB/s" is asked of the big traces only

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

    with tempfile.TemporaryFile(mode="w+") as out:
        t0 = time.monotonic()
        # preexec_fn forks with no other thread running: the timer starts after it.
        p = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=limit,  # noqa: PLW1509
        )
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
    out = {
        "runs_ok": len(ok),
        "wall_s_median": med,
        "wall_s_min": min(walls),
        "wall_s_max": max(walls),
        "mb_per_s": size / 1e6 / med,
    }
    rss = [r["peak_rss_bytes"] for r in ok if r.get("peak_rss_bytes") is not None]
    if rss:
        out.update({"peak_rss_bytes": max(rss), "peak_rss_over_size": max(rss) / size})
    return out


def executable(path):
    return path and Path(path).is_file() and os.access(path, os.X_OK)


def measure(trace, args):
    """Every side on one trace, the repetitions interleaved; the runs, their summaries and
    the ratios between sides."""
    size = uncompressed_bytes(trace)
    gz = Path(str(trace) + ".gz")
    res = {
        "trace": str(trace),
        "uncompressed_bytes": size,
        "file_bytes": os.path.getsize(trace),
        "gz_file": str(gz) if gz.is_file() else None,
        "gz_file_bytes": os.path.getsize(gz) if gz.is_file() else None,
        "attribute": {"runs": []},
        "attribute_gz": {"runs": []},
        "parse_limit": {"runs": []},
        "hta": {"runs": []},
        "python_attribute": {"runs": []},
        "python_hta": {"runs": []},
        "hta3": {"runs": []},
    }
    have_attr, have_gz, have_limit = _native_sides(res, gz, args)
    hta_py = Path(args.hta_python)
    hta_ok = _hta_side(res, hta_py, size, args)
    env = dict(os.environ)
    env.pop("HTA_DISABLE_NS_ROUNDING", None)  # HTA's default settings
    for rep in range(args.reps):
        if have_attr:
            have_attr = _attribute_run(res, "attribute", trace, rep, args)
        if have_gz:
            have_gz = _attribute_run(res, "attribute_gz", gz, rep, args)
        if have_limit:
            have_limit = _parse_limit_run(res, trace, rep, args)
        if args.python:
            _python_runs(res, trace, rep, args, hta_py if hta_ok else None, env)
        if hta_ok and rep < args.hta_reps:
            hta_ok = _hta_run(res, hta_py, trace, rep, args, env)
    _summarise_sides(res, size)
    return res


def _native_sides(res, gz, args):
    """Whether ./attribute, its .gz run and the parse limit can run; the reason where not."""
    have_attr = executable(args.attribute)
    if not have_attr:
        res["attribute"]["not_run"] = res["attribute_gz"]["not_run"] = (
            f"no executable at {args.attribute}"
        )
    have_gz = have_attr and gz.is_file()
    if have_attr and not gz.is_file():
        res["attribute_gz"]["not_run"] = f"no {gz.name} beside the trace (--make-gz writes it)"
    have_limit = executable(args.parse_limit)
    if not have_limit:
        res["parse_limit"]["not_run"] = f"no executable at {args.parse_limit}"
    return have_attr, have_gz, have_limit


def _hta_side(res, hta_py, size, args):
    """Whether HTA runs on this trace; the reason where not."""
    too_big = args.hta_max_mb is not None and size / 1e6 > args.hta_max_mb
    hta_ok = hta_py.exists() and not args.skip_hta and not too_big
    if not hta_ok:
        res["hta"]["not_run"] = (
            "skipped (--skip-hta)"
            if args.skip_hta
            else f"skipped: over --hta-max-mb {args.hta_max_mb:g}"
            if too_big
            else f"no Python at {hta_py} (create the scratch venv)"
        )
    return hta_ok


def _attribute_run(res, side, path, rep, args):
    """One ./attribute process on path; False when it failed (the side stops)."""
    rc, wall, rss, text = run_child(
        [str(args.attribute), "--time", "--json", "/dev/null", str(path)],
        args.attribute_timeout_s,
    )
    res[side]["runs"].append({"rc": rc, "wall_s": wall, "peak_rss_bytes": rss})
    m = re.search(r"inflated by ([\w-]+)", text)
    if m:
        res[side]["inflater"] = m.group(1)
    print(f"  {side} rep {rep}: rc={rc} {wall:.3f} s, {rss / 2**20:.0f} MiB", flush=True)
    if rc != 0:
        res[side]["error"] = text.strip()[-2000:]
    return rc == 0


def _parse_limit_run(res, trace, rep, args):
    """One json_parse_limit process: its own timing of the parse; False when it failed."""
    rc, wall, _rss, text = run_child(
        [str(args.parse_limit), str(trace), "--reps", "1"], args.attribute_timeout_s
    )
    run = {"rc": rc, "process_wall_s": wall, "peak_rss_bytes": None}
    try:
        got = json.loads(text.strip().splitlines()[-1])
        run.update(
            {
                "wall_s": got["seconds_median"],
                "threads": got["threads"],
                "simdjson_implementation": got["simdjson_implementation"],
            }
        )
    except (ValueError, KeyError, IndexError):
        run["rc"] = rc if rc != 0 else "bad output"
    res["parse_limit"]["runs"].append(run)
    print(
        f"  parse limit rep {rep}: rc={rc} {run.get('wall_s', float('nan')):.3f} s",
        flush=True,
    )
    if run["rc"] != 0:
        res["parse_limit"]["error"] = text.strip()[-2000:]
        return False
    return True


def _python_runs(res, trace, rep, args, hta_py, env):
    """The package's attribute() and TraceAnalysis + 3 calls, then HTA's own 3 calls when
    HTA runs (hta_py) in this repetition."""
    for side in ("python_attribute", "python_hta"):
        run = python_speed.measure(side, args.python, trace, run_child, args.attribute_timeout_s)
        res[side]["runs"].append(run)
        print(
            f"  {side} rep {rep}: rc={run['rc']} {run.get('wall_s', float('nan')):.3f} s "
            f"(process {run['process_wall_s']:.3f} s)",
            flush=True,
        )
    if hta_py is not None and rep < args.hta_reps:
        run = python_speed.measure(
            "hta3",
            hta_py,
            trace,
            run_child,
            args.hta_timeout_s,
            env=env,
            mem_limit_bytes=int(args.hta_mem_gib * 2**30),
        )
        res["hta3"]["runs"].append(run)
        print(
            f"  HTA + 3 calls rep {rep}: rc={run['rc']} {run.get('wall_s', float('nan')):.2f} s",
            flush=True,
        )


def _hta_run(res, hta_py, trace, rep, args, env):
    """HTA's load and idle breakdown in its venv, under the memory and time limits; False
    after a failure, which is not repeated (it costs minutes)."""
    rc, wall, rss, text = run_child(
        [str(hta_py), "-c", HTA_CHILD, str(trace)],
        args.hta_timeout_s,
        env=env,
        mem_limit_bytes=int(args.hta_mem_gib * 2**30),
    )
    run = {"rc": rc, "wall_s": wall, "peak_rss_bytes": rss}
    for line in text.splitlines():
        if line.startswith("HTA_SPEED "):
            run.update(json.loads(line[len("HTA_SPEED ") :]))
    res["hta"]["runs"].append(run)
    print(f"  HTA rep {rep}: rc={rc} {wall:.2f} s, {rss / 2**20:.0f} MiB", flush=True)
    if rc != 0:
        tail = [l for l in text.strip().splitlines() if l.strip()][-3:]
        res["hta"]["error"] = (
            f"exit {rc} after {wall:.0f} s (limits: "
            f"{args.hta_mem_gib:g} GiB address space, "
            f"{args.hta_timeout_s} s): " + " | ".join(tail)
        )
        return False
    return True


def _summarise_sides(res, size):
    """Each side's medians over its runs, and the ratios between sides that both ran."""
    for side in ("attribute", "attribute_gz", "parse_limit", "hta", *PY_SIDES):
        s = summarise(res[side]["runs"], size)
        if s:
            res[side].update(s)
    if res["parse_limit"]["runs"]:
        res["parse_limit"]["threads"] = res["parse_limit"]["runs"][0].get("threads")
        res["parse_limit"]["simdjson_implementation"] = res["parse_limit"]["runs"][0].get(
            "simdjson_implementation"
        )
    a, g, lim, h = res["attribute"], res["attribute_gz"], res["parse_limit"], res["hta"]
    if "wall_s_median" in a and "wall_s_median" in h:
        res["speedup_hta_over_attribute"] = h["wall_s_median"] / a["wall_s_median"]
    if "wall_s_median" in a and "wall_s_median" in g:
        res["gz_over_plain"] = g["wall_s_median"] / a["wall_s_median"]
    if "wall_s_median" in a and "wall_s_median" in lim:
        res["plain_over_parse_limit"] = a["wall_s_median"] / lim["wall_s_median"]
    pa, ph, h3 = res["python_attribute"], res["python_hta"], res["hta3"]
    if "wall_s_median" in a and "wall_s_median" in pa:
        res["python_over_attribute"] = pa["wall_s_median"] / a["wall_s_median"]
    if "wall_s_median" in ph and "wall_s_median" in h3:
        res["speedup_hta3_over_python_hta"] = h3["wall_s_median"] / ph["wall_s_median"]


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


SIDES = (
    ("attribute", "attribute, plain"),
    ("attribute_gz", "attribute, .gz"),
    ("parse_limit", "parse limit"),
    ("hta", "HTA 0.5.0"),
    ("python_attribute", "Python attribute() + .json (the call)"),
    ("python_hta", "Python TraceAnalysis + 3 calls (the calls)"),
    ("hta3", "HTA 0.5.0 TraceAnalysis + 3 calls (the calls)"),
)
PY_SIDES = ("python_attribute", "python_hta", "hta3")
TARGET_PY_RATIO = 1.15  # the Python package: attribute() within 1.15x of ./attribute (1 GB)
TARGET_HTA3_SPEEDUP = 50.0  # TraceAnalysis + its 3 calls >= 50x faster than HTA's (274 MB)


def markdown(doc):
    lines = [
        "# `./attribute`: speed on plain and gzip traces, against the parse limit and HTA 0.5.0",
        "",
        (
            f"Written by `experiments/attribute_speed.py` on {doc['host']} at {doc['when_utc']} "
            f"({doc['reps']} repetitions, interleaved; HTA in the first {doc['hta_reps']}; binary "
            f"`{doc['attribute_binary']}` built {doc['attribute_binary_mtime_utc']}"
            f"{', source at commit ' + doc['git_commit'][:7] if doc.get('git_commit') else ''}). "
            "Wall time of each tool's whole process, except the parse limit: `json_parse_limit`'s own "
            "timing of simdjson alone reading every field of the same bytes on every core (the file "
            "read and cut untimed). MB = 1e6 bytes of uncompressed JSON, for the .gz too; peak RSS is "
            "the process's own. Load average (1 min) when the run started: "
            f"{fmt(doc.get('loadavg_1min_start'), '.2f')}, when it ended: "
            f"{fmt(doc.get('loadavg_1min_end'), '.2f')}. A shared 2-core machine is noisy: "
            "the ratios measured in the same run are the figures to compare across machines."
        ),
        "",
        "| trace | uncompressed MB | tool | runs ok | median wall s | min-max s | MB/s | peak RSS MiB | RSS / size |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    notes = [f"- WARNING: {doc['warning']}"] if doc.get("warning") else []
    for r in doc["results"]:
        name = Path(r["trace"]).name
        for side, label in SIDES:
            s = r.get(side)  # a run from before the package was timed has no Python sides
            if side in PY_SIDES and not (s and s["runs"]):
                continue
            if side == "attribute_gz" and s.get("inflater"):
                label += f" ({s['inflater']})"
            if side == "parse_limit" and s.get("threads"):
                label += f" ({s['threads']} threads, simdjson {s.get('simdjson_implementation')})"
            rss = s.get("peak_rss_bytes")
            lines.append(
                f"| {name} | {r['uncompressed_bytes'] / 1e6:.1f} | {label} | "
                f"{s.get('runs_ok', 0)}/{len(s['runs'])} | {fmt(s.get('wall_s_median'), '.3f')} | "
                f"{fmt(s.get('wall_s_min'), '.3f')}-{fmt(s.get('wall_s_max'), '.3f')} | "
                f"{fmt(s.get('mb_per_s'), '.1f')} | "
                f"{fmt(rss / 2**20 if rss else None, '.0f')} | "
                f"{fmt(s.get('peak_rss_over_size'), '.2f')} |"
            )
            for key in ("not_run", "error"):
                if key in s:
                    notes.append(f"- {name}, {label}: {key.replace('_', ' ')}: {s[key]}")
        if r.get("gz_file_bytes"):
            notes.append(
                f"- {name}: .gz file {r['gz_file_bytes'] / 1e6:.1f} MB "
                f"({r['uncompressed_bytes'] / r['gz_file_bytes']:.1f}x compressed)"
            )
        h = [x for x in r["hta"]["runs"] if "load_s" in x]
        if h:
            notes.append(
                f"- {name}, HTA inside its process (median): load "
                f"{statistics.median(x['load_s'] for x in h):.2f} s, idle breakdown "
                f"{statistics.median(x['idle_s'] for x in h):.2f} s"
            )
    return "\n".join(lines + [""] + notes + [""] + verdicts(doc)) + "\n"


def verdicts(doc):
    """One line per target and trace: met or not, from the medians above."""
    out = [
        (
            "Targets, from the medians above (throughput on any trace, memory, HTA; .gz, plain JSON "
            "against the parse limit; the Python package):"
        )
    ]

    def line(name, what, value, target, op, unit):
        if value is None:
            out.append(f"- {name}, {what}: not measured")
            return
        met = value >= target if op == ">=" else value <= target
        out.append(
            f"- {name}, {what}: {value:.2f} {unit} (target {op} {target:.4g}): "
            f"{'met' if met else '**not met**'}"
        )

    for r in doc["results"]:
        name = Path(r["trace"]).name
        a, g, lim = r["attribute"], r["attribute_gz"], r["parse_limit"]
        line(name, "throughput, any trace", a.get("mb_per_s"), TARGET_MB_S, ">=", "MB/s")
        line(
            name,
            "HTA / attribute",
            r.get("speedup_hta_over_attribute"),
            TARGET_SPEEDUP,
            ">=",
            "x",
        )
        line(
            name, "peak RSS / size, plain", a.get("peak_rss_over_size"), TARGET_RSS_RATIO, "<=", "x"
        )
        line(name, "peak RSS / size, .gz", g.get("peak_rss_over_size"), TARGET_RSS_RATIO, "<=", "x")
        line(name, ".gz wall / plain wall", r.get("gz_over_plain"), TARGET_GZ_RATIO, "<=", "x")
        if r["uncompressed_bytes"] >= BIG_TRACE_BYTES:
            limit = lim.get("mb_per_s")
            target = (
                TARGET_PLAIN_MB_S
                if limit is None
                else min(TARGET_PLAIN_MB_S, limit / TARGET_LIMIT_RATIO)
            )
            why = (
                "800"
                if limit is None or TARGET_PLAIN_MB_S <= limit / TARGET_LIMIT_RATIO
                else f"parse limit {limit:.0f} MB/s / 1.3"
            )
            line(
                name,
                f"plain throughput (the lower of 800 and the parse limit / 1.3; here {why})",
                a.get("mb_per_s"),
                target,
                ">=",
                "MB/s",
            )
        if r.get("python_over_attribute") is not None:
            line(
                name,
                "Python attribute() / ./attribute",
                r["python_over_attribute"],
                TARGET_PY_RATIO,
                "<=",
                "x",
            )
        if r.get("speedup_hta3_over_python_hta") is not None:
            line(
                name,
                "HTA's TraceAnalysis + 3 calls / ours",
                r["speedup_hta3_over_python_hta"],
                TARGET_HTA3_SPEEDUP,
                ">=",
                "x",
            )
        if r.get("plain_over_parse_limit") is not None:
            out.append(
                f"- {name}: plain attribute wall / parse-limit wall = {r['plain_over_parse_limit']:.2f}x"
            )
    return out


def main():
    args = arguments()
    if args.make_gz:
        make_gz(args.traces)
    built = mtime(args.attribute)
    digest = None
    if os.path.isfile(args.attribute):
        with open(args.attribute, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    load_start = os.getloadavg()[0]
    commit = git_commit()
    results = []
    for t in args.traces:
        print(f"{t}:", flush=True)
        results.append(measure(Path(t), args))
    doc = {
        "tool": "attribute_speed",
        "host": f"{platform.node()} ({os.cpu_count()} CPUs)",
        "when_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reps": args.reps,
        "hta_reps": args.hta_reps,
        "attribute_binary": args.attribute,
        "parse_limit_binary": args.parse_limit,
        "attribute_binary_mtime_utc": built,
        "attribute_binary_sha256": digest,
        "hta_python": args.hta_python,
        "git_commit": commit,
        "loadavg_1min_start": load_start,
        "loadavg_1min_end": os.getloadavg()[0],
        "targets": {
            "mb_per_s": TARGET_MB_S,
            "peak_rss_over_size": TARGET_RSS_RATIO,
            "speedup_hta_over_attribute": TARGET_SPEEDUP,
            "gz_over_plain": TARGET_GZ_RATIO,
            "plain_mb_per_s_big": TARGET_PLAIN_MB_S,
            "plain_over_parse_limit": TARGET_LIMIT_RATIO,
        },
        "results": results,
    }
    if mtime(args.attribute) != built:  # rebuilt while measuring: the runs mix two binaries
        doc["warning"] = (
            f"{args.attribute} changed during the run ({built} -> {mtime(args.attribute)})"
        )
        print(f"attribute_speed: warning: {doc['warning']}", file=sys.stderr)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "speed.json", json.dumps(doc, indent=1) + "\n")
    write_atomic(out / "speed.md", markdown(doc))
    print(f"wrote {out / 'speed.json'} and {out / 'speed.md'}")


def arguments(argv=None):
    """The flags, checked (exit 2 naming the bad one), with the defaults that depend on others."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "traces",
        nargs="+",
        help="plain trace files (.json); TRACE.json.gz beside each is measured too",
    )
    ap.add_argument("--attribute", default=os.environ.get("ATTRIBUTE", "./attribute"))
    ap.add_argument(
        "--parse-limit",
        default=None,
        help="the json_parse_limit binary (default: beside the attribute binary, else build/)",
    )
    ap.add_argument("--hta-python", default=os.environ.get("HTA_PYTHON", DEFAULT_HTA_PYTHON))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--hta-reps",
        type=int,
        default=None,
        help="run HTA in the first N repetitions only (default: all); for a 1 GB trace, where "
        "one HTA run takes about ten minutes",
    )
    ap.add_argument("--hta-timeout-s", type=int, default=1800)
    ap.add_argument("--hta-mem-gib", type=float, default=16)
    ap.add_argument("--attribute-timeout-s", type=int, default=600)
    ap.add_argument("--skip-hta", action="store_true")
    ap.add_argument(
        "--python",
        default=None,
        help="a Python with the iris_trace package: also time attribute() and TraceAnalysis "
        "(+ HTA's TraceAnalysis and its 3 calls in HTA's venv) in the same run "
        "(experiments.python_speed)",
    )
    ap.add_argument(
        "--hta-max-mb",
        type=float,
        default=None,
        help="skip HTA on traces larger than this many MB (HTA takes minutes and GiBs on 1 GB)",
    )
    ap.add_argument(
        "--make-gz", action="store_true", help="write a missing TRACE.json.gz with gzip -9 first"
    )
    ap.add_argument("--out-dir", default=str(REPO / "results" / "traces"))
    args = ap.parse_args(argv)
    for t in args.traces:
        if not Path(t).is_file() or t.endswith(".gz"):
            print(
                f"attribute_speed: {t}: expected a plain trace file (.json); its .gz is found beside it",
                file=sys.stderr,
            )
            sys.exit(2)
    if args.hta_reps is None:
        args.hta_reps = args.reps
    if args.reps < 1:
        print("attribute_speed: --reps must be at least 1", file=sys.stderr)
        sys.exit(2)
    if args.parse_limit is None:
        beside = Path(args.attribute).resolve().parent / "json_parse_limit"
        args.parse_limit = str(beside if beside.is_file() else REPO / "build" / "json_parse_limit")
    return args


def make_gz(traces):
    """TRACE.json.gz with gzip -9 (PyTorch's level) for each trace that lacks one; not timed."""
    for t in traces:
        gz = Path(t + ".gz")
        if not gz.is_file():
            print(f"writing {gz} (gzip -9, not timed)", flush=True)
            with open_atomic(gz, "wb") as out:
                subprocess.run(["gzip", "-9", "-c", t], stdout=out, check=True)


def mtime(path):
    return (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(path)))
        if os.path.exists(path)
        else None
    )


def run_context():
    """Where, when and at which commit a run happened: the header of a speed run's JSON."""
    return {
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": git_commit(),
    }


def git_commit():
    try:
        return subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


if __name__ == "__main__":
    main()
