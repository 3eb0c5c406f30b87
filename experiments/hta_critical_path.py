"""Holistic Trace Analysis' critical path (0.5.0's, or 0.6.1's) on every trace of tests/data/traces/, per
ProfilerStep (or over the whole trace when it has none), written as data for the replay page
(analysis/replay_report.py), so that the page shows HTA's figure beside ./attribute --replay's
without HTA installed.

Why: the replay is judged against HTA's critical-path length for the same window as each
replayed step. HTA has no replay; its critical path (TraceAnalysis.critical_path_analysis) is
the longest path through its dependency graph of one annotation instance, the nearest figure it
has. HTA is a tool of this check, never a dependency of the project: run it in a scratch
environment. HTA 0.5.0's critical path needs pandas < 3 (it calls DataFrame.drop(axis=1,
columns=...), which pandas 3 refuses), so the environment of experiments/hta_reference.py
(pandas 3.1) will not do:

    python3 -m venv /tmp/hta-cp-venv
    /tmp/hta-cp-venv/bin/pip install holistictraceanalysis==0.5.0 "pandas<3"   # 2.3.3 here
    /tmp/hta-cp-venv/bin/python -m experiments.hta_critical_path     # ~1 min on 2 cores

It writes results/traces/hta-critical-path.json:
  {"hta_version", "traces": {stem: {"ranks": {rank: [{"annotation", "instance", "start_us",
   "window_us", "critical_path_us", "ok", "bound_by": {category: share %}, "error"}]}}}}
in HTA's time unit (microseconds), and hta-critical-path.log beside it (HTA's own log lines).
Each trace runs in its own child process (HTA's module state is global) on a copy in a temporary
folder (HTA reads a folder of rank files).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.atomic_write import open_atomic, write_atomic
from experiments.hta_reference import check_hta_version, load_analyzer, trace_inputs  # same stems

REPO = Path(__file__).resolve().parent.parent

OUT = REPO / "results" / "traces"
CHILD_TIMEOUT_S = 1800
STEP = "ProfilerStep"
# Either release runs: 0.5.0 writes hta-critical-path.json (the replay page's), 0.6.1
# hta-critical-path-0.6.1.json (iris_trace.hta's critical_path_analysis is checked against it).
RELEASES = ("0.5.0", "0.6.1")


def child(files, out_path):
    """Critical path of every ProfilerStep instance (or the whole trace) of every rank."""
    analyzer = load_analyzer(files, prefix="hta-cp-", allowed=RELEASES)
    result = {}
    sym = analyzer.t.symbol_table.get_sym_id_map()
    step_ids = [v for k, v in sym.items() if STEP in k]
    for rank in sorted(analyzer.t.traces):
        df = analyzer.t.get_trace(rank)
        rows = []
        if step_ids:
            # HTA numbers the instances in the order of its dataframe: CPU and GPU annotations
            # alike (a gpu_user_annotation ProfilerStep is an instance too).
            ann = df[df["name"].isin(step_ids)]
            windows = [
                (int(i), float(r["ts"]), float(r["dur"])) for i, (_, r) in enumerate(ann.iterrows())
            ]
            asks = [(STEP, i, ts, dur) for i, ts, dur in windows]
        else:
            ts0, ts1 = float(df["ts"].min()), float((df["ts"] + df["dur"]).max())
            asks = [("", None, ts0, ts1 - ts0)]
        for annotation, instance, ts, dur in asks:
            row = {
                "annotation": annotation or "(whole trace)",
                "instance": instance,
                "start_us": ts,
                "window_us": dur,
                "critical_path_us": None,
                "ok": False,
                "bound_by": {},
                "error": None,
            }
            t0 = time.monotonic()
            try:
                got = analyzer.critical_path_analysis(
                    rank=rank, annotation=annotation, instance_id=instance
                )
                if got is None:
                    raise RuntimeError("HTA returned None (annotation not found)")
                graph, ok = got
                row["ok"] = bool(ok)
                if ok:
                    row["critical_path_us"] = float(
                        sum(e.weight for e in graph.critical_path_edges_set)
                    )
                    bd = graph.get_critical_path_breakdown()
                    if bd is not None and len(bd) and bd["duration"].sum() > 0:
                        share = (
                            bd.groupby("bound_by")["duration"].sum() / bd["duration"].sum() * 100
                        )
                        row["bound_by"] = {str(k): float(v) for k, v in share.items()}
            except Exception as e:  # noqa: BLE001 - HTA's failure is itself a result
                row["error"] = f"{type(e).__name__}: {e}"
            row["seconds"] = round(time.monotonic() - t0, 2)
            rows.append(row)
        result[str(rank)] = rows
    write_atomic(out_path, json.dumps({"ranks": result}, indent=1, sort_keys=True) + "\n")


def run_one(stem, files, log):
    with tempfile.TemporaryDirectory(prefix="hta-cp-out-") as tmp:
        out = Path(tmp) / "cp.json"
        cmd = [sys.executable, "-m", __spec__.name, "--child", str(out)] + [str(f) for f in files]
        t0 = time.monotonic()
        try:
            p = subprocess.run(
                cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False
            )
            rc, text = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            rc, text = "timeout", f"killed after {CHILD_TIMEOUT_S} s\n{e.stderr or ''}"
        log.write(f"===== {stem}: rc={rc} wall={time.monotonic() - t0:.1f}s\n")
        log.write(text if text.endswith("\n") or not text else text + "\n")
        if rc == 0 and out.exists():
            return json.loads(out.read_text())
        last = [line for line in text.strip().splitlines() if line.strip()][-1:] or ["no output"]
        return {"error": f"HTA failed (exit {rc}): {last[0].strip()}"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--child", nargs="+", metavar=("OUT", "FILE"), help="internal: run HTA on FILE... into OUT"
    )
    ap.add_argument(
        "--out", default=str(OUT), help="folder for hta-critical-path.json (default %(default)s)"
    )
    args = ap.parse_args()
    if args.child:
        out, *files = args.child
        child(files, out)
        return
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    import pandas  # the scratch environment's: the version the critical path ran with

    version = check_hta_version(RELEASES)
    doc = {
        "hta_version": version,
        "pandas_version": pandas.__version__,
        "made_by": "experiments/hta_critical_path.py",
        "traces": {},
    }
    suffix = "" if version == "0.5.0" else f"-{version}"
    log_path = out_dir / f"hta-critical-path{suffix}.log"
    dest = out_dir / f"hta-critical-path{suffix}.json"
    with open_atomic(log_path) as log:  # renamed after the JSON, as the run's last act
        log.write(f"python {sys.version.split()[0]} at {sys.executable}\n")
        for stem, files in trace_inputs():
            doc["traces"][stem] = run_one(stem, files, log)
            print(f"{stem}: {doc['traces'][stem].get('error', 'ok')}", flush=True)
        write_atomic(dest, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest.relative_to(REPO) if dest.is_relative_to(REPO) else dest}")


if __name__ == "__main__":
    main()
