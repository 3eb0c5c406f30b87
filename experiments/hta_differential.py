"""Differential test of `./attribute --hta` against Holistic Trace Analysis itself, on random
traces (experiments/hta_trace_gen.py, with the ties real traces have unless --no-ties) in both
rounding modes. The release is the one the running Python has: holistictraceanalysis 0.5.0
(./attribute --hta=0.5) or traceinsight 0.6.1 (--hta=0.6); run it once in each venv.

Why: the eight real traces of tests/data/traces agree, but users run ./attribute on traces
nobody here has seen. Every generated trace is read by HTA and by ./attribute, with and without
HTA_DISABLE_NS_ROUNDING=1; every figure both compute is compared; each disagreement is shrunk
(delta debugging over its events) to the smallest trace that still disagrees and, with
--cases, kept with HTA's own figures as a regression test (tests/data/hta_cases/, read by
trace_tests without HTA).

HTA is a tool of this check, never a project dependency: run this with the scratch venv's
python (see tests/data/hta_expected/README.md for how it is made):

    /work/scratch/hta-venv/bin/python -m experiments.hta_differential --traces 5000 --seed 23 \\
        --attribute build-trace/attribute --out results/traces/hta-differential.json
    # cost: about 0.3 s of one core per trace (HTA's parse, twice per mode); 5000 traces ~30 min

Two things HTA leaves open are pinned, and reported rather than hidden:
- Tie order. HTA sorts by "ts" with pandas' default quicksort, which is not stable: events
  with equal timestamps (common after rounding to whole us) come out in an order numpy's
  SIMD sort picks, which differs between machines (AVX-512 vs AVX2). Where that order changes
  HTA's figures, HTA has no single answer. The reference is HTA with a stable sort (one of the
  orders its code allows: file order among equals, as ./attribute uses); HTA's native order on
  this machine is run too, and the traces where the two differ are counted ("tie_dependent").
- Display rounding. HTA rounds its idle breakdown to 0.01 us as its last step
  (`result_df.round(2)`); the comparison reads the value before that (DataFrame.round made the
  identity while HTA computes it), so a rule difference of a nanosecond still shows.

Agreement: exact where every timestamp HTA uses is a whole number of microseconds (always with
rounding on); elsewhere within float rounding (1e-9 us + 1e-12 relative), because HTA sums
with numpy and pandas in an order C++ does not reproduce bit for bit.
"""

import argparse
import datetime
import hashlib
import json
import multiprocessing as mp
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from analysis.atomic_write import write_atomic
from experiments import hta_trace_gen

REPO = Path(__file__).resolve().parent.parent

FIGURES_TEMPORAL = ("idle_time_us", "compute_time_us", "non_compute_time_us", "kernel_time_us")
FIGURES_IDLE = ("host_wait_us", "kernel_wait_us", "other_us")
FIGURES_LAUNCH = ("mean", "min", "p50", "p90", "max")
MODES = (("rounding", True), ("no-rounding", False))
FIGURES_QUEUE = ("mean", "min", "p25", "p50", "p75", "max")
# HTA's blocked-on-full-queue figure at a queue size generated traces reach (its default, 1024,
# they never do): ./attribute --hta-max-queue says the same size. --max-queue sets it.
MAX_QUEUE = 4
# The release of the HTA imported here ("0.5" or "0.6"), set by quiet_hta(): ./attribute's --hta=.
RELEASE = "0.5"
# Whether generated traces have ties (--no-ties: without), read by the forked workers.
TIES = True


# --- HTA -----------------------------------------------------------------------------------


def hta_load(trace_dir, rounding):
    """HTA's TraceAnalysis for a folder, parsed in this process (its multiprocessing only splits
    the parse across ranks; the rows are the same)."""
    from hta.common.trace import Trace
    from hta.trace_analysis import TraceAnalysis

    if rounding:
        os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
    else:
        os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"
    try:  # 0.6.1 reads the variable once per process, into this singleton
        from hta.configs.env_options import HTAEnvOptions

        HTAEnvOptions.instance().set_disable_ns_rounding(not rounding)
    except ImportError:  # 0.5.0 reads it at each parse
        pass
    a = TraceAnalysis.__new__(TraceAnalysis)
    a.t = Trace(trace_dir=str(trace_dir))
    a.t.load_traces(include_last_profiler_step=False, use_multiprocessing=False)
    return a


def hta_run(trace_dir, rounding, native=True):
    """{"stable": figures, "native": figures} (native only when asked), or {"error": ...}."""
    from experiments.hta_reference import hta_figures, hta_observed

    try:
        a = hta_load(trace_dir, rounding)
    except Exception as e:  # noqa: BLE001 - HTA failing to load is a result, not a crash
        return {"error": f"{type(e).__name__}: {e}"}
    out = {}
    with hta_observed(stable=True):
        out["stable"] = hta_figures(a, queue_limits=(MAX_QUEUE,))
    if native:
        with hta_observed(stable=False):
            out["native"] = hta_figures(a, queue_limits=(MAX_QUEUE,))
    return out


# --- ./attribute ---------------------------------------------------------------------------


def attribute_run(binary, trace_dir, rounding):
    """./attribute --hta's JSON for a folder, or {"error": ...} with its message."""
    with tempfile.TemporaryDirectory(prefix="attr-") as tmp:
        out = Path(tmp) / "a.json"
        cmd = [
            str(binary),
            f"--hta={RELEASE}",
            "--hta-max-queue",
            str(MAX_QUEUE),
            "--quiet",
            "--json",
            str(out),
        ]
        cmd.append(str(trace_dir))
        if not rounding:
            cmd.insert(2, "--hta-no-rounding")
        p = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "HTA_DISABLE_NS_ROUNDING"},
            check=False,
        )
        if p.returncode != 0 or not out.exists():
            return {"error": f"exit {p.returncode}: {p.stderr.strip()[:300]}"}
        return json.loads(out.read_text())["hta"]


# --- comparison ----------------------------------------------------------------------------


def whole_us(files, rounding):
    """Whether every ts and dur HTA uses is a whole number of us (then agreement is exact)."""
    for doc in files.values():
        events = doc["traceEvents"]
        float_ts = any(isinstance(e.get("ts"), float) or "ts" not in e for e in events)
        if rounding and float_ts:
            continue  # HTA rounds this file to whole us
        for e in events:
            for k in ("ts", "dur"):
                v = e.get(k)
                if isinstance(v, float) and v != int(v):
                    return False
    return True


def same(a, b, exact):
    if a is None or b is None:
        return a is b
    return a == b if exact else abs(a - b) <= 1e-9 + 1e-12 * max(abs(a), abs(b))


def compare(hta, ours, exact):
    """Every figure both compute: a list of (figure, HTA's value, ours); empty when they agree."""
    if "error" in ours:
        return [("attribute failed", None, ours["error"])]
    out = []
    h_ranks, o_ranks = hta["ranks"], ours["ranks"]
    if set(h_ranks) != set(o_ranks):
        return [("ranks", sorted(h_ranks), sorted(o_ranks))]
    for rank, h in h_ranks.items():
        o, errors, where = o_ranks[rank], h.get("hta_errors", {}), f"rank {rank} "
        if "temporal" not in errors:
            for k in FIGURES_TEMPORAL:
                if not same(h["temporal"][k], o["temporal"].get(k), exact):
                    out.append((where + "temporal." + k, h["temporal"][k], o["temporal"].get(k)))
        if "idle_by_stream" not in errors:
            hs, os_ = h["idle_by_stream"], o["idle_by_stream"]
            if set(hs) != set(os_):
                out.append((where + "idle streams", sorted(hs), sorted(os_)))
            else:
                for s in hs:
                    for k in FIGURES_IDLE:
                        if not same(hs[s][k], os_[s][k], exact):
                            out.append((where + f"idle.stream {s}.{k}", hs[s][k], os_[s][k]))
        if "launch_delay_us" not in errors:
            hl, ol = h["launch_delay_us"], o["launch_delay_us"]
            if hl["count"] != ol["count"]:
                out.append((where + "launch.count", hl["count"], ol["count"]))
            elif hl["count"]:
                for k in FIGURES_LAUNCH:
                    if not same(hl[k], ol.get(k), exact):
                        out.append((where + "launch." + k, hl[k], ol.get(k)))
        out += compare_queue(h, o, errors, exact, where)
    return out


def compare_queue(h, o, errors, exact, where):
    """HTA's queue length summary and blocked-on-full-queue figure against ours (one rank)."""
    out = []
    ours_errors = o.get("hta_errors", {})
    for figure in ("queue_length", "blocked_on_full_queue"):
        if (figure in errors) != (figure in ours_errors):
            out.append((where + figure + ".raises", errors.get(figure), ours_errors.get(figure)))
    if "queue_length" not in errors and "queue_length" not in ours_errors:
        hq, oq = h["queue_length"], o.get("queue_length", {})
        if set(hq) != set(oq):
            out.append((where + "queue streams", sorted(hq), sorted(oq)))
        else:
            for s in hq:
                if hq[s]["count"] != oq[s]["count"]:
                    out.append((where + f"queue.stream {s}.count", hq[s]["count"], oq[s]["count"]))
                    continue
                for k in FIGURES_QUEUE:
                    if not same(hq[s][k], oq[s][k], exact):
                        out.append((where + f"queue.stream {s}.{k}", hq[s][k], oq[s][k]))
                if not same(hq[s]["std"], oq[s]["std"], False):  # a square root: float rounding
                    out.append((where + f"queue.stream {s}.std", hq[s]["std"], oq[s]["std"]))
    if "blocked_on_full_queue" not in errors and "blocked_on_full_queue" not in ours_errors:
        hb = h["blocked_on_full_queue"][str(MAX_QUEUE)]
        ob = {k: v for k, v in o["blocked_on_full_queue"].items() if k != "max_queue_length"}
        if set(hb) != set(ob):
            out.append((where + "full_queue.row", hb, ob))
        elif hb:
            if hb["stream"] != ob["stream"]:
                out.append((where + "full_queue.stream", hb["stream"], ob["stream"]))
            if not same(hb["duration_us"], ob["duration_us"], exact):
                out.append((where + "full_queue.duration_us", hb["duration_us"], ob["duration_us"]))
            if not same(hb["relative"], ob["relative"], False):
                out.append((where + "full_queue.relative", hb["relative"], ob["relative"]))
    return out


def kinds(diffs):
    """What disagrees, without the rank and stream: 'temporal.idle_time_us', 'idle.other_us'."""
    out = set()
    for name, _, _ in diffs:
        parts = name.split(" ")
        k = parts[-1]
        out.add(
            ("idle." + k.split(".")[-1])
            if "idle." in name
            else ("queue." + k.split(".")[-1])
            if "queue." in name
            else k
            if parts[0] == "rank"
            else name
        )
    return out


# --- one trace -----------------------------------------------------------------------------


def check(files, binary, rounding, native=True):
    """(disagreements with HTA-stable, with HTA-native or None, tie_dependent, HTA figures)."""
    with tempfile.TemporaryDirectory(prefix="hta-diff-") as tmp:
        hta_trace_gen.write(files, tmp)
        hta = hta_run(tmp, rounding, native)
        ours = attribute_run(binary, tmp, rounding)
    if "error" in hta:
        return [], None, False, hta
    exact = whole_us(files, rounding)
    diffs = compare(hta["stable"], ours, exact)
    native_diffs = compare(hta["native"], ours, exact) if native else None
    tie_dependent = native and hta["native"] != hta["stable"]
    return diffs, native_diffs, tie_dependent, hta


def subset(files, keep):
    """The trace with only the events in keep ((file, index) pairs); files left empty go."""
    out = {}
    for name, doc in files.items():
        events = [e for i, e in enumerate(doc["traceEvents"]) if (name, i) in keep]
        if events:
            out[name] = dict(doc, traceEvents=events)
    return out


def shrink(files, binary, rounding, want, budget_s=180):
    """Delta debugging (ddmin) over the events: the smallest trace whose disagreements still
    include a kind in `want`, within a time budget."""
    items = [(name, i) for name, doc in files.items() for i in range(len(doc["traceEvents"]))]
    t0 = time.monotonic()

    def fails(candidate):
        trace = subset(files, set(candidate))
        if not trace:
            return False
        diffs, _, _, _ = check(trace, binary, rounding, native=False)
        return bool(kinds(diffs) & want)

    n = 2
    while len(items) >= 2 and time.monotonic() - t0 < budget_s:
        chunk = max(1, len(items) // n)
        parts = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        reduced = False
        for p in parts:  # try a part alone, then everything but a part
            if fails(p):
                items, n, reduced = p, 2, True
                break
        if not reduced:
            for p in parts:
                rest = [x for x in items if x not in p]
                if rest and fails(rest):
                    items, n, reduced = rest, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return subset(files, set(items))


def save_case(case_dir, name, files, binary, meta):
    """A shrunk trace (<case>/trace/rank-N.json) and HTA's figures in both modes, tie order
    stable (<case>/hta.json), for trace_tests."""
    d = Path(case_dir) / name
    tmp = Path(str(d) + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "trace").mkdir(parents=True)
    for fname, doc in files.items():
        (tmp / "trace" / fname).write_text(json.dumps(doc, indent=1) + "\n")
    expected = dict(
        meta,
        hta_version={"0.5": "0.5.0", "0.6": "0.6.1"}[RELEASE],
        tie_order="stable (pandas kind='stable')",
        idle_rounding="before HTA's round(2)",
        modes={},
    )
    for mode, rounding in MODES:
        with tempfile.TemporaryDirectory(prefix="hta-case-") as t:
            hta_trace_gen.write(files, t)
            hta = hta_run(t, rounding, native=False)
        expected["modes"][mode] = {
            "exact": whole_us(files, rounding),
            **hta.get("stable", hta),
        }
    (tmp / "hta.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(d, ignore_errors=True)
    os.replace(tmp, d)


# --- the run -------------------------------------------------------------------------------


def worker(job):
    seed, binary, native = job
    files = hta_trace_gen.generate(seed, TIES)
    out = {"seed": seed}
    for mode, rounding in MODES:
        diffs, native_diffs, tie, hta = check(files, binary, rounding, native)
        out[mode] = {
            "diffs": diffs,
            "native_diffs": native_diffs,
            "tie_dependent": tie,
            "hta_error": hta.get("error"),
        }
    return out


def main():
    global MAX_QUEUE, TIES
    a = arguments()
    MAX_QUEUE, TIES = a.max_queue, not a.no_ties  # read by the forked workers
    quiet_hta()
    binary = Path(a.attribute).resolve()
    if not binary.is_file():
        raise SystemExit(f"hta_differential: {binary} is not built (see README: build-trace)")

    # What was tested, taken before the run: the binary can be rebuilt and HEAD move meanwhile.
    attribute_sha = hashlib.sha256(binary.read_bytes()).hexdigest()
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    t0, load0 = time.monotonic(), os.getloadavg()[0]
    results = run_traces(a, binary, t0)
    wall = time.monotonic() - t0

    summary = {
        "what": f"./attribute --hta={RELEASE} against HTA {RELEASE} on generated traces"
        " (experiments/hta_differential.py)",
        "ties": TIES,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "seed": a.seed,
        "max_queue": MAX_QUEUE,
        "traces": a.traces,
        "wall_s": round(wall, 1),
        "jobs": a.jobs,
        "load_1min_start": load0,
        "load_1min_end": os.getloadavg()[0],
        "attribute": str(binary.relative_to(REPO)) if binary.is_relative_to(REPO) else str(binary),
        "attribute_sha256": attribute_sha,
        "commit_at_start": commit,
        "generator": "experiments/hta_trace_gen.py at that commit",
        "tie_order": "stable (pandas kind='stable')"
        + ("" if a.no_native else "; native order counted apart"),
        "modes": {},
    }
    for mode, rounding in MODES:
        bad = [r for r in results if r[mode]["diffs"]]
        summary["modes"][mode], by_kind = mode_summary(results, bad, mode, a.no_native)
        print(f"{mode}: {len(bad)} of {a.traces} traces disagree; by figure {by_kind}")
        shrink_disagreements(a, bad, mode, rounding, binary, attribute_sha)

    if a.out:
        write_atomic(a.out, json.dumps(summary, indent=1) + "\n")


def arguments():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--traces", type=int, default=5000, help="generated traces (each in both modes)"
    )
    ap.add_argument("--seed", type=int, default=23, help="trace k uses seed * 1000000 + k")
    ap.add_argument(
        "--attribute", default=str(REPO / "build" / "attribute"), help="the binary to test"
    )
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument(
        "--max-queue",
        type=int,
        default=MAX_QUEUE,
        help="queue size of the blocked-on-full-queue figure (HTA's default 1024 is never reached)",
    )
    ap.add_argument(
        "--no-native",
        action="store_true",
        help="skip HTA's native tie order (half the HTA time; no tie_dependent count)",
    )
    ap.add_argument("--no-ties", action="store_true", help="generate traces without ties")
    ap.add_argument("--shrink", type=int, default=0, help="shrink up to N disagreements per mode")
    ap.add_argument("--cases", help="save each shrunk case here (tests/data/hta_cases)")
    ap.add_argument(
        "--out", help="write the summary JSON here (results/traces/hta-differential.json)"
    )
    return ap.parse_args()


def quiet_hta():
    """HTA 0.5.0 or 0.6.1 checked (RELEASE set from it), its warnings off: it warns on every
    parse, and its errors are recorded per trace."""
    import logging
    import warnings

    from hta.configs.config import logger

    from experiments.hta_reference import check_hta_version

    global RELEASE
    RELEASE = check_hta_version(("0.5.0", "0.6.1"))[:3]
    logger.setLevel(logging.ERROR)
    warnings.simplefilter("ignore")  # pandas 3's deprecation notes on HTA's inplace calls


def run_traces(a, binary, t0):
    """Every generated trace checked in both modes, a.jobs at a time, with progress lines."""
    jobs = [(a.seed * 1000000 + k, str(binary), not a.no_native) for k in range(a.traces)]
    results = []
    with mp.get_context("fork").Pool(a.jobs) as pool:
        for n, r in enumerate(pool.imap(worker, jobs, chunksize=4), 1):
            results.append(r)
            if n % 250 == 0 or n == len(jobs):
                bad = {m: sum(1 for x in results if x[m]["diffs"]) for m, _ in MODES}
                print(
                    f"{n}/{len(jobs)} traces, disagreements {bad}, {time.monotonic() - t0:.0f} s",
                    flush=True,
                )
    return results


def mode_summary(results, bad, mode, no_native):
    """One rounding mode's counts (disagreements by figure, against HTA's native tie order,
    HTA's load failures, the first disagreeing seeds), and the count by figure as found."""
    by_kind = {}
    for r in bad:
        for k in kinds(r[mode]["diffs"]):
            by_kind[k] = by_kind.get(k, 0) + 1
    counts = {
        "disagreements": len(bad),
        "by_figure": dict(sorted(by_kind.items())),
        "disagreements_vs_native_hta": None
        if no_native
        else sum(1 for r in results if r[mode]["native_diffs"]),
        "tie_dependent_traces": None
        if no_native
        else sum(1 for r in results if r[mode]["tie_dependent"]),
        "hta_failed_to_load": sum(1 for r in results if r[mode]["hta_error"]),
        "hta_load_errors": sorted(
            {r[mode]["hta_error"][:200] for r in results if r[mode]["hta_error"]}
        )[:5],
        "first_seeds": [r["seed"] for r in bad[:20]],
        "examples": [{"seed": r["seed"], "diffs": r[mode]["diffs"][:4]} for r in bad[:5]],
    }
    return counts, by_kind


def shrink_disagreements(a, bad, mode, rounding, binary, attribute_sha):
    """Up to a.shrink disagreements shrunk, one per new kind, each saved as a case with --cases."""
    shrunk_kinds = set()
    for r in bad:
        if len(shrunk_kinds) >= a.shrink:
            break
        want = kinds(r[mode]["diffs"])
        if want <= shrunk_kinds:
            continue  # one case per new kind of disagreement
        small = shrink(
            hta_trace_gen.generate(r["seed"], TIES), binary, rounding, want - shrunk_kinds
        )
        diffs, _, _, _ = check(small, binary, rounding, native=False)
        n_events = sum(len(d["traceEvents"]) for d in small.values())
        print(f"  seed {r['seed']}: shrunk to {n_events} events: {diffs[:3]}", flush=True)
        shrunk_kinds |= kinds(diffs) or want
        if a.cases:
            save_case(
                a.cases,
                f"seed-{r['seed']}-{mode}",
                small,
                binary,
                {
                    "seed": r["seed"],
                    "found_in_mode": mode,
                    "found_with": f"{binary.name} {attribute_sha[:16]}",
                    "disagreed_before_fix": {mode: diffs},
                },
            )


if __name__ == "__main__":
    main()
