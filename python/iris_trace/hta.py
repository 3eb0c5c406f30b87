"""Holistic Trace Analysis' interface for what ./attribute computes: TraceAnalysis with
get_temporal_breakdown, get_idle_time_breakdown, get_cuda_kernel_launch_stats,
get_queue_length_summary, get_queue_length_time_series, get_time_spent_blocked_on_full_queue,
get_gpu_kernel_breakdown, get_memory_bw_time_series, get_memory_bw_summary,
get_comm_comp_overlap, get_profiler_steps, get_potential_stragglers and critical_path_analysis
(its summary), returning what HTA
returns (columns, dtypes, index, values) by the rules of HTA 0.6.1 (traceinsight, the default)
or 0.5.0 (hta_version=), so that a notebook switches by changing its import:

    from iris_trace.hta import TraceAnalysis      # was: from hta.trace_analysis import ...

HTA is not used: its load (parse, rounding, alignment, correlation, step filter) and every
figure of the calls are the trace library's (src/trace/analyze/hta_*.h, the functions
./attribute --hta reads, with numpy's and pandas' arithmetic to the last bit; ties in HTA's sort
by ts fall as numpy's sort leaves them on this machine). This module turns their arrays into
HTA's DataFrames with the pandas steps HTA makes them with (so that pandas infers the same
dtypes and index); visualize=True draws HTA's charts with plotly, as HTA, where it is installed
(else with matplotlib: plots.py)."""

import logging
import operator
import os
import re
from collections import defaultdict

import numpy as np
import pandas as pd

from . import _core
from ._errors import check_exists, trace_error

# HTA's IdleTimeType (utils/utils.py): its values in idle_category and their names.
IDLE_NAMES = {0: "host_wait", 1: "kernel_wait", 2: "other"}
# describe()'s columns, as HTA's interval statistics have them.
DESCRIBE = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
TEMPORAL = ["idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"]
PCTG = ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]
LAUNCH = ["correlation", "cpu_duration", "gpu_duration", "launch_delay"]
QUEUE_SERIES = ["ts", "pid", "tid", "stream", "queue_length"]
FULL_QUEUE = ["stream", "duration_at_max_queue_length", "relative_duration_at_max_queue_length"]
KERNEL_COLUMNS = {
    "sum": "sum (us)",
    "mean": "mean (us)",
    "max": "max (us)",
    "min": "min (us)",
    "std": "stddev",
}
# HTA's default max_queue_length (configs/config.py).
CUDA_MAX_LAUNCH_QUEUE_PER_STREAM = 1024


def _hta_symbol_ids(per_rank):
    """HTA's symbol ids: its parse makes each rank's table from set(cats) | set(names) in the
    set's iteration order, which hangs on Python's string hashing (PYTHONHASHSEED), and
    numbers the ranks' tables in rank order, first come first. Built with the same set
    operations here, so that equal figures fall to the same name as in HTA under the same
    seed."""
    ids = {}
    for cats, names, missing_at in per_rank:
        names = list(names)
        if missing_at >= 0:
            names.insert(missing_at, float("nan"))  # pandas' NaN for a row without a name
        for s in set(cats).union(set(names)):
            if s not in ids:
                ids[s] = len(ids)
    return {s: i for s, i in ids.items() if isinstance(s, str) and s.startswith("ncclKernel")}


# The errors HTA's get_potential_stragglers raises, by the name the C++ side gives.
_STRAGGLER_ERRORS = {
    "ValueError": ValueError,
    "IndexError": IndexError,
    "ZeroDivisionError": ZeroDivisionError,
}


def _instances(instance_id):
    """HTA's instance_id as (first, last): None the first, an int one, a pair a range."""
    if instance_id is None:
        return 0, 0
    if isinstance(instance_id, tuple) and len(instance_id) != 2:
        raise ValueError(f"instance_id: expected (start, end), got {instance_id!r}")
    ends = instance_id if isinstance(instance_id, tuple) else (instance_id, instance_id)
    if any(isinstance(i, bool) or not hasattr(i, "__index__") for i in ends):
        raise TypeError(f"instance_id: expected an int or (start, end), got {instance_id!r}")
    first, last = (operator.index(i) for i in ends)
    if first > last:
        raise ValueError(f"instance_id: start {first} is after end {last}")
    return first, last


def _regexes(name, patterns):
    """A list of regexes, compiled as HTA's re.search reads them (a lone string is refused: it
    would be read as one pattern per character)."""
    if patterns is None:
        return []
    if isinstance(patterns, str) or not all(isinstance(p, str) for p in patterns):
        raise TypeError(f"{name}: expected a list of regular expressions, got {patterns!r}")
    try:
        return [re.compile(p) for p in patterns]
    except re.error as e:
        raise ValueError(f"{name}: {e.pattern!r} is not a regular expression ({e})") from None


def _ranks_or_first(ranks):
    """HTA's default: rank 0 when no rank (or an empty list) is asked for."""
    return [0] if ranks is None or len(ranks) == 0 else ranks


def _numpy_scalar(value_and_dtype):
    value, dtype = value_and_dtype
    return np.dtype(dtype).type(value)


def _no_intervals():
    """describe() of a stream without kernels, as HTA's groupby makes it (no rows; pandas' own
    index and columns for that case)."""
    empty = pd.DataFrame({"idle_interval": np.empty(0), "idle_category": np.empty(0, np.int64)})
    return empty.groupby("idle_category").idle_interval.describe()


# The HTA releases whose rules TraceAnalysis follows: 0.6.1 (PyPI traceinsight) and 0.5.0
# (PyPI holistictraceanalysis), by any prefix of their version.
HTA_VERSIONS = {"0.6.1": False, "0.6": False, "0.5.0": True, "0.5": True}


class TraceAnalysis:
    """HTA's TraceAnalysis(trace_dir=...) for its temporal breakdown, idle time breakdown and
    kernel launch statistics. trace_files: {rank: path} (a path relative to trace_dir is
    taken there), as HTA's; include_last_profiler_step=True is not supported. hta_version:
    "0.6.1" (traceinsight, the current release) or "0.5.0", whose rules differ in kernel
    classes, the queue's launches and the step filter."""

    def __init__(
        self,
        trace_files=None,
        trace_dir="traces",
        include_last_profiler_step=False,
        hta_version="0.6.1",
    ):
        if str(hta_version) not in HTA_VERSIONS:
            raise ValueError(f"hta_version: expected 0.6.1 or 0.5.0, got {hta_version!r}")
        self.hta_version = "0.5.0" if HTA_VERSIONS[str(hta_version)] else "0.6.1"
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
            self._traces = _core.HtaTraces(files, rounding, HTA_VERSIONS[str(hta_version)])
        except _core.InputError as e:
            raise trace_error(e, str(paths[0]) if len(paths) == 1 else None) from None
        self.files = files
        self.ranks = sorted(self._traces.ranks)

    def _check_rank(self, rank):
        if rank not in self.ranks:
            raise KeyError(f"rank {rank} is not in the traces (ranks: {self.ranks})")

    def _memory_bw_by_rank(self, ranks):
        """(rank, the C++ bandwidth columns) for each asked rank that has copies or sets."""
        for rank in _ranks_or_first(ranks):
            self._check_rank(rank)
            m = self._traces.memory_bw(rank)
            if len(m["index"]):
                yield rank, m

    # --- get_temporal_breakdown (breakdown_analysis.py) ------------------------------------

    def get_temporal_breakdown(self, visualize=True):
        """Idle, compute and non-compute time of each rank's GPU (us), as HTA 0.5.0."""
        result = defaultdict(list)
        for row in self._traces.temporal():
            if row["error"] == "IndexError":
                raise IndexError("single positional indexer is out-of-bounds")
            if row["error"] == "AssertionError":
                raise AssertionError
            result["rank"].append(row["rank"])
            for col in TEMPORAL + PCTG:
                value = row[col]
                result[col].append(_numpy_scalar(value) if col in TEMPORAL else value)
        # HTA's frame from lists of NumPy scalars: pandas infers each column's type from them.
        df = pd.DataFrame({c: result[c] for c in ["rank", *TEMPORAL]})
        for col in PCTG:
            df[col] = np.array(result[col], dtype=np.float64)
        if visualize:
            from . import plots

            plots.temporal(df)
        return df

    # --- get_idle_time_breakdown (breakdown_analysis.py) -----------------------------------

    def _idle_for_rank(
        self, rank, streams, consecutive_kernel_delay, show_stats, visualize, visualize_pctg
    ):
        self._check_rank(rank)
        asked = list(streams) if streams is not None and len(streams) else None
        per_stream = self._traces.idle(
            rank,
            [int(s) for s in asked] if asked else [],
            float(consecutive_kernel_delay),
            bool(show_stats),
        )
        # HTA's stream values: those asked as given, else the stream column's (Series.unique).
        stream_type = np.dtype(self._traces.dtypes(rank)["stream"]).type
        results, stats = [], []
        for k, s in enumerate(per_stream):
            stream = asked[k] if asked else stream_type(s["stream"])
            index = pd.Index(s["idle_category"], name="idle_category")
            result = pd.DataFrame({"idle_time": s["idle_time"]}, index=index)
            result["stream"] = stream
            result["idle_time_ratio"] = s["idle_time_ratio"]
            results.append(result)
            if show_stats:
                st = (
                    pd.DataFrame({c: s[c] for c in DESCRIBE}, index=index)
                    if len(index)
                    else _no_intervals()
                )
                st.insert(0, "stream", stream)
                stats.append(st)
        result_df = pd.concat(results)
        result_df = result_df.rename(mapper=IDLE_NAMES, axis=0).reset_index()
        if visualize:
            from . import plots

            result_df["stream"] = result_df.stream.astype(str)  # as HTA's plot leaves it
            plots.idle(result_df, rank, visualize_pctg)
        result_df["rank"] = rank
        stats_df = pd.concat(stats) if show_stats else None
        if stats_df is not None:
            stats_df.insert(0, "rank", rank)
            stats_df = stats_df.rename(mapper=IDLE_NAMES, axis=0)
        result_df = result_df[["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]]
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
        frames, stats = [], []
        for rank in _ranks_or_first(ranks):
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
            self._check_rank(rank)
            columns = self._traces.launch_stats(rank)
            dtypes = columns["dtypes"]
            events = pd.DataFrame({c: columns[c].astype(dtypes[c]) for c in LAUNCH})
            if visualize:
                from . import plots

                plots.launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff)
            out[rank] = events
        return out

    # --- get_queue_length_summary (trace_counters.py) --------------------------------------

    def get_queue_length_summary(self, ranks=None):
        """describe() of each stream's queue length (launches queued and not yet started), per
        rank and stream, as HTA; None when no rank has a launch. Equal ts fall as numpy's sort
        leaves them on this machine, as in HTA, whose figures depend on it."""
        frames = []
        for rank in _ranks_or_first(ranks):
            self._check_rank(rank)
            q = self._traces.queue(rank, CUDA_MAX_LAUNCH_QUEUE_PER_STREAM)
            if q["error"] == "AssertionError":
                raise AssertionError
            if not len(q["stream"]):
                continue
            index = pd.MultiIndex.from_arrays(
                [np.full(len(q["stream"]), rank, np.int64), q["stream"].astype(q["stream_dtype"])],
                names=["rank", "stream"],
            )
            columns = pd.MultiIndex.from_product([["queue_length"], DESCRIBE])
            frames.append(pd.DataFrame(np.column_stack([q[c] for c in DESCRIBE]), index, columns))
        return pd.concat(frames) if frames else None

    def get_queue_length_time_series(self, ranks=None):
        """{rank: DataFrame} of each stream's queue length at every change (ts, pid, tid of the
        GPU row, stream, queue_length), indexed by the event's place in the file ("index"), as
        HTA; a rank without launches is left out."""
        out = {}
        for rank in _ranks_or_first(ranks):
            self._check_rank(rank)
            q = self._traces.queue(rank, CUDA_MAX_LAUNCH_QUEUE_PER_STREAM, series=True)
            if q["error"] == "AssertionError":
                raise AssertionError
            s = q["series"]
            if not len(s["index"]):
                continue
            types = s["dtypes"]
            index = pd.Index(s["index"].astype(types["index"]), name="index")
            columns = {
                c: np.array(s[c], dtype=object if types[c] == "object" else None).astype(types[c])
                for c in QUEUE_SERIES
            }
            out[rank] = pd.DataFrame(columns, index=index)
        return out

    def get_time_spent_blocked_on_full_queue(
        self, queue_length_dict, max_queue_length=CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
    ):
        """Per rank, the time (us) its stream spent with max_queue_length or more launches
        queued, and that time over the rank's trace duration, from
        get_queue_length_time_series' dict, as HTA (one row per rank: the last stream, in the
        series' order, that reached the length)."""
        result = {}
        for rank, ql in queue_length_dict.items():
            self._check_rank(rank)
            missing = [c for c in ("ts", "stream", "queue_length") if c not in ql.columns]
            if missing:
                raise KeyError(f"rank {rank}: the queue length series has no column {missing}")
            r = self._traces.full_queue(
                rank,
                np.ascontiguousarray(ql.index.to_numpy(dtype=np.int64)),
                np.ascontiguousarray(ql["ts"].to_numpy(dtype=np.float64)),
                np.ascontiguousarray(ql["stream"].to_numpy(dtype=np.int64)),
                np.ascontiguousarray(ql["queue_length"].to_numpy(dtype=np.int64)),
                int(max_queue_length),
            )
            if r["error"] == "IndexError":
                raise IndexError("positional indexers are out-of-bounds")
            if r["full"] is not None:
                stream, duration, relative = r["full"]
                result[rank] = [ql["stream"].dtype.type(stream), np.float64(duration), relative]
        # HTA's frame from a dict of rows: pandas infers each column's type from the scalars.
        df = pd.DataFrame.from_dict(result, orient="index", columns=FULL_QUEUE)
        return df.reset_index(names="rank")

    # --- get_gpu_kernel_breakdown (breakdown_analysis.py) ----------------------------------

    def get_gpu_kernel_breakdown(
        self,
        visualize=True,
        duration_ratio=0.8,
        num_kernels=10,
        include_memory_kernels=True,
        image_renderer="",
    ):
        """(kernel_type_df, kernel_df), as HTA: the GPU time (us) of each kernel type and of
        their overlaps over all ranks with its percentage; per rank, kernel type and kernel
        name, sum, max, min, stddev and mean of the durations (us), the kernels past
        num_kernels or past the duration_ratio quantile of the running sum grouped as
        "others". visualize draws HTA's charts (the types' pie, each kernel's mean per rank)
        with plotly, shown with image_renderer; with matplotlib (no plotly), the pie alone."""
        if not 0 <= float(duration_ratio) <= 1:  # numpy's quantile refuses it so, in HTA too
            raise ValueError("Quantiles must be in the range [0, 1]")
        b = self._traces.kernel_breakdown(
            float(duration_ratio), int(num_kernels), bool(include_memory_kernels)
        )
        if b["error"]:
            raise ValueError("Cannot convert non-finite values (NA or inf) to integer")
        # HTA's frames start empty with these types and grow by pd.concat: pandas' own
        # inference over the pieces gives the columns' types.
        kernel_df = pd.DataFrame(
            {
                "name": pd.Series(dtype="str"),
                "sum": pd.Series(dtype="int"),
                "max": pd.Series(dtype="int"),
                "min": pd.Series(dtype="int"),
                "std": pd.Series(dtype="float"),
                "mean": pd.Series(dtype="int"),
                "kernel_type": pd.Series(dtype="str"),
                "rank": pd.Series(dtype="int"),
            }
        )
        for k in b["kernels"]:
            piece = pd.DataFrame({"name": pd.Series(k["name"], dtype=k["dtypes"]["name"])})
            for c in ("sum", "max", "min", "mean", "std"):
                piece[c] = k[c].astype(k["dtypes"][c])
            piece["kernel_type"] = k["kernel_type"]
            piece["rank"] = int(k["rank"])
            kernel_df = pd.concat([kernel_df, piece], ignore_index=True)
        kernel_df = kernel_df.sort_values(by=["kernel_type", "name", "rank"], ignore_index=True)
        kernel_df = kernel_df.rename(columns=KERNEL_COLUMNS)
        kernel_type_df = pd.DataFrame(
            {"kernel_type": pd.Series(b["kernel_type"], dtype="str"), "sum": b["sum"]}
        )
        kernel_type_df["percentage"] = b["percentage"]
        if visualize:
            from . import plots

            plots.kernel_breakdown(kernel_type_df, kernel_df, image_renderer)
        return kernel_type_df, kernel_df

    # --- get_memory_bw_time_series, get_memory_bw_summary (trace_counters.py) -------------

    def get_memory_bw_time_series(self, ranks=None):
        """{rank: DataFrame} of each copy and set kind's bandwidth in use (GB/s) at every change
        (ts, pid, name, memory_bw_gbps), as HTA; a rank without copies or sets is left out."""
        out = {}
        for rank, m in self._memory_bw_by_rank(ranks):
            types = m["dtypes"]
            out[rank] = pd.DataFrame(
                {
                    "ts": m["ts"].astype(types["ts"]),
                    "pid": np.array(m["pid"], dtype=object).astype(types["pid"]),
                    "name": pd.array(m["name"], dtype="str"),
                    "memory_bw_gbps": m["memory_bw_gbps"],
                },
                index=pd.Index(m["index"]),
            )
        return out

    def get_memory_bw_summary(self, ranks=None):
        """describe() of each copy and set kind's bandwidth in use (GB/s, the times it is above
        0), per rank and kind, as HTA; None when no rank has a copy or set."""
        frames = []
        for rank, m in self._memory_bw_by_rank(ranks):
            s = m["summary"]
            if not s["name"]:  # every value 0: pandas' describe() of no rows
                empty = pd.DataFrame(
                    {
                        "rank": np.empty(0, np.int64),
                        "name": pd.array([], dtype="str"),
                        "memory_bw_gbps": np.empty(0),
                    }
                )
                frames.append(empty.groupby(["rank", "name"]).describe())
                continue
            index = pd.MultiIndex.from_arrays(
                [np.full(len(s["name"]), rank, np.int64), pd.array(s["name"], dtype="str")],
                names=["rank", "name"],
            )
            columns = pd.MultiIndex.from_product([["memory_bw_gbps"], DESCRIBE])
            frames.append(pd.DataFrame(np.column_stack([s[c] for c in DESCRIBE]), index, columns))
        return pd.concat(frames) if frames else None

    # --- get_comm_comp_overlap (communication_analysis.py) ---------------------------------

    def get_comm_comp_overlap(self, visualize=True):
        """Per rank, the % of communication kernels' time that computation kernels overlap, as
        HTA (NaN on a rank without communication)."""
        o = self._traces.comm_comp_overlap()
        df = pd.DataFrame(
            {"rank": o["rank"], "comp_comm_overlap_ratio": o["comp_comm_overlap_ratio"]}
        )
        df["comp_comm_overlap_pctg"] = o["comp_comm_overlap_pctg"]
        if visualize:
            from . import plots

            plots.comm_comp_overlap(df)
        return df[["rank", "comp_comm_overlap_pctg"]]

    # --- get_profiler_steps (straggler_analysis.py) ----------------------------------------

    def get_profiler_steps(self):
        """The step numbers N of the ProfilerStep#N ranges the loaded ranks keep (HTA's step
        filter drops the last), sorted, as HTA."""
        return [np.int64(n) for n in self._traces.profiler_steps()]

    # --- get_potential_stragglers (straggler_analysis.py, straggler.py) --------------------

    def get_potential_stragglers(self, profiler_steps=None, num_candidates=2, visualize=False):
        """The ranks most often late to start the communication kernel whose duration varies
        most across ranks, at most num_candidates, as HTA (trace/analyze/hta_straggler.h).
        Raises where HTA does: ValueError for profiler_steps none of which is a step, for no
        long ncclKernel in a step > 0 and for one rank; IndexError where an iteration has
        fewer ranks with the kernel than num_candidates; ZeroDivisionError where HTA's mean
        iteration time is 0. num_candidates below 1 counts as 1, as in HTA; one that is not an
        integer raises TypeError. visualize draws HTA's bar chart of each rank's start."""
        num_candidates = max(operator.index(num_candidates), 1)
        available = self.get_profiler_steps()
        if profiler_steps is None:
            valid = available
        else:
            valid = [i for i in profiler_steps if i in available]
        if len(valid) == 0:
            raise ValueError(
                f"invalid value for argument: profiler_steps={profiler_steps}; "
                f"available profiler steps={available}"
            )
        ids = _hta_symbol_ids(self._traces.symbol_lists())
        s = self._traces.stragglers([int(i) for i in valid], num_candidates, ids)
        if s["error_type"]:
            raise _STRAGGLER_ERRORS[s["error_type"]](s["error"])
        if visualize:
            from . import plots

            plots.stragglers(s)
        # HTA's Series of counts sorted as HTA sorts it: equal counts fall as numpy's sort
        # leaves them on this machine.
        counts = pd.Series(s["counts"], index=pd.Index(s["ranks"], name="rank"))
        return counts.sort_values(ascending=False)[:num_candidates].index.tolist()

    # --- critical_path_analysis (critical_path_analysis.py) --------------------------------

    def critical_path_analysis(self, rank, annotation, instance_id, data_load_events=None):
        """(CriticalPath, True) as HTA's (CPGraph, success): the path of the instance(s) of the
        host events named with `annotation` (instance_id: one index, or an inclusive (start,
        end); None: the first; annotation "": the whole trace), whose summary() is HTA's
        bound_by shares. data_load_events: regexes, each searched (re.search, as HTA) in the
        names of the host events cpu_bound's time is in, whose time becomes data_loading. None
        when no host event is so named, as HTA. Its path is the diagnosis' (each instant to
        what holds the step up), not HTA's longest path through its graph: docs/python.md
        gives how far the two shares differ on real traces."""
        self._check_rank(rank)
        if not isinstance(annotation, str):
            raise TypeError(f"annotation: expected a string, got {annotation!r}")
        first, last = _instances(instance_id)
        loads = _regexes("data_load_events", data_load_events)
        figures = self._traces.critical_path(rank, annotation, first, last)
        if not figures["found"]:
            logging.getLogger("iris_trace").error(
                "critical_path_analysis: no host event's name contains %r", annotation
            )
            return None
        from ._critical_path import CriticalPath

        return CriticalPath(rank, annotation, figures, loads), True
