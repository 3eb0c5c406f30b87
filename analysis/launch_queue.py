"""The launch queue of each CUDA traced pass: bench's own counters (attr_queue_*, over every
traced epoch), or for runs that predate them, `./attribute --json` on the row's trace file
(RESULTS/queue/, experiments/trace_queue.sh: the file's few epochs). Both take, per epoch, the
GPU whose queue was empty least, and the median over epochs (src/trace/analyze/range_queue.h)."""

import json
import os
from dataclasses import dataclass

import numpy as np

REGIMES = ("launch-bound", "GPU-bound", "mixed")
# bench's counter for the share of epochs in each regime, by the regime's name in ./attribute.
REGIME_COUNTERS = {
    "launch-bound": "attr_queue_launch_bound_share",
    "GPU-bound": "attr_queue_gpu_bound_share",
    "mixed": "attr_queue_mixed_share",
}


@dataclass
class QueueRow:
    interval: int
    print100: int
    epochs: int  # epochs the figures are over (0: unknown, bench's counters do not say)
    empty_share: float  # median over epochs
    depth_p50: float
    depth_p90: float
    depth_max: int
    regimes: dict  # regime -> share of epochs
    source: str  # "bench" or the trace file's name


def _from_counters(a):
    v = a.values
    return QueueRow(
        a.interval,
        a.print100,
        int(v.get("attr_epochs", 0)),
        v["attr_queue_empty_share"],
        v["attr_queue_depth_p50"],
        v["attr_queue_depth_p90"],
        int(v["attr_queue_depth_max"]),
        {r: v.get(k, 0.0) for r, k in REGIME_COUNTERS.items()},
        "bench",
    )


def trace_name(interval, print100, batch=120):
    return f"ItemSync_cuda_interval-{interval}_print100-{print100}_batch-{batch}.trace.json"


def _from_attribute_json(a, path):
    with open(path) as f:
        doc = json.load(f)
    empty, p50, p90, dmax, regimes = [], [], [], 0, dict.fromkeys(REGIMES, 0)
    for trace in doc["traces"]:
        for step in trace["steps"]:
            if step["name"] != "epoch":
                continue
            q = step["queue"]
            regimes[q["regime"]] = regimes.get(q["regime"], 0) + 1
            gpus = [g for g in q["gpus"] if g["pieces"]]
            busiest = min(gpus, key=lambda g: g["empty_share"]) if gpus else None
            empty.append(busiest["empty_share"] if busiest else 1.0)
            p50.append(busiest["depth_p50"] if busiest else 0)
            p90.append(busiest["depth_p90"] if busiest else 0)
            dmax = max([dmax] + [g["depth_max"] for g in q["gpus"]])
    if not empty:
        return None
    n = len(empty)
    return QueueRow(
        a.interval,
        a.print100,
        n,
        float(np.median(empty)),
        float(np.median(p50)),
        float(np.median(p90)),
        dmax,
        {r: c / n for r, c in regimes.items()},
        os.path.basename(path),
    )


def queue_rows(gpu_attr, folder):
    """One QueueRow per CUDA AttributionRow that has queue figures, bench's first."""
    out = []
    for a in gpu_attr:
        if "attr_queue_empty_share" in a.values:
            out.append(_from_counters(a))
            continue
        path = os.path.join(folder, "queue", trace_name(a.interval, a.print100))
        row = _from_attribute_json(a, path) if os.path.exists(path) else None
        if row:
            out.append(row)
    return out


def regime_text(regimes):
    """'launch-bound' when every epoch was, else each regime's share."""
    held = {r: s for r, s in regimes.items() if s > 0}
    if len(held) == 1:
        return next(iter(held))
    return ", ".join(f"{r} {100 * s:.0f}%" for r, s in sorted(held.items(), key=lambda x: -x[1]))
