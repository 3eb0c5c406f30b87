"""HTA's own DataFrames for the calls that iris_trace.hta.TraceAnalysis answers
(get_temporal_breakdown, get_idle_time_breakdown with its interval statistics,
get_cuda_kernel_launch_stats, get_queue_length_summary, get_comm_comp_overlap,
get_profiler_steps, and EXTRA_CALLS: get_queue_length_time_series,
get_time_spent_blocked_on_full_queue, get_gpu_kernel_breakdown, get_memory_bw_*,
get_potential_stragglers), on every Kineto trace of tests/data/traces, pickled for
tests/python/test_hta_frames.py (tests/data/hta_frames/<stem>.pkl, HTA 0.5.0's) and
tests/python/test_hta_live.py (HTA run now); each pickle names the release.

HTA is a tool of this check, never a dependency of the package: run it with a scratch venv's
Python, whose pandas must be the project's (pickles are read by the project's pandas); HTA 0.5.0
is PyPI's holistictraceanalysis, 0.6.1 PyPI's traceinsight (the module is hta in both):

    python3 -m venv /work/scratch/hta-venv
    /work/scratch/hta-venv/bin/pip install holistictraceanalysis==0.5.0 pandas==3.1.1
    /work/scratch/hta-venv/bin/python -m experiments.hta_frames_reference [--out DIR] [TRACE...]
    # 0.6.1: another venv, pip install traceinsight==0.6.1 pandas==3.1.1

TRACE: a file or a folder of ranks (default: every trace of tests/data/traces). Each trace is
linked into a folder of its own (HTA reads a folder); the traces are read in child processes of
BATCH traces each (HTA's import costs seconds), each trace by a TraceAnalysis of its own. A call
that raises is recorded as its exception's type and message.
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from analysis.atomic_write import open_atomic

REPO = Path(__file__).resolve().parent.parent
TRACES = REPO / "tests" / "data" / "traces"
OUT = REPO / "tests" / "data" / "hta_frames"


BATCH = 50  # traces per child process


def stem(path):
    p = Path(path)
    return p.name[: -len(".json.gz")] if p.name.endswith(".json.gz") else p.stem


def default_traces():
    files = sorted(TRACES.glob("*.json.gz"))
    folders = sorted(d for d in TRACES.iterdir() if d.is_dir() and any(d.glob("*.json.gz")))
    return files + folders


def call(f):
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001 - HTA raising is itself the reference
        return ("error", f"{type(e).__name__}: {e}")


def hta_version():
    """The installed release: "0.6.1" (traceinsight) or "0.5.0" (holistictraceanalysis)."""
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("traceinsight", "holistictraceanalysis"):
        try:
            return version(dist)
        except PackageNotFoundError:
            pass
    return "unknown"


# The calls added later, each as a function of (TraceAnalysis, ranks): ours and HTA's are called
# alike (experiments/hta_compare.py calls these too).
EXTRA_CALLS = {
    "queue_series": lambda a, ranks: a.get_queue_length_time_series(ranks=ranks),
    "full_queue": lambda a, ranks: a.get_time_spent_blocked_on_full_queue(
        a.get_queue_length_time_series(ranks=ranks)
    ),
    # A length the committed traces reach, so that rows come back.
    "full_queue_2": lambda a, ranks: a.get_time_spent_blocked_on_full_queue(
        a.get_queue_length_time_series(ranks=ranks), max_queue_length=2
    ),
    "kernels": lambda a, ranks: a.get_gpu_kernel_breakdown(visualize=False),
    "kernels_small": lambda a, ranks: a.get_gpu_kernel_breakdown(
        visualize=False, duration_ratio=0.5, num_kernels=3, include_memory_kernels=False
    ),
    "memory_bw_series": lambda a, ranks: a.get_memory_bw_time_series(ranks=ranks),
    "memory_bw": lambda a, ranks: a.get_memory_bw_summary(ranks=ranks),
    "stragglers": lambda a, ranks: a.get_potential_stragglers(),
    "stragglers_1": lambda a, ranks: a.get_potential_stragglers(num_candidates=1),
    "stragglers_3": lambda a, ranks: a.get_potential_stragglers(num_candidates=3),
    "stragglers_first_step": lambda a, ranks: a.get_potential_stragglers(
        profiler_steps=a.get_profiler_steps()[:1]
    ),
    "stragglers_no_step": lambda a, ranks: a.get_potential_stragglers(profiler_steps=[-5]),
}
# HTA numbers names in the iteration order of Python sets (its symbol table), which hangs on
# string hashing: the reference and the check run under one PYTHONHASHSEED so that where the
# stragglers' pick has equal candidates, both pick alike.
HASH_SEED = "0"


def pin_hash_seed(module, seed=None):
    """Re-runs `python -m module` under PYTHONHASHSEED=seed (default HASH_SEED) unless a seed
    is set."""
    if "PYTHONHASHSEED" not in os.environ:
        env = {**os.environ, "PYTHONHASHSEED": seed or HASH_SEED}
        os.execve(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]], env)


def frames_of(trace_dir):
    """Every call on every rank, visualize=False (the child's side)."""
    from hta.trace_analysis import TraceAnalysis

    a = TraceAnalysis(trace_dir=trace_dir)
    ranks = sorted(a.t.traces)
    return {
        "hta_version": hta_version(),
        "hash_seed": os.environ.get("PYTHONHASHSEED"),
        "ranks": ranks,
        "queue": call(lambda: a.get_queue_length_summary(ranks=ranks)),
        "overlap": call(lambda: a.get_comm_comp_overlap(visualize=False)),
        "steps": call(a.get_profiler_steps),
        "temporal": call(lambda: a.get_temporal_breakdown(visualize=False)),
        "idle": call(
            lambda: a.get_idle_time_breakdown(
                ranks=ranks, visualize=False, show_idle_interval_stats=True
            )
        ),
        "launch": call(lambda: a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)),
        **{name: call(lambda f=f: f(a, ranks)) for name, f in EXTRA_CALLS.items()},
    }


def child(out_dir, traces):
    """HTA's frames of each trace, read one after another in this process."""
    for trace in traces:
        with tempfile.TemporaryDirectory(prefix="hta-frames-") as d:
            src = Path(trace).resolve()
            files = (
                sorted(src.glob("*.json.gz")) + sorted(src.glob("*.json"))
                if src.is_dir()
                else [src]
            )
            for f in files:
                os.symlink(f, Path(d) / f.name)
            result = frames_of(d)
        with open_atomic(Path(out_dir) / f"{stem(trace)}.pkl", "wb") as f:
            pickle.dump(result, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--child", nargs="+", metavar=("OUT", "TRACE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    pin_hash_seed(__spec__.name)
    os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)  # HTA's default settings
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    traces = [str(t) for t in args.traces or default_traces()]
    # A child per batch: HTA's import costs seconds, a small trace's calls a fraction of one.
    for k in range(0, len(traces), BATCH):
        batch = traces[k : k + BATCH]
        print(f"{batch[0]} (+{len(batch) - 1}) -> {out}", flush=True)
        subprocess.run(
            [sys.executable, "-m", __spec__.name, "--child", str(out), *batch],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


if __name__ == "__main__":
    main()
