"""What torch.compile did, from torch's own counters: the frames Dynamo compiled, its recompiles
(a cached graph's guard failed) with their reasons, the graphs and graph breaks (with theirs),
Inductor's CUDA-graph skips (with the reason it logs for each), and the CUDA graphs captured
and replayed.

Dynamo and Inductor count in torch._dynamo.utils.counters, Dynamo keeps each guard failure in
torch._dynamo.utils.guard_failures; CUDA graph replays and captures are
counted here, at torch.cuda.CUDAGraph's replay and capture_begin, through which torch.compile's
CUDA graph trees (mode="reduce-overhead") run every graph. experiments/torch_compile.py takes a
snapshot before and after each phase and records the differences in its rows.
"""

from collections import Counter

import torch
from torch._dynamo.utils import counters, guard_failures

_graph_calls = {"replay": 0, "capture_begin": 0}
_skip_reasons = []
_installed = False


def install():
    """Starts counting graph replays and captures, and keeping Inductor's skip reasons (it logs
    each one, on a logger that is silent unless TORCH_LOGS names it, before it bumps
    counters["inductor"]["cudagraph_skips"]). Once per process."""
    global _installed
    if _installed:
        return
    _installed = True
    for method in _graph_calls:
        original = getattr(torch.cuda.CUDAGraph, method)

        def counted(self, *args, _original=original, _method=method, **kwargs):
            _graph_calls[_method] += 1
            return _original(self, *args, **kwargs)

        setattr(torch.cuda.CUDAGraph, method, counted)
    from torch._inductor import cudagraph_utils

    log = cudagraph_utils.cudagraphs_log
    warning = log.warning

    def kept(msg, *args, **kwargs):
        _skip_reasons.append(str(msg) % args if args else str(msg))
        return warning(msg, *args, **kwargs)

    log.warning = kept


def snapshot():
    """The counts now; two snapshots' difference is what happened between them."""
    return {
        "frames": counters["frames"]["total"],
        "guard_failures": Counter(r for v in guard_failures.values() for r in v),
        "graphs": counters["stats"]["unique_graphs"],
        "graph_breaks": dict(counters["graph_break"]),
        "cudagraph_skips": counters["inductor"]["cudagraph_skips"],
        "skip_reasons": len(_skip_reasons),
        "replays": _graph_calls["replay"],
        "captures": _graph_calls["capture_begin"],
    }


def difference(before, after):
    """What happened between two snapshots, as a row's fields: numbers the analysis can read,
    and the reasons as lists of one-line strings."""
    breaks = {
        k: v - before["graph_breaks"].get(k, 0)
        for k, v in after["graph_breaks"].items()
        if v > before["graph_breaks"].get(k, 0)
    }
    reasons = _skip_reasons[before["skip_reasons"] : after["skip_reasons"]]
    # torch._dynamo.reset() empties guard_failures: what is gone is not counted.
    failed = after["guard_failures"] - before["guard_failures"]
    return {
        "dynamo_frames": float(after["frames"] - before["frames"]),
        "recompiles": float(sum(failed.values())),
        "recompile_reasons": sorted({str(r).strip().splitlines()[0] for r in failed}),
        "unique_graphs": float(after["graphs"] - before["graphs"]),
        "graph_breaks": float(sum(breaks.values())),
        "graph_break_reasons": sorted({k.strip().splitlines()[0] for k in breaks}),
        "cudagraph_skips": float(after["cudagraph_skips"] - before["cudagraph_skips"]),
        "cudagraph_skip_reasons": sorted({r.strip().splitlines()[0] for r in reasons}),
        "cuda_graph_replays": float(after["replays"] - before["replays"]),
        "cuda_graph_captures": float(after["captures"] - before["captures"]),
    }
