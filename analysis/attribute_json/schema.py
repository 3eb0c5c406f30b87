"""The fields of `./attribute --json` that the pages read, as data the reader checks a file
against (reader.check), and the version the C++ writer stamps on it.

A field's kind is one of: float (a finite number), int (a count, >= 0), bool, str, dict or list
(any object or array), ANY (present, any value), OneOf(...) (one of the listed words),
CountOr(word) (a count or that word); a dict of fields (an object holding at least those); or
[kind] (an array whose every item is of that kind)."""

import pathlib
from dataclasses import dataclass

VERSION_FILE = (
    pathlib.Path(__file__).resolve().parents[2] / "src/trace/export/attribute_json_version.txt"
)


def read_version(path=VERSION_FILE):
    """The version CMake compiles into ./attribute (src/trace/trace_lib.cmake reads the same
    file), so the writer and this reader cannot disagree on it."""
    text = pathlib.Path(path).read_text().strip()
    if not text.isdigit():
        raise RuntimeError(f"{path}: expected one line holding a whole number, got {text!r}")
    return int(text)


VERSION = read_version()
TOOL = "attribute"


class _Any:
    def __repr__(self):
        return "ANY"


ANY = _Any()


@dataclass(frozen=True)
class OneOf:
    words: tuple

    def __init__(self, *words):
        object.__setattr__(self, "words", words)


@dataclass(frozen=True)
class CountOr:
    word: str


# ---- the attribution (`./attribute --json`) -------------------------------------------------

# Per window (a ProfilerStep, or the whole trace): figures that add up over disjoint windows.
STEP_NUMBERS = (
    "wall_us",
    "launch_api_us",
    "kernel_us",
    "gpu_busy_us",
    "sync_api_us",
    "blocking_copy_us",
    "nonblocking_copy_us",
    "memcpy_api_us",
    "blocked_us",
    "host_rest_us",
    "idle_host_wait_us",
    "idle_kernel_wait_us",
    "idle_other_us",
)
STEP_COUNTS = ("launches", "kernels", "memsets", "syncs", "blocking_copies", "nonblocking_copies")
COPY_REASONS = ("not Async", "pageable")  # why a copy call held the host
KIND_SYNC = "sync"  # a listed blocking call's kind when it is a *Synchronize call

# The launch queue of a window (src/trace/analyze/launch_queue.h): each GPU's, and the regime.
REGIMES = ("launch-bound", "GPU-bound", "mixed", "no GPU work")
QUEUE_DEPTH = {
    "empty_share": float,
    "empty_us": float,
    "depth_p50": int,
    "depth_p90": int,
    "depth_max": int,
}
GPU_QUEUE = {
    **QUEUE_DEPTH,
    "device": int,
    "pieces": int,
    "full_queue_calls": int,
    "full_queue_us": float,
}
QUEUE = {"regime": OneOf(*REGIMES), "gpus": [GPU_QUEUE]}
QUEUE_RULE = {
    "max_queue": int,
    "launch_bound_empty_share": float,
    "gpu_bound_empty_share": float,
    "gpu_bound_median_depth": int,
}

WINDOW = {
    **{k: float for k in STEP_NUMBERS},
    **{k: int for k in STEP_COUNTS},
    "launch_delay_us": dict,
    "memcpy_by_kind": dict,
    "blocking_copies_by_reason": {r: {"calls": int, "us": float} for r in COPY_REASONS},
    "queue": QUEUE,
}
STEP = {**WINDOW, "name": str, "start_us": float}
BLOCKING_CALLS = {
    "syncs": int,
    "sync_us": float,
    "blocking_copies": int,
    "blocking_copy_us": float,
    "blocked_us": float,
}
CAUSE = {
    "op": str,
    "calls": int,
    "op_occurrences": int,
    "sync_us": float,
    "blocking_copy_us": float,
    "blocked_us": float,
    "share_of_steps": float,
    "gpu_queued_us": float,
    # What its calls drained and the first-order saving (src/trace/analyze/sync_drain.h).
    "queue_depth_p50": int,
    "queue_depth_max": int,
    "drained": int,
    "gpu_idle_after_us": float,
    "saving_estimate_us": float,
    "saving_estimate_by": OneOf("blocked time", "GPU idle after", "mixed", "no GPU work"),
    "regime": OneOf(*REGIMES),
}
BLOCKING_CALL = {
    "api": str,
    "kind": str,
    "start_us": float,
    "blocked_us": float,
    "gpu_queued_us": float,
    "op": ANY,  # the innermost cpu_op, or null when none encloses the call
    "queue_depth": int,
    "drained": int,
    "gpu_idle_after_us": float,
    "regime": OneOf(*REGIMES),
    # Where it was made (src/trace/analyze/call_sites.h): its row in call_sites.sites, its
    # caller frame (null without one) and its frames, outermost first.
    "site": ANY,
    "caller": ANY,
    "stack": list,
    "stack_cut": bool,
}
# A call site: blocking calls grouped by (caller, callee, op, order in the step).
SITE = {
    "site": str,
    "replayed_saving_us": ANY,  # removing it, replayed by the advice (null: not tried)
    "caller": ANY,
    "callee": ANY,
    "user_frame": ANY,
    "module": ANY,
    "op": str,
    "order": int,
    "calls": int,
    "occurrences": int,
    "gpu_queued_us": float,
    "share_of_steps": float,
    "steps": int,
    "steps_share": float,
    "apis": list,
}
CALL_SITES = {
    "stacks": OneOf("python", "native", "none"),
    "without_caller": int,
    "without_stack": int,
    "sites": [{**SITE, "blocked_us": float}],
    "gpu_work": bool,
    # A trace without GPU work: the ops that would block on a GPU, with their own host time.
    "would_sync": [{**SITE, "host_us": float}],
}
# One step's queue depth over time, per GPU (src/trace/analyze/step_report.h): depth[k] holds from
# t_us[k] to t_us[k + 1], the last to wall_us; times from the window's start.
QUEUE_TIMELINE = {
    "window": str,
    "start_us": float,
    "wall_us": float,
    "gpus": [{"device": int, "t_us": list, "depth": list, "truncated": bool}],
}
# Per kernel name, Nsight Systems' cuda_kern_exec_sum split (src/trace/analyze/kernel_times.h).
TIME_STATS = {k: float for k in ("total", "mean", "median", "min", "max")} | {"count": int}
KERNEL_TIMES = {"name": str, "api_us": TIME_STATS, "queue_us": TIME_STATS, "kernel_us": TIME_STATS}

TRACE = {
    "file": str,
    "rank": int,
    "gpu_events": bool,
    "steps": [STEP],
    "total": {
        **WINDOW,
        "queue": {**QUEUE, "streams": [{**QUEUE_DEPTH, "device": int, "stream": int}]},
    },
    "queue_rule": QUEUE_RULE,
    "queue_timeline": QUEUE_TIMELINE,
    "kernels_by_name": [KERNEL_TIMES],
    "kernels_without_call": int,
    "blocking_calls": BLOCKING_CALLS,
    "syncs_by_cause": [CAUSE],
    "call_sites": CALL_SITES,
    "advice": ANY,  # [findings] (src/trace/analyze/advice.h), or {"skipped": why}
    "syncs": [BLOCKING_CALL],
    "unmatched_correlations": int,
    "warnings": list,
}
ATTRIBUTION = {"traces": [TRACE]}

# ---- the replay (`./attribute --json --replay` or `--what-if ...`) --------------------------

BOUND = [{"resource": str, "us": float}]  # what held a window up, longest first
REPLAY_WINDOW = {
    "name": str,
    "measured_us": float,
    "replayed_us": float,
    "error": float,
    "bound": BOUND,
    # From the window before being done (host and GPU) to this one being done (what_if.h).
    "measured_pace_us": float,
    "replayed_pace_us": float,
}
WHAT_IF_WINDOW = {
    "name": str,
    "measured_us": float,
    "replayed_us": float,
    "predicted_us": float,
    "saving_us": float,
    "bound": BOUND,
    "measured_pace_us": float,
    "replayed_pace_us": float,
    "predicted_pace_us": float,
}


def scenario(window, **more):
    """A replay scenario: its windows and their total, each of the given window kind."""
    return {**more, "windows": [window], "total": window}


CHECKED_REPLAY = {"median_error": float, "max_error": float, "target_met": bool}
LOG_EVERY_POINT = {
    "every": CountOr("never"),
    "kept_per_window": float,
    "predicted_us": float,
    "extrapolated": bool,
}
LOG_EVERY = {
    "what_if": str,
    "selector": str,
    "why": str,
    "sites": int,
    "replayed_us": float,
    "never_us": float,
    "saving_per_sync_us": float,
    "blocked_per_sync_us": float,
    "queued_per_sync_us": float,
    "linear": bool,
    "points": [LOG_EVERY_POINT],
}
REPLAY = {
    "file": str,
    "rank": int,
    "windows": OneOf("steps", "whole trace"),
    "graph": dict,
    "replay": scenario(REPLAY_WINDOW, **CHECKED_REPLAY),
    "typical_delays": scenario(WHAT_IF_WINDOW, **CHECKED_REPLAY),
    "what_ifs": [scenario(WHAT_IF_WINDOW, name=str)],
    "log_every": [LOG_EVERY],
    "notes": [str],
}
REPLAYS = {"replays": [REPLAY]}
