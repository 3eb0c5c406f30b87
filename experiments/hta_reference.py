"""Run Holistic Trace Analysis 0.5.0 itself on every trace of tests/data/traces/ and write
the figures that `./attribute --hta` must reproduce (tests/data/hta_expected/).

Why: HTA is ./attribute's independent reference. It is a tool of this check, never a
dependency of the project, so this script runs in a scratch virtual environment outside the
repository:

    python3 -m venv /work/scratch/hta-venv
    /work/scratch/hta-venv/bin/pip install holistictraceanalysis==0.5.0
    /work/scratch/hta-venv/bin/python -m experiments.hta_reference

It writes, for every trace <stem> (file name without .json.gz; the folder two-ranks gives
"two-ranks"), <stem>.json (HTA's default rounding of float timestamps) and
<stem>.no-rounding.json (HTA_DISABLE_NS_ROUNDING=1), in the schema of
tests/data/hta_expected/README.md, plus hta_reference.log (HTA's own log lines).

HTA reads its environment option when a figure is computed, but its module state (parser
backend, symbol tables) is global, so each (trace, setting) runs in its own child process:
one setting can never leak into the other. HTA reads a folder of rank files, so each trace is
copied into its own temporary folder first.
"""

import argparse
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.atomic_write import open_atomic, write_atomic

REPO = Path(__file__).resolve().parent.parent
TRACES = REPO / "tests" / "data" / "traces"
OUT = REPO / "tests" / "data" / "hta_expected"
HTA_VERSION = "0.5.0"
# The queue sizes HTA's blocked-on-full-queue figure is asked at: its own default
# (CUDA_MAX_LAUNCH_QUEUE_PER_STREAM, never reached on the real traces) and two that real and
# generated traces reach, so that the rule is exercised.
QUEUE_LIMITS = (1024, 16, 4)
# The child's wall-clock limit: the largest trace (25 MB) takes well under a minute.
CHILD_TIMEOUT_S = 900


def trace_inputs():
    """(stem, files relative to the repository) for every trace: single files and folders."""
    items = []
    for f in sorted(TRACES.glob("*.json.gz")):
        items.append((f.name[: -len(".json.gz")], [f]))
    for d in sorted(p for p in TRACES.iterdir() if p.is_dir()):
        files = sorted(d.glob("*.json.gz"))
        if files:
            items.append((d.name, files))
    return items


def _f(x):
    """A plain float for JSON (numpy scalars are not serialisable)."""
    return float(x)


@contextlib.contextmanager
def hta_observed(stable):
    """HTA as it runs, with its tie order pinned (stable) or left native, and its idle figures
    read before its final round(2). Only this process is touched; HTA's files are not.

    Why: HTA sorts by "ts" with pandas' default quicksort, which is not stable: rows with equal
    ts (common after rounding to whole us) come out in the order numpy's SIMD sort picks, which
    differs between machines (AVX-512, AVX2). A stable sort is one of the orders HTA's code
    allows, and the one ./attribute uses; callers run the native order too and say where it
    differs. HTA rounds its idle breakdown to 0.01 us for display (result_df.round(2)); the
    value before that shows a rule difference of a nanosecond."""
    import pandas as pd

    sort_values, round_ = pd.DataFrame.sort_values, pd.DataFrame.round

    def stable_sort(self, *a, **k):
        k.setdefault("kind", "stable")
        return sort_values(self, *a, **k)

    if stable:
        pd.DataFrame.sort_values = stable_sort
    pd.DataFrame.round = lambda self, *a, **k: self
    try:
        yield
    finally:
        pd.DataFrame.sort_values, pd.DataFrame.round = sort_values, round_


def hta_figures(analyzer, queue_limits=QUEUE_LIMITS):
    """HTA's figures for every rank of a loaded TraceAnalysis, in the schema of
    tests/data/hta_expected/README.md: what HTA's public calls return, nothing recomputed."""
    result = {"ranks": {}}
    temporal, temporal_error = _temporal(analyzer)
    for rank in sorted(analyzer.t.traces):
        trace_df = analyzer.t.get_trace(rank)
        gpu_events = int((trace_df["stream"] != -1).sum())
        r = {"gpu_events_after_hta_filter": gpu_events}
        errors = {}
        if rank in temporal:
            r["temporal"] = temporal[rank]
        else:
            r["temporal"] = {}
            errors["temporal"] = temporal_error or "HTA returned no row for this rank"
        r["idle_by_stream"] = _idle_by_stream(analyzer, rank, errors)
        r["launch_delay_us"] = _launch_delays(analyzer, rank, errors)
        queue_figures(analyzer, rank, r, errors, queue_limits)
        if errors:
            r["hta_errors"] = errors
        result["ranks"][str(rank)] = r
    return result


def _temporal(analyzer):
    """({rank: temporal figures}, HTA's error or None): all ranks in one call; a rank without
    GPU events makes HTA raise (it indexes the first merged interval), which is recorded, not
    hidden."""
    temporal = {}
    try:
        df = analyzer.get_temporal_breakdown(visualize=False)
        for _, row in df.iterrows():
            temporal[int(row["rank"])] = {
                "idle_time_us": _f(row["idle_time(us)"]),
                "compute_time_us": _f(row["compute_time(us)"]),
                "non_compute_time_us": _f(row["non_compute_time(us)"]),
                "kernel_time_us": _f(row["kernel_time(us)"]),
            }
    except Exception as e:  # noqa: BLE001 - HTA's failure is itself a result
        return temporal, f"{type(e).__name__}: {e}"
    return temporal, None


def _idle_by_stream(analyzer, rank, errors):
    """Idle-time breakdown per stream, HTA's default consecutive_kernel_delay=30 (us)."""
    idle = {}
    try:
        idf, _ = analyzer.get_idle_time_breakdown(
            ranks=[rank], visualize=False, consecutive_kernel_delay=30
        )
        for _, row in idf.iterrows():
            s = idle.setdefault(
                str(int(row["stream"])),
                {"host_wait_us": 0.0, "kernel_wait_us": 0.0, "other_us": 0.0},
            )
            s[f"{row['idle_category']}_us"] = _f(row["idle_time"])
    except Exception as e:  # noqa: BLE001
        errors["idle_by_stream"] = f"{type(e).__name__}: {e}"
        idle = {}
    return idle


def _launch_delays(analyzer, rank, errors):
    """Launch statistics: HTA's per-event launch_delay (GPU start - call end, clipped at 0)."""
    import numpy as np

    try:
        ldf = analyzer.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)[rank]
        d = ldf["launch_delay"].to_numpy(dtype=float)
    except Exception as e:  # noqa: BLE001
        errors["launch_delay_us"] = f"{type(e).__name__}: {e}"
        d = np.array([], dtype=float)
    if not len(d):
        return {"count": 0, "mean": None, "min": None, "p50": None, "p90": None, "max": None}
    return {
        "count": len(d),
        "mean": _f(d.mean()),
        "min": _f(d.min()),
        "p50": _f(np.percentile(d, 50)),
        "p90": _f(np.percentile(d, 90)),
        "max": _f(d.max()),
    }


def _f_or_none(x):
    """A float, or None for NaN (pandas' std of one value): JSON has no NaN."""
    x = float(x)
    return None if math.isnan(x) else x


def queue_figures(analyzer, rank, r, errors, limits=QUEUE_LIMITS):
    """HTA's queue length summary per stream and its time blocked on a full queue, into r."""
    try:
        summary = analyzer.get_queue_length_summary(ranks=[rank])
        q = {}
        if summary is not None:
            stats = summary["queue_length"]
            for (_, stream), row in stats.iterrows():
                q[str(int(stream))] = {
                    "count": int(row["count"]),
                    "mean": _f(row["mean"]),
                    "std": _f_or_none(row["std"]),
                    "min": _f(row["min"]),
                    "p25": _f(row["25%"]),
                    "p50": _f(row["50%"]),
                    "p75": _f(row["75%"]),
                    "max": _f(row["max"]),
                }
        r["queue_length"] = q
    except Exception as e:  # noqa: BLE001 - HTA's failure is itself a result
        errors["queue_length"] = f"{type(e).__name__}: {e}"
        r["queue_length"] = {}
    blocked = {}
    try:
        series = analyzer.get_queue_length_time_series(ranks=[rank])
        for m in limits:
            b = analyzer.get_time_spent_blocked_on_full_queue(series, max_queue_length=m)
            rows = b[b["rank"] == rank] if "rank" in b else b.iloc[0:0]
            blocked[str(m)] = (
                {}
                if rows.empty
                else {
                    "stream": int(rows["stream"].iloc[0]),
                    "duration_us": _f(rows["duration_at_max_queue_length"].iloc[0]),
                    "relative": _f_or_none(rows["relative_duration_at_max_queue_length"].iloc[0]),
                }
            )
    except Exception as e:  # noqa: BLE001
        errors["blocked_on_full_queue"] = f"{type(e).__name__}: {e}"
        blocked = {}
    r["blocked_on_full_queue"] = blocked


def check_hta_version(allowed=(HTA_VERSION,)):
    """Stop unless the HTA imported here is one of the allowed releases; return its version."""
    import hta
    from hta.version import __version_tuple__

    version = ".".join(str(v) for v in __version_tuple__[:3])
    if version not in allowed:
        raise SystemExit(f"expected HTA {' or '.join(allowed)}, found {version} at {hta.__file__}")
    return version


def load_analyzer(files, prefix="hta-ref-", allowed=(HTA_VERSION,)):
    """HTA's TraceAnalysis of one trace (one or more rank files), after checking its release."""
    from hta.trace_analysis import TraceAnalysis

    check_hta_version(allowed)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for f in files:
            # HTA takes every *.gz / *.json of the folder and finds each file's rank in it.
            shutil.copy(f, Path(tmp) / Path(f).name)
        return TraceAnalysis(trace_dir=tmp)


def child(files, out_path, rounding):
    """Run HTA on one trace (one or more rank files) and write its figures to out_path."""
    analyzer = load_analyzer(files)
    with hta_observed(stable=True):
        result = hta_figures(analyzer)
    with hta_observed(stable=False):
        native = hta_figures(analyzer)
    same = native == result
    result["tie_order"] = "stable"
    result["native_tie_order_gives_same_figures"] = same

    write_atomic(out_path, json.dumps(result, indent=1, sort_keys=True) + "\n")


def run_one(stem, files, rounding, log):
    """One child per (trace, setting); returns the document to write."""
    suffix = "" if rounding else ".no-rounding"
    doc = {
        "trace": str(files[0].parent.relative_to(REPO))
        if len(files) > 1
        else str(files[0].relative_to(REPO)),
        "hta_version": HTA_VERSION,
        "ns_rounding": rounding,
    }
    env = dict(os.environ)
    env.pop("HTA_DISABLE_NS_ROUNDING", None)
    if not rounding:
        env["HTA_DISABLE_NS_ROUNDING"] = "1"
    with tempfile.TemporaryDirectory(prefix="hta-out-") as tmp:
        out = Path(tmp) / "figures.json"
        cmd = [sys.executable, "-m", __spec__.name, "--child", str(out)] + [str(f) for f in files]
        t0 = time.monotonic()
        try:
            p = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False
            )
            rc, text = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            rc, text = "timeout", f"killed after {CHILD_TIMEOUT_S} s\n{e.stderr or ''}"
        wall = time.monotonic() - t0
        log.write(
            f"===== {stem}{suffix}: rc={rc} wall={wall:.1f}s "
            f"HTA_DISABLE_NS_ROUNDING={env.get('HTA_DISABLE_NS_ROUNDING', 'unset')}\n"
        )
        log.write(text if text.endswith("\n") or not text else text + "\n")
        if rc == 0 and out.exists():
            doc.update(json.loads(out.read_text()))
        else:
            last = [l for l in text.strip().splitlines() if l.strip()][-1:] or ["no output"]
            doc["error"] = f"HTA {HTA_VERSION} failed (exit {rc}): {last[0].strip()}"
    return suffix, doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--child",
        nargs="+",
        metavar=("OUT", "FILE"),
        help="internal: run HTA on FILE... and write its figures to OUT",
    )
    ap.add_argument("--only", help="only the trace with this stem")
    args = ap.parse_args()
    if args.child:
        out, *files = args.child
        child(files, out, os.environ.get("HTA_DISABLE_NS_ROUNDING") != "1")
        return

    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "hta_reference.log"
    with open_atomic(log_path) as log:
        log.write(f"python {sys.version.split()[0]} at {sys.executable}\n")
        for stem, files in trace_inputs():
            if args.only and stem != args.only:
                continue
            for rounding in (True, False):
                suffix, doc = run_one(stem, files, rounding, log)
                dest = OUT / f"{stem}{suffix}.json"
                write_atomic(dest, json.dumps(doc, indent=1, sort_keys=True) + "\n")
                status = doc.get("error", "ok")
                print(f"{dest.relative_to(REPO)}: {status}", flush=True)


if __name__ == "__main__":
    main()
