"""Holistic Trace Analysis 0.5.0's interface for what ./attribute computes: TraceAnalysis with
get_temporal_breakdown, get_idle_time_breakdown and get_cuda_kernel_launch_stats, returning
the DataFrames HTA returns (columns, dtypes, index, values), so that a notebook switches by
changing its import:

    from iris_trace.hta import TraceAnalysis      # was: from hta.trace_analysis import ...

HTA is not used: the load HTA spends its time in (parse, rounding, alignment, correlation,
step filter) is the trace library's (src/trace/analyze/hta_frames.h, the same rules as
./attribute --hta), and the three calls then run HTA's own steps (analyzers/
breakdown_analysis.py, analyzers/cuda_kernel_analysis.py, utils/utils.py) on the few columns
they read: its pandas where the result depends on how pandas computes it (the grouped sums,
describe, the merge), numpy where the values cannot differ (sort order, shifts, interval
merging; tests/python/test_hta_frames.py pins each against HTA's pandas). visualize=True draws
with matplotlib (HTA uses plotly)."""

import inspect
import os
from collections import defaultdict

import numpy as np
import pandas as pd

from . import _core
from ._errors import check_exists, trace_error

# HTA's IdleTimeType (utils/utils.py) and its names in the frames.
HOST_WAIT, KERNEL_WAIT, OTHER = 0, 1, 2
IDLE_NAMES = {HOST_WAIT: "host_wait", KERNEL_WAIT: "kernel_wait", OTHER: "other"}


# HTA's join(..., rsuffix="_runtime"), spelled as the installed pandas wants it (pandas 3.1
# deprecates rsuffix for suffixes, which older pandas lacks).
_RUNTIME_SUFFIX = (
    {"suffixes": ("", "_runtime")}
    if "suffixes" in inspect.signature(pd.DataFrame.join).parameters
    else {"rsuffix": "_runtime"}
)


def _int(bits):
    return np.dtype(f"int{bits}") if bits else np.dtype("float64")


def _rank_frames(f):
    """(gpu rows, runtime rows for the idle join, cpu launch rows) of one rank, with HTA's
    column types; the GPU rows' index is HTA's (the file index)."""
    ts, dur = _int(f["ts_bits"]), _int(f["dur_bits"])
    stream, corr = _int(f["stream_bits"]), _int(f["correlation_bits"])
    gpu = pd.DataFrame(
        {
            "ts": f["gpu_ts"].astype(ts),
            "dur": f["gpu_dur"].astype(dur),
            "stream": f["gpu_stream"].astype(stream),
            "correlation": f["gpu_correlation"].astype(corr),
            "index_correlation": f["gpu_index_correlation"],
            "index": f["gpu_index"],
            "kernel_cat": f["gpu_kernel_cat"].view(np.bool_),
            "compute": f["gpu_compute"].view(np.bool_),
        },
        index=pd.Index(f["gpu_index"]),
    )
    runtime = pd.DataFrame(
        {"ts": f["runtime_ts"].astype(ts), "index": f["runtime_index"]},
        index=pd.Index(f["runtime_index"]),
    )
    cpu = pd.DataFrame(
        {
            "correlation": f["cpu_correlation"].astype(corr),
            "dur": f["cpu_dur"].astype(dur),
            "ts": f["cpu_ts"].astype(ts),
        }
    )
    launch_corrs = pd.Series(f["launch_correlations"].astype(corr))
    return gpu, runtime, cpu, launch_corrs


def _ts_order(ts):
    """The row order of HTA's sort_values(by="ts") (pandas' nargsort: quicksort on the values
    that are not NaN, NaN last), as positions."""
    if ts.dtype.kind == "f":
        nan = np.isnan(ts)
        if nan.any():
            keep = np.flatnonzero(~nan)
            return np.concatenate([keep[ts[keep].argsort(kind="quicksort")], np.flatnonzero(nan)])
    return ts.argsort(kind="quicksort")


def merge_kernel_intervals(kernel_df):
    """HTA's utils.merge_kernel_intervals. HTA sorts its argument in place and its caller reads
    it afterwards, so this returns (kernel_df sorted by ts, the merged intervals). HTA's
    groupby runs here as numpy: a kernel that starts after every earlier end (a shifted,
    NaN-skipping cummax) opens an interval, which spans its group's first ts and largest end."""
    sorted_df = kernel_df.take(_ts_order(kernel_df["ts"].to_numpy()))
    ts = sorted_df["ts"].to_numpy()
    end = ts + sorted_df["dur"].to_numpy()
    if len(ts) == 0:
        return sorted_df, pd.DataFrame({"ts": ts, "end": end})
    # HTA's end.shift().cummax(): a float column (the shift's NaN) whose cummax skips NaN
    # but keeps it in place.
    shifted = end[:-1].astype(np.float64)
    prev = np.fmax.accumulate(shifted)
    prev[np.isnan(shifted)] = np.nan
    opens = np.concatenate([[True], ts[1:] > prev])
    first = np.flatnonzero(opens)
    return sorted_df, pd.DataFrame(
        {"ts": np.fmin.reduceat(ts, first), "end": np.fmax.reduceat(end, first)}
    )


class TraceAnalysis:
    """HTA's TraceAnalysis(trace_dir=...) for its temporal breakdown, idle time breakdown and
    kernel launch statistics. trace_files: {rank: path} (a path relative to trace_dir is
    taken there), as HTA's; include_last_profiler_step=True is not supported."""

    def __init__(self, trace_files=None, trace_dir="traces", include_last_profiler_step=False):
        if include_last_profiler_step:
            raise NotImplementedError(
                "include_last_profiler_step=True: only HTA's default (False) is reproduced"
            )
        if trace_files:
            paths = [
                p if os.path.isabs(p) or os.path.exists(p) else os.path.join(trace_dir, p)
                for _, p in sorted(trace_files.items())
            ]
        else:
            paths = [trace_dir]
        for p in paths:
            check_exists(p)
        try:
            files = _core.expand_paths([str(p) for p in paths])
            rounding = os.environ.get("HTA_DISABLE_NS_ROUNDING") != "1"
            self._raw = _core.hta_frames(files, rounding)
        except _core.InputError as e:
            raise trace_error(e, str(paths[0]) if len(paths) == 1 else None) from None
        self.files = files
        self.ranks = sorted(self._raw)
        self._frames = {}

    def _rank(self, rank):
        if rank not in self._raw:
            raise KeyError(f"rank {rank} is not in the traces (ranks: {self.ranks})")
        if rank not in self._frames:
            self._frames[rank] = _rank_frames(self._raw[rank])
        return self._frames[rank]

    # --- get_temporal_breakdown (breakdown_analysis.py) ------------------------------------

    def get_temporal_breakdown(self, visualize=True):
        """Idle, compute and non-compute time of each rank's GPU (us), as HTA 0.5.0."""
        result = defaultdict(list)
        for rank in self.ranks:
            gpu_kernels, merged = merge_kernel_intervals(self._rank(rank)[0])
            kernel_time = merged.iloc[-1]["end"] - merged.iloc[0]["ts"]
            idle_time = kernel_time - (merged.end.sum() - merged.ts.sum())
            _, comp = merge_kernel_intervals(gpu_kernels[gpu_kernels["compute"]])
            compute_time = comp.end.sum() - comp.ts.sum()
            non_compute_time = kernel_time - compute_time - idle_time
            assert idle_time <= kernel_time
            assert compute_time <= kernel_time
            assert non_compute_time >= 0
            result["rank"].append(rank)
            result["idle_time(us)"].append(idle_time)
            result["compute_time(us)"].append(compute_time)
            result["non_compute_time(us)"].append(non_compute_time)
            result["kernel_time(us)"].append(kernel_time)
        df = pd.DataFrame(result)
        for part in ("idle_time", "compute_time", "non_compute_time"):
            df[part] = df[f"{part}(us)"] / df["kernel_time(us)"]
            df[f"{part}_pctg"] = round(100 * df[part], 2)
        if visualize:
            from . import plots

            plots.temporal(df)
        return df[
            [
                "rank",
                "idle_time(us)",
                "compute_time(us)",
                "non_compute_time(us)",
                "kernel_time(us)",
                "idle_time_pctg",
                "compute_time_pctg",
                "non_compute_time_pctg",
            ]
        ]

    # --- get_idle_time_breakdown (breakdown_analysis.py) -----------------------------------

    @staticmethod
    def _idle_for_stream(stream, k, consecutive_kernel_delay, show_stats):
        """HTA's per-stream step on k, the rank's kernels as numpy columns (stream, ts, dur,
        ts_runtime): its sort, shifted ends and categories as numpy, its groupby as pandas on
        the two columns it reads (pandas' grouped sums are compensated: numpy's are not)."""
        rows = np.flatnonzero(k["stream"] == stream)
        rows = rows[_ts_order(k["ts"][rows])]
        ts = k["ts"][rows]
        end = ts + k["dur"][rows]
        prev_end = np.concatenate([[np.nan], end[:-1]])
        idle = ts - prev_end
        is_host_wait = k["ts_runtime"][rows] > prev_end
        category = np.where(
            is_host_wait, HOST_WAIT, np.where(idle < consecutive_kernel_delay, KERNEL_WAIT, OTHER)
        ).astype(np.int64)
        s = pd.DataFrame({"idle_interval": idle, "idle_category": category})
        groups = s.groupby("idle_category")
        stats = None
        if show_stats:
            stats = groups.idle_interval.describe()
            stats.insert(0, "stream", stream)
        result = pd.DataFrame(groups.idle_interval.sum())
        total = result.idle_interval.sum()
        result["stream"] = stream
        result["idle_time_ratio"] = result["idle_interval"] / total
        result = result.rename(columns={"idle_interval": "idle_time"})
        return result, stats

    @staticmethod
    def _kernels_with_runtime(gpu, runtime):
        """HTA's kernels joined with their runtime call's ts (NaN where none), as numpy
        columns; a runtime index that is not unique takes HTA's own join. The ts are float64
        either way: the one comparison that reads them casts them so."""
        kernels = gpu[gpu["kernel_cat"]]
        if runtime.index.is_unique:
            where = runtime.index.get_indexer(kernels["index_correlation"].to_numpy())
            found = where >= 0
            ts_runtime = np.full(len(where), np.nan)
            ts_runtime[found] = runtime["ts"].to_numpy()[where[found]]
            cols = {c: kernels[c].to_numpy() for c in ("stream", "ts", "dur")}
            return {**cols, "ts_runtime": ts_runtime}
        joined = kernels.set_index("index_correlation").join(
            runtime[["ts", "index"]], on="index_correlation", **_RUNTIME_SUFFIX
        )
        return {c: joined[c].to_numpy() for c in ("stream", "ts", "dur", "ts_runtime")}

    def _idle_for_rank(
        self, rank, streams, consecutive_kernel_delay, show_stats, visualize, visualize_pctg
    ):
        gpu, runtime, _, _ = self._rank(rank)
        k = self._kernels_with_runtime(gpu, runtime)
        if streams is None or len(streams) == 0:
            streams = list(pd.unique(k["stream"]))
        results, stats = [], []
        for stream in streams:
            r, st = self._idle_for_stream(stream, k, consecutive_kernel_delay, show_stats)
            results.append(r)
            if st is not None:
                stats.append(st)
        result_df = pd.concat(results)
        result_df = result_df.rename(mapper=IDLE_NAMES, axis=0).reset_index()
        if visualize:
            from . import plots

            plots.idle(result_df, rank, visualize_pctg)
        result_df["rank"] = rank
        stats_df = pd.concat(stats).round(2) if show_stats else None
        if stats_df is not None:
            stats_df.insert(0, "rank", rank)
            stats_df = stats_df.rename(mapper=IDLE_NAMES, axis=0)
        result_df = result_df[
            ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]
        ].round(2)
        return result_df, stats_df

    def get_idle_time_breakdown(
        self,
        ranks=None,
        streams=None,
        visualize=True,
        visualize_pctg=True,
        show_idle_interval_stats=False,
        consecutive_kernel_delay=30,
    ):
        """Per rank and stream, GPU idle time (us) by host wait, kernel wait and other, as HTA
        0.5.0; with show_idle_interval_stats, the second frame describes the idle intervals."""
        if ranks is None or len(ranks) == 0:
            ranks = [0]
        frames, stats = [], []
        for rank in ranks:
            r, s = self._idle_for_rank(
                rank,
                streams,
                consecutive_kernel_delay,
                show_idle_interval_stats,
                visualize,
                visualize_pctg,
            )
            frames.append(r)
            if s is not None:
                stats.append(s)
        return pd.concat(frames), pd.concat(stats) if show_idle_interval_stats else None

    # --- get_cuda_kernel_launch_stats (cuda_kernel_analysis.py) ----------------------------

    def get_cuda_kernel_launch_stats(
        self,
        ranks=None,
        runtime_cutoff=50,
        launch_delay_cutoff=100,
        include_memory_events=True,
        visualize=True,
    ):
        """{rank: DataFrame} of each launch's correlation, CPU and GPU duration and launch
        delay (us), as HTA 0.5.0. include_memory_events=False is not supported."""
        if not include_memory_events:
            raise NotImplementedError(
                "include_memory_events=False: only HTA's default is reproduced"
            )
        if ranks is None or ranks == []:
            ranks = [0]
        out = {}
        for rank in ranks:
            gpu, _, cpu, corrs = self._rank(rank)
            cpu_f = cpu[cpu["correlation"].isin(corrs)][["correlation", "dur", "ts"]]
            gpu_f = gpu[gpu["correlation"].isin(corrs)][["correlation", "dur", "ts"]]
            joined = pd.merge(cpu_f, gpu_f, how="inner", on="correlation")
            joined["launch_delay"] = joined["ts_y"] - joined["ts_x"] - joined["dur_x"]
            joined["launch_delay"] = joined["launch_delay"].clip(lower=0)
            renamed = joined.rename(columns={"dur_x": "cpu_duration", "dur_y": "gpu_duration"})
            events = renamed[["correlation", "cpu_duration", "gpu_duration", "launch_delay"]]
            if visualize:
                from . import plots

                plots.launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff)
            out[rank] = events
        return out
