"""Figures computed from `./attribute --json` documents, read through the iris_trace package:
the steps a plot draws, the launch queue's cases for the index, the totals the blocking calls
must add up to, and what one blocking sync cost (the main report's figure too)."""

from dataclasses import dataclass

import numpy as np

from analysis.fit import ols

KIND_SYNC = "sync"  # a listed blocking call that is a *Synchronize (not a blocking copy)
LAUNCH_BOUND, GPU_BOUND = "launch-bound", "GPU-bound"  # the regimes the queue figure sets apart
GPU_SPLIT = ("gpu_busy_us", "idle_host_wait_us", "idle_kernel_wait_us", "idle_other_us")


def load_attribution(path):
    """One `./attribute --json` file, checked against the library's declaration of its fields
    (iris_trace.TraceError, a ValueError naming the file and the field, when it differs).
    Imported here, not with the module: the GPU machine's report runs without the package."""
    from iris_trace import schema

    return schema.load(path, expect="document")


def step_rows(trace):
    """The steps to plot: the ProfilerStep windows, or the whole trace when it has none."""
    if trace["steps"]:
        return [(s["name"], s) for s in trace["steps"]]
    return [("whole trace", trace["total"])]


def host_other_us(s):
    """Host time of the step outside launch calls, syncs and blocking copies; negative when calls
    on several threads overlap (the bars then show 0)."""
    return s["host_rest_us"]


def gpu_unaccounted_us(s):
    """Step wall time the GPU split does not cover (0 when busy + idle add up to the wall)."""
    return max(s["wall_us"] - sum(s[k] for k in GPU_SPLIT), 0.0)


def busiest_gpu(queue):
    """The GPU a window's regime is read from: the one whose queue was empty the least (None
    when no GPU held work)."""
    return min(queue["gpus"], key=lambda g: g["empty_share"], default=None)


def timeline_gpus(trace):
    """The GPUs of the trace's `queue_timeline` that have change points; [] when it has none
    (no GPU work), and then no queue plot is drawn."""
    return [g for g in (trace.get("queue_timeline") or {}).get("gpus", []) if g["t_us"]]


def queue_cases(entries):
    """The two traces the queue figure sets side by side, ((stem, trace) deep, (stem, trace)
    empty): the GPU-bound trace whose busiest queue was deepest (median, then p90, then max) and
    the launch-bound one whose busiest queue was empty the most; among traces with a timeline.
    None when either regime is missing."""

    def of(regime):
        return [
            (stem, t)
            for stem, t in entries
            if t["total"]["queue"]["regime"] == regime
            and busiest_gpu(t["total"]["queue"])
            and timeline_gpus(t)
        ]

    def depth(entry):
        g = busiest_gpu(entry[1]["total"]["queue"])
        return (g["depth_p50"], g["depth_p90"], g["depth_max"])

    def empty(entry):
        return busiest_gpu(entry[1]["total"]["queue"])["empty_share"]

    deep, starved = of(GPU_BOUND), of(LAUNCH_BOUND)
    if not deep or not starved:
        return None
    return max(deep, key=depth), max(starved, key=empty)


class TablesDoNotAddUp(ValueError):
    """A document whose blocking calls do not add up to the totals beside them."""


def check_adds_up(rows, total, what, tol_us=0.01):
    if abs(sum(rows) - total) > tol_us * max(1, len(rows)):
        raise TablesDoNotAddUp(f"{what}: the rows add up to {sum(rows)}, the total is {total}")


def check_blocking_totals(trace):
    """The causes' and the listed calls' blocked time add up to the trace's blocking totals."""
    causes, totals = trace["syncs_by_cause"], trace["blocking_calls"]
    if not causes:
        return  # nothing listed, nothing to add up
    for key in ("sync_us", "blocking_copy_us", "blocked_us"):
        check_adds_up(
            [c[key] for c in causes], totals[key], f"{trace['file']}: syncs_by_cause {key}"
        )
    check_adds_up(
        [s["blocked_us"] for s in trace["syncs"]], totals["blocked_us"], f"{trace['file']}: syncs"
    )


def median_sync_us(trace):
    """Median host time blocked per synchronisation call, None when the trace lists none."""
    per = [s["blocked_us"] for s in trace["syncs"] if s["kind"] == KIND_SYNC]
    return float(np.median(per)) if per else None


IDLE_QUEUED_US = 1.0  # below this much queued GPU work, a sync's cost is the sync itself
MIN_FIT_N = 5  # a straight line through 3 or 4 calls says nothing (its slope swings with one call)


@dataclass
class SyncCost:
    """What one blocking sync cost: over the listed syncs of one or more traces."""

    n: int
    sources: list
    median_blocked_us: float
    mean_blocked_us: float
    p90_blocked_us: float
    idle_n: int = 0  # syncs with (almost) no GPU work queued: gpu_queued_us < IDLE_QUEUED_US
    idle_median_blocked_us: float = float("nan")
    fit: object = None  # analysis.fit.Fit of blocked_us = base_us + per_queued_us * gpu_queued_us
    too_few_for_fit: bool = False  # under MIN_FIT_N calls
    one_queue_length: bool = False  # every sync had the same GPU work queued

    def base_us(self):
        return self.fit.value("base_us") if self.fit else float("nan")

    def per_queued(self):
        return self.fit.value("per_queued_us") if self.fit else float("nan")


def sync_cost(docs):
    """Host time per synchronisation call and how it grows with the GPU work queued ahead of it.

    docs: (name, attribute document) pairs. Over the listed calls of kind "sync" (blocking copies
    are not syncs: their host time is also the copy itself). Fits blocked_us = base_us +
    per_queued_us x gpu_queued_us by least squares, with 95% intervals, when there are at least
    MIN_FIT_N calls: base_us is what a sync costs the host with nothing queued, per_queued_us how
    many microseconds of host time each microsecond of queued GPU work adds (1 when the host
    simply waits it out). Returns None when no sync is listed."""
    blocked, queued, sources = [], [], []
    for name, doc in docs:
        n0 = len(blocked)
        for t in doc["traces"]:
            for s in t["syncs"]:
                if s["kind"] != KIND_SYNC:
                    continue
                blocked.append(s["blocked_us"])
                queued.append(s["gpu_queued_us"])
        if len(blocked) > n0:
            sources.append(f"{name} ({len(blocked) - n0})")
    if not blocked:
        return None
    b = np.asarray(blocked, float)
    q = np.asarray(queued, float)
    cost = SyncCost(
        len(b), sources, float(np.median(b)), float(b.mean()), float(np.percentile(b, 90))
    )
    idle = b[q < IDLE_QUEUED_US]
    cost.idle_n = int(idle.size)
    if idle.size:
        cost.idle_median_blocked_us = float(np.median(idle))
    if len(b) < MIN_FIT_N:
        cost.too_few_for_fit = True
    elif np.ptp(q) == 0:
        cost.one_queue_length = True
    else:
        cost.fit = ols(np.column_stack([np.ones_like(q), q]), b, ["base_us", "per_queued_us"])
    return cost
