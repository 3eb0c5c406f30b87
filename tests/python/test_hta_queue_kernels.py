"""get_queue_length_time_series, get_time_spent_blocked_on_full_queue, get_gpu_kernel_breakdown
and the memory bandwidth calls on a trace small enough to work out by hand (HTA 0.5.0 and 0.6.1 gave
these frames on it); test_hta_frames.py compares the committed traces with HTA's pickles and
test_hta_live.py with HTA run now."""

import json

import numpy as np
import pytest
from conftest import DATA


def event(name, cat, ts, dur, pid, tid, **args):
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid,
            "args": args}  # fmt: skip


@pytest.fixture
def tiny(tmp_path):
    """Two launches of one kernel on stream 7 and an async copy on stream 8 (file order: the
    three calls, then the GPU rows); every pid and tid an integer, so those columns are too."""
    events = [
        event("cudaLaunchKernel", "cuda_runtime", 10, 5, 1, 100, correlation=1),
        event("cudaLaunchKernel", "cuda_runtime", 20, 5, 1, 100, correlation=2),
        event("cudaMemcpyAsync", "cuda_runtime", 22, 2, 1, 100, correlation=3),
        event("gemm_a", "kernel", 30, 10, 0, 7, stream=7, correlation=1),
        event("gemm_a", "kernel", 45, 20, 0, 7, stream=7, correlation=2),
        event("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 50, 4, 0, 8, stream=8,
              correlation=3, **{"memory bandwidth (GB/s)": 2.0}),
    ]  # fmt: skip
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"traceEvents": events}))
    from iris_trace.hta import TraceAnalysis

    return TraceAnalysis(trace_dir=str(path))


def test_queue_length_time_series_by_hand(tiny):
    series = tiny.get_queue_length_time_series()
    assert list(series) == [0]
    q = series[0]
    assert list(q.columns) == ["ts", "pid", "tid", "stream", "queue_length"]
    # Times less the first call's 10 us; per stream by ts: +1 at each call, -1 at its GPU row.
    assert q.index.name == "index" and q.index.tolist() == [0, 1, 3, 4, 2, 5]
    assert q["ts"].tolist() == [0, 10, 20, 35, 12, 40]
    assert q["stream"].tolist() == [7, 7, 7, 7, 8, 8]
    assert q["queue_length"].tolist() == [1, 2, 1, 0, 1, 0]
    assert q["pid"].tolist() == [0] * 6 and q["tid"].tolist() == [7, 7, 7, 7, 8, 8]
    # Integer columns narrowed as HTA's parser does; labels 0..5 in ts order make pandas'
    # set_index a RangeIndex, hence int64 there.
    assert [str(t) for t in q.dtypes] == ["int8", "int8", "int8", "int8", "int64"]
    assert q.index.dtype == np.int64


def test_text_pids_make_an_object_column():
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=str(DATA / "traces" / "a100-alexnet-syncs.json.gz"))
    q = a.get_queue_length_time_series()[0]
    # The file's metadata has pid "Spans": pandas keeps the whole column as objects.
    assert q["pid"].dtype == object and q["tid"].dtype == object
    assert q.index.dtype == np.int16


def test_full_queue_by_hand(tiny):
    series = tiny.get_queue_length_time_series()
    full = tiny.get_time_spent_blocked_on_full_queue(series, max_queue_length=2)
    # Stream 7 holds 2 launches from ts 10 to its next change at 20; the trace spans 0..40.
    assert list(full.columns) == [
        "rank",
        "stream",
        "duration_at_max_queue_length",
        "relative_duration_at_max_queue_length",
    ]
    assert full.values.tolist() == [[0, 7, 10.0, 0.25]]
    assert full["stream"].dtype == np.int8
    none = tiny.get_time_spent_blocked_on_full_queue(series)  # HTA's default, 1024
    assert none.empty and list(none.columns) == list(full.columns)
    with pytest.raises(KeyError, match="rank 3"):
        tiny.get_time_spent_blocked_on_full_queue({3: series[0]})
    with pytest.raises(KeyError, match="queue_length"):
        tiny.get_time_spent_blocked_on_full_queue({0: series[0].drop(columns="queue_length")})


def test_gpu_kernel_breakdown_by_hand(tiny):
    types, kernels = tiny.get_gpu_kernel_breakdown(visualize=False)
    # gemm_a runs [20, 30] and [35, 55], the copy [40, 44]: 26 us alone, 4 under the copy.
    assert types.values.tolist() == [
        ["COMPUTATION", 26, 86.7],
        ["COMPUTATION overlapping MEMORY", 4, 13.3],
    ]
    assert list(kernels.columns) == [
        "name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "kernel_type", "rank"
    ]  # fmt: skip
    gemm = kernels.iloc[0]
    assert (gemm["name"], gemm["sum (us)"], gemm["max (us)"], gemm["min (us)"]) == (
        "gemm_a", 30, 20, 10,
    )  # fmt: skip
    assert gemm["mean (us)"] == 15.0 and gemm["stddev"] == pytest.approx(50**0.5, rel=1e-15)
    assert kernels["kernel_type"].tolist() == ["COMPUTATION", "MEMORY"]
    assert str(kernels["sum (us)"].dtype) == "int64"


def test_gpu_kernel_breakdown_groups_past_num_kernels_as_others(tiny):
    # HTA's quirk: once regrouped, a row's max, min and mean are of the kernels' sums.
    _, kernels = tiny.get_gpu_kernel_breakdown(visualize=False, num_kernels=0)
    assert kernels["name"].tolist() == ["others", "others"]
    assert kernels[["sum (us)", "max (us)", "min (us)", "mean (us)"]].values.tolist() == [
        [30, 30, 30, 30.0],
        [4, 4, 4, 4.0],
    ]
    types, kernels = tiny.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=False)
    assert types.values.tolist() == [["COMPUTATION", 30, 100.0]]
    assert kernels["kernel_type"].tolist() == ["COMPUTATION"]


@pytest.mark.parametrize("ratio", [-0.1, 1.5, float("nan")])
def test_gpu_kernel_breakdown_refuses_a_ratio_outside_0_1_as_numpy_does(tiny, ratio):
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        tiny.get_gpu_kernel_breakdown(visualize=False, duration_ratio=ratio)


def test_memory_bandwidth_by_hand(tiny):
    series = tiny.get_memory_bw_time_series()
    m = series[0]
    # The copy's 2 GB/s from its start (40) to its end (44), under its kind's first 11 letters.
    assert list(m.columns) == ["ts", "pid", "name", "memory_bw_gbps"]
    assert m.values.tolist() == [[40, 0, "Memcpy HtoD", 2.0], [44, 0, "Memcpy HtoD", 0.0]]
    assert m.index.tolist() == [0, 1] and str(m["ts"].dtype) == "int8"
    summary = tiny.get_memory_bw_summary()
    assert summary.index.tolist() == [(0, "Memcpy HtoD")]
    row = summary.loc[(0, "Memcpy HtoD"), "memory_bw_gbps"]
    assert row["count"] == 1 and row["mean"] == 2.0 and np.isnan(row["std"])


def test_no_gpu_rows_gives_empty_frames():
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=str(DATA / "traces" / "cpu-only.json.gz"))
    assert a.get_queue_length_time_series(ranks=a.ranks) == {}
    assert a.get_time_spent_blocked_on_full_queue({}).empty
    types, kernels = a.get_gpu_kernel_breakdown(visualize=False)
    assert (
        types.empty
        and kernels.empty
        and list(types.columns) == ["kernel_type", "sum", "percentage"]
    )


def test_bad_trace_names_its_file(tmp_path):
    from iris_trace import TraceError
    from iris_trace.hta import TraceAnalysis

    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "x"}]}')
    with pytest.raises(TraceError) as e:
        TraceAnalysis(trace_dir=str(bad))
    assert str(bad) in str(e.value)
