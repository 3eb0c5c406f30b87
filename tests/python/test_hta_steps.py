"""iris_trace.hta's figures (computed in C++, src/trace/analyze/hta_*.h) against HTA 0.5.0's own
pandas steps, written here as HTA writes them (breakdown_analysis.py, cuda_kernel_analysis.py,
utils.py), on random one-rank traces made to be hard: equal timestamps on purpose (HTA's sort is
not stable: the package must fall as numpy's sort falls), decimal timestamps whose rounding gives
negative durations, kernels whose launch is missing (their index_correlation is 0: HTA joins them
to row 0), streams long enough for numpy's and pandas' sums to round differently, and decimal
timestamps left unrounded (HTA_DISABLE_NS_ROUNDING=1), whose gaps sum with rounding error. Every
frame must be equal with check_exact."""

import gzip
import json

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

IDLE_NAMES = {0: "host_wait", 1: "kernel_wait", 2: "other"}
COMPUTE_NAMES = ("gemm", "relu")  # the other kernels are named Memcpy ... (not computation)


def write_trace(path, rng, n, floats):
    """n kernels on three streams, most with a cudaLaunchKernel before them."""
    events = []
    for corr in range(1, n + 1):
        ts = float(rng.integers(0, n // 2 + 1))
        dur = float(rng.integers(0, 6))
        if floats:
            ts += float(rng.choice([0.0, 0.25, 0.5]))
            dur += float(rng.choice([0.0, 0.3]))
        stream = int(rng.choice([7, 8, 20]))
        name = str(rng.choice(COMPUTE_NAMES + ("Memcpy HtoD",)))
        kernel = {
            "ph": "X",
            "cat": "kernel",
            "name": name,
            "pid": 0,
            "tid": stream,
            "ts": ts,
            "dur": dur,
            "args": {"stream": stream, "correlation": corr},
        }
        if rng.random() < 0.9:
            call_ts = max(0.0, ts - float(rng.integers(0, 12)))
            events.append(
                {
                    "ph": "X",
                    "cat": "cuda_runtime",
                    "name": "cudaLaunchKernel",
                    "pid": 1,
                    "tid": 1,
                    "ts": call_ts,
                    "dur": float(rng.integers(1, 4)),
                    "args": {"correlation": corr},
                }
            )
        events.append(kernel)
    with gzip.open(path, "wt") as f:
        json.dump({"traceEvents": events}, f)
    return events


def htas_frame(events, rounding=True):
    """HTA's per-rank frame after its load, for these traces (one rank, no ProfilerStep):
    round_down_time_stamps when ts has decimals, downcast, alignment, index_correlation."""
    df = pd.DataFrame(
        {
            "index": np.arange(len(events)),
            "ts": [e["ts"] for e in events],
            "dur": [e["dur"] for e in events],
            "stream": [e["args"].get("stream", -1) for e in events],
            "correlation": [e["args"]["correlation"] for e in events],
            "name": [e["name"] for e in events],
            "cat": [e["cat"] for e in events],
        }
    )
    decimal = (df["ts"] % 1 != 0).any()
    if decimal and rounding:
        end = np.floor(df["ts"] + df["dur"])
        df["ts"] = np.ceil(df["ts"])
        df["dur"] = end - df["ts"]
    integer = ("stream", "correlation") if decimal and not rounding else ("ts", "dur")
    for col in {*integer, "stream", "correlation"}:
        df[col] = pd.to_numeric(df[col].astype(np.int64), downcast="integer")
    df["ts"] = df["ts"] - df["ts"].min()  # _align_all_ranks, in the downcast type
    gpu = df["stream"].ne(-1)
    last_cpu = df[~gpu].groupby("correlation")["index"].last()
    last_gpu = df[gpu].groupby("correlation")["index"].last()
    df["index_correlation"] = np.where(
        gpu,
        df["correlation"].map(last_cpu).fillna(0),
        df["correlation"].map(last_gpu).fillna(0),
    ).astype(np.int64)
    return df.set_index("index", drop=False)


def merge_kernel_intervals(kernel_df):  # utils.py
    kernel_df.sort_values(by="ts", inplace=True)
    kernel_df["end"] = kernel_df["ts"] + kernel_df["dur"]
    kernel_df["group"] = (kernel_df["ts"] > kernel_df["end"].shift().cummax()).cumsum()
    return (
        kernel_df.groupby("group", as_index=False)
        .agg({"ts": "min", "end": "max"})
        .drop(["group"], axis=1)
        .sort_values(by="ts")
    )


def htas_temporal(df):  # breakdown_analysis.py, get_temporal_breakdown (one rank)
    gpu_kernels = df[df["stream"].ne(-1)].copy()
    merged = merge_kernel_intervals(gpu_kernels)
    kernel_time = merged.iloc[-1]["end"] - merged.iloc[0]["ts"]
    idle_time = kernel_time - (merged.end.sum() - merged.ts.sum())
    comp = merge_kernel_intervals(gpu_kernels[gpu_kernels["name"].isin(COMPUTE_NAMES)].copy())
    compute_time = comp.end.sum() - comp.ts.sum()
    non_compute_time = kernel_time - compute_time - idle_time
    assert idle_time <= kernel_time
    assert compute_time <= kernel_time
    assert non_compute_time >= 0
    r = pd.DataFrame(
        {
            "rank": [0],
            "idle_time(us)": [idle_time],
            "compute_time(us)": [compute_time],
            "non_compute_time(us)": [non_compute_time],
            "kernel_time(us)": [kernel_time],
        }
    )
    for part in ("idle_time", "compute_time", "non_compute_time"):
        r[part] = r[f"{part}(us)"] / r["kernel_time(us)"]
        r[f"{part}_pctg"] = round(100 * r[part], 2)
    return r.drop(columns=["idle_time", "compute_time", "non_compute_time"])


def htas_kernel_types(df):  # breakdown_analysis.py, get_gpu_kernel_breakdown's kernel_type_df
    gpu_kernels = df[df["stream"].ne(-1)].copy()
    gpu_kernels["kernel_type"] = np.where(
        gpu_kernels["name"].isin(COMPUTE_NAMES), "COMPUTATION", "MEMORY"
    )
    edges = pd.DataFrame({"status": pd.Series(dtype="str"), "time": pd.Series(dtype="int")})
    values = {}
    for idx, kernel_type in enumerate(["COMPUTATION", "COMMUNICATION", "MEMORY"]):
        values[kernel_type] = 1 << idx
        merged = merge_kernel_intervals(
            gpu_kernels[gpu_kernels["kernel_type"].eq(kernel_type)].copy()
        )
        melted = merged.melt(var_name="status", value_name="time")
        melted = melted.replace({"ts": 1 << idx, "end": -(1 << idx)})
        edges = pd.concat([edges, melted]).sort_values(by="time").reset_index(drop=True)
    edges["running"] = edges["status"].cumsum()
    edges["next_time"] = edges["time"].shift(-1)
    edges = edges[edges["running"] > 0].copy()
    edges["kernel_type"] = [
        " overlapping ".join(t for t, v in values.items() if r & v) for r in edges["running"]
    ]
    edges["dur"] = (edges["next_time"] - edges["time"]).astype(int)
    types = edges.groupby(by=["kernel_type"])["dur"].agg(["sum"]).reset_index()
    types = types.groupby(by=["kernel_type"])["sum"].agg(["sum"]).reset_index()
    types.sort_values(by=["sum"], ignore_index=True, inplace=True, ascending=False)
    types["percentage"] = types["sum"] / types["sum"].sum() * 100
    return types.round({"percentage": 1})


def htas_idle(df, delay):  # breakdown_analysis.py, get_idle_time_breakdown (one rank)
    kernels = df[df["stream"].ne(-1) & df["cat"].eq("kernel")].copy().set_index("index_correlation")
    kernels = kernels.join(df[["ts", "index"]], on="index_correlation", rsuffix="_runtime")
    results, stats = [], []
    for stream in list(kernels.stream.unique()):
        s = kernels[kernels.stream == stream].copy().sort_values(by="ts")
        s["end_ts"] = s.ts + s.dur
        s["prev_end_ts"] = s.end_ts.shift(1)
        s["idle_interval"] = s["ts"] - s["prev_end_ts"]
        s["idle_category"] = 2
        host = s["ts_runtime"] > s["prev_end_ts"]
        s.loc[host, "idle_category"] = 0
        s.loc[~host & (s["idle_interval"] < delay), "idle_category"] = 1
        groups = s.groupby("idle_category")
        st = groups.idle_interval.describe()
        st.insert(0, "stream", stream)
        stats.append(st)
        r = pd.DataFrame(groups.idle_interval.sum())
        total = r.idle_interval.sum()
        r["stream"] = stream
        r["idle_time_ratio"] = r["idle_interval"] / total
        results.append(r.rename(columns={"idle_interval": "idle_time"}))
    result = pd.concat(results).rename(mapper=IDLE_NAMES, axis=0).reset_index()
    result["rank"] = 0
    interval_stats = pd.concat(stats).round(2)
    interval_stats.insert(0, "rank", 0)
    interval_stats = interval_stats.rename(mapper=IDLE_NAMES, axis=0)
    cols = ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]
    return result[cols].round(2), interval_stats


def htas_launch_stats(df):  # cuda_kernel_analysis.py, cuda_kernel_launch_stats (one rank)
    corrs = df[df["name"].eq("cudaLaunchKernel")].correlation
    cpu = df[df["stream"].eq(-1) & df["correlation"].isin(corrs)][["correlation", "dur", "ts"]]
    gpu = df[df["stream"].ne(-1) & df["correlation"].isin(corrs)][["correlation", "dur", "ts"]]
    j = pd.merge(cpu, gpu, how="inner", on="correlation")
    j["launch_delay"] = (j["ts_y"] - j["ts_x"] - j["dur_x"]).clip(lower=0)
    j = j.rename(columns={"dur_x": "cpu_duration", "dur_y": "gpu_duration"})
    return j[["correlation", "cpu_duration", "gpu_duration", "launch_delay"]]


def outcome(f):
    """f()'s result, or the type of what it raised (HTA's asserts fail on negative durations)."""
    try:
        return f()
    except (AssertionError, IndexError, ValueError) as e:
        return type(e).__name__


def expect_same(ours, htas):
    if isinstance(htas, str) or isinstance(ours, str):
        assert ours == htas
    elif isinstance(htas, tuple):
        for a, b in zip(ours, htas, strict=True):
            pdt.assert_frame_equal(a, b, check_exact=True)
    else:
        pdt.assert_frame_equal(ours, htas, check_exact=True)


@pytest.mark.parametrize(
    "floats,rounding",
    [(False, True), (True, True), (True, False)],
    ids=["integer-ts", "decimal-ts", "decimal-ts-unrounded"],
)
@pytest.mark.parametrize("n", [6, 60, 3000])
def test_figures_equal_htas_pandas_steps(tmp_path, monkeypatch, n, floats, rounding):
    from iris_trace.hta import TraceAnalysis

    if not rounding:
        monkeypatch.setenv("HTA_DISABLE_NS_ROUNDING", "1")
    rng = np.random.default_rng(n * 2 + floats)
    for k in range(3):
        path = tmp_path / f"t{k}.json.gz"
        df = htas_frame(write_trace(path, rng, n, floats), rounding)
        a = TraceAnalysis(trace_dir=str(path))
        expect_same(
            outcome(lambda a=a: a.get_temporal_breakdown(visualize=False)),
            outcome(lambda df=df: htas_temporal(df)),
        )
        for delay in (30, 2):
            ours = a.get_idle_time_breakdown(
                visualize=False, show_idle_interval_stats=True, consecutive_kernel_delay=delay
            )
            expect_same(ours, htas_idle(df, delay))
        launch = a.get_cuda_kernel_launch_stats(visualize=False)[0]
        expect_same(launch, htas_launch_stats(df))
        expect_same(
            outcome(lambda a=a: a.get_gpu_kernel_breakdown(visualize=False)[0]),
            outcome(lambda df=df: htas_kernel_types(df)),
        )
