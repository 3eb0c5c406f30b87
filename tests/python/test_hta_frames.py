"""iris_trace.hta.TraceAnalysis returns HTA 0.5.0's own DataFrames: compared with
pandas.testing.assert_frame_equal against HTA's frames for every committed trace
(tests/data/hta_frames, written by experiments/hta_frames_reference.py in a scratch venv with
HTA), and, when HTA_PYTHON names a Python with HTA 0.5.0, against HTA run now."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from conftest import DATA, REPO, kineto_traces

from experiments.hta_compare import compare, our_frames


def stem(p):
    return p.name.removesuffix(".json.gz")


@pytest.mark.parametrize("trace", kineto_traces(), ids=stem)
def test_frames_equal_htas(trace):
    from iris_trace.hta import TraceAnalysis

    with open(DATA / "hta_frames" / f"{stem(trace)}.pkl", "rb") as f:
        ref = pickle.load(f)
    a = TraceAnalysis(trace_dir=str(trace))
    assert a.ranks == ref["ranks"]
    assert compare(ref, our_frames(a, ref["ranks"])) == []


def test_every_committed_trace_has_a_reference():
    assert {p.stem for p in (DATA / "hta_frames").glob("*.pkl")} == {
        stem(t) for t in kineto_traces()
    }


def test_trace_files_and_defaults_as_htas():
    from iris_trace.hta import TraceAnalysis

    folder = DATA / "traces" / "two-ranks"
    a = TraceAnalysis(trace_files={0: "rank-0.json.gz", 1: "rank-1.json.gz"}, trace_dir=str(folder))
    b = TraceAnalysis(trace_dir=str(folder))
    assert a.get_temporal_breakdown(visualize=False).equals(
        b.get_temporal_breakdown(visualize=False)
    )
    idle, stats = b.get_idle_time_breakdown(visualize=False)  # ranks default to [0]
    assert stats is None and set(idle["rank"]) == {0}
    with pytest.raises(NotImplementedError):
        TraceAnalysis(trace_dir=str(folder), include_last_profiler_step=True)


def test_visualize_draws_with_matplotlib(monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from iris_trace.hta import TraceAnalysis

    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(len(plt.get_fignums())))
    a = TraceAnalysis(trace_dir=str(DATA / "traces" / "a100-alexnet-syncs.json.gz"))
    a.get_temporal_breakdown(visualize=True)
    a.get_idle_time_breakdown(visualize=True)
    a.get_cuda_kernel_launch_stats(visualize=True)
    assert len(shown) == 3 and all(n > 0 for n in shown)


@pytest.mark.skipif(not os.environ.get("HTA_PYTHON"), reason="HTA_PYTHON unset: no live HTA 0.5.0")
def test_frames_equal_hta_run_now(tmp_path):
    traces = [str(t) for t in kineto_traces()]
    subprocess.run(
        [os.environ["HTA_PYTHON"], "-m", "experiments.hta_frames_reference"]
        + ["--out", str(tmp_path), *traces],
        check=True,
        cwd=REPO,
    )
    p = subprocess.run(
        [sys.executable, "-m", "experiments.hta_frames_check", "--ref", str(tmp_path), *traces],
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout


def _htas_merge(kernel_df):
    """HTA 0.5.0's utils.merge_kernel_intervals as HTA writes it, the reference for ours."""
    kernel_df = kernel_df.sort_values(by="ts").copy()
    kernel_df["end"] = kernel_df["ts"] + kernel_df["dur"]
    kernel_df["group"] = (kernel_df["ts"] > kernel_df["end"].shift().cummax()).cumsum()
    return (
        kernel_df.groupby("group", as_index=False)
        .agg({"ts": "min", "end": "max"})
        .drop(["group"], axis=1)
        .sort_values(by="ts")
    )


def _random_kernels(rng, n, floats, nan):
    ts = rng.integers(0, n // 2 + 1, n)  # ties on purpose: the sort is not stable
    dur = rng.integers(0, 6, n)
    if floats:
        ts, dur = ts + rng.choice([0.0, 0.5], n), dur.astype(float)
    if nan:
        dur = dur.astype(float)
        dur[rng.random(n) < 0.1] = np.nan
        if floats:
            ts[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"ts": ts, "dur": dur}, index=rng.permutation(n) + 7)


@pytest.mark.parametrize("floats,nan", [(False, False), (True, False), (False, True), (True, True)])
def test_numpy_steps_equal_htas_pandas_steps(floats, nan):
    from iris_trace.hta import _ts_order, merge_kernel_intervals

    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 5, 40, 3000):
        df = _random_kernels(rng, n, floats, nan)
        if n:
            pdt.assert_index_equal(
                df.index[_ts_order(df["ts"].to_numpy())], df.sort_values(by="ts").index
            )
            sorted_df, merged = merge_kernel_intervals(df)
            pdt.assert_frame_equal(sorted_df, df.sort_values(by="ts"), check_exact=True)
            pdt.assert_frame_equal(merged, _htas_merge(df), check_exact=True)


def test_runtime_join_as_htas_where_the_runtime_index_repeats():
    from iris_trace.hta import _RUNTIME_SUFFIX, TraceAnalysis

    gpu = pd.DataFrame(
        {
            "ts": [10, 20, 30, 40],
            "dur": [1.0, 2.0, 3.0, 4.0],
            "stream": [7, 7, 8, 7],
            "index_correlation": [3, 5, 3, 9],
            "kernel_cat": [True, True, True, False],
        }
    )
    # Repeated (HTA's join copies rows); unique with one missing; none at all.
    for labels in ([3, 5, 3], [3, 5, 6], []):
        ts = [1, 2, 4][: len(labels)]
        runtime = pd.DataFrame(
            {"ts": pd.array(ts, dtype="int64"), "index": pd.array(labels, dtype="int64")},
            index=pd.Index(labels, dtype="int64"),
        )
        ours = TraceAnalysis._kernels_with_runtime(gpu, runtime)
        joined = (
            gpu[gpu["kernel_cat"]]
            .copy()
            .set_index("index_correlation")
            .join(runtime[["ts", "index"]], on="index_correlation", **_RUNTIME_SUFFIX)
        )
        for col in ("stream", "ts", "dur", "ts_runtime"):
            np.testing.assert_array_equal(ours[col], joined[col].to_numpy(), err_msg=col)
