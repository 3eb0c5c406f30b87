"""iris_trace: where the time of a PyTorch profiler (Kineto) or Nsight Systems trace went.

    from iris_trace import attribute
    result = attribute("rank-0.pt.trace.json.gz")   # a file, a folder of ranks, or a list
    print(result)                                    # ./attribute's table
    result.steps, result.blocking_calls              # DataFrames, units in the column names
    result.what_if("no-syncs:op=aten::item")         # ./attribute --what-if

HTA's interface: iris_trace.hta.TraceAnalysis. The profiler hook: iris_trace.report(dir).
The command line: iris-attribute (./attribute itself). docs/python.md has the rest."""

import os

from . import _core, _ranks
from ._errors import TraceError, check_exists, trace_error
from ._result import AttributeResult, WhatIfResult

__all__ = [
    "AttributeResult",
    "TraceAnalysis",
    "TraceError",
    "WhatIfResult",
    "attribute",
    "report",
]
__version__ = "0.1.0"


def _paths(path_or_paths):
    if isinstance(path_or_paths, (str, bytes, os.PathLike)):
        return [os.fsdecode(path_or_paths)]
    paths = [os.fsdecode(p) for p in path_or_paths]
    if not paths:
        raise ValueError("attribute: no trace given (an empty list)")
    return paths


def expand(path_or_paths):
    """The trace files that a path, folder (its *.json and *.json.gz, sorted) or list names."""
    paths = _paths(path_or_paths)
    for p in paths:
        check_exists(p)
    try:
        return _core.expand_paths(paths)
    except _core.InputError as e:
        raise trace_error(e, paths[0] if len(paths) == 1 else None) from None


def attribute(
    path_or_paths, step_range=None, *, advice=None, workers=None, max_memory=None, client=None
):
    """./attribute on a trace file, a folder of per-rank traces, or a list of either.

    step_range: as --step-range, the host ranges of that name are the steps.
    advice: as ./attribute, the replayed findings for traces under 100 MB (None); True or False
    as --advice / --no-advice.
    workers, max_memory: ranks read at once, and the memory (bytes) they may take together
    (estimated from each file's size; default: half of the available memory); a rank's
    records are dropped once its figures are made.
    client: a dask.distributed Client: each rank is read on the cluster (every worker must be
    able to read the paths, and have this package installed); the small results come back.
    Raises FileNotFoundError for a missing path and TraceError (a ValueError) for bad input."""
    files = expand(path_or_paths)
    if client is not None:

        def runner(task, fs, **kw):
            return _ranks.run_on_client(client, task, fs, **kw)

    else:

        def runner(task, fs, **kw):
            return _ranks.run_parallel(
                lambda f: task(f, **kw), fs, workers=workers, max_memory=max_memory
            )

    runs = runner(_ranks.run_rank, files, step_range=step_range or "", advice=advice)
    return AttributeResult(runs, files, step_range, runner)


def __getattr__(name):  # the optional parts import what they need only when used
    if name == "TraceAnalysis":
        from .hta import TraceAnalysis

        return TraceAnalysis
    if name == "report":
        from .profiler import report

        return report
    raise AttributeError(f"module 'iris_trace' has no attribute {name!r}")
