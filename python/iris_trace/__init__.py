"""iris_trace: where the time of a PyTorch profiler (Kineto) or Nsight Systems trace went.

    from iris_trace import attribute
    result = attribute("rank-0.pt.trace.json.gz")   # a file, a folder of ranks, or a list
    print(result)                                    # ./attribute's table
    result.steps, result.blocking_calls              # DataFrames, units in the column names
    result.what_if("no-syncs:op=aten::item")         # ./attribute --what-if
    diff("a.json.gz", "b.json.gz").table             # ./attribute --diff A B

HTA's interface: iris_trace.hta.TraceAnalysis. The profiler hook: iris_trace.report(dir).
The command line: iris-attribute (./attribute itself). docs/python.md has the rest."""

import os

from . import _core, _ranks
from ._errors import TraceError, check_exists, trace_error
from ._result import AttributeResult, DiffResult, HtaResult, WhatIfResult, result_of

__all__ = [
    "AttributeResult",
    "DiffResult",
    "HtaResult",
    "TraceAnalysis",
    "TraceError",
    "WhatIfResult",
    "attribute",
    "diff",
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
    path_or_paths,
    step_range=None,
    *,
    step_starts=None,
    step_every=None,
    advice=None,
    hta=False,
    hta_no_rounding=False,
    hta_max_queue=None,
    replay=False,
    what_if=None,
    json=None,
    html=None,
    diff=False,
    workers=None,
    max_memory=None,
    client=None,
):
    """./attribute on a trace file, a folder of per-rank traces, or a list of either. Each
    keyword is the flag of the same name (./attribute --help; docs/trace-tool.md):

    step_range, step_starts, step_every: what a step is (--step-range, --step-starts,
    --step-every). advice: None as ./attribute (traces under 100 MB), True or False as --advice
    / --no-advice. hta, hta_no_rounding, hta_max_queue: HTA's figures (an HtaResult); hta="0.5"
    or "0.6" is --hta=0.5 or --hta=0.6 (True: the current release, 0.6.1).
    replay, what_if (a spec or a list): the replay (a WhatIfResult). json, html: files to write
    as --json and --html do (atomically). diff: the two traces given side by side (--diff A B; a
    DiffResult; iris_trace.diff(a, b) says the same), what_if then replayed from the first.
    workers, max_memory: ranks read at once, and the memory (bytes) they may take together
    (estimated from each file's size; default: half of the available memory); a rank's
    records are dropped once its figures are made.
    client: a dask.distributed Client: each rank is read on the cluster (every worker must be
    able to read the paths, and have this package installed); the small results come back.
    Raises FileNotFoundError for a missing path, TraceError (a ValueError) for bad input and
    ValueError for options that do not go together."""
    files = expand(path_or_paths)
    options = {  # RunOptions' own names (trace/run/run.h)
        "step_range": step_range or "",
        "step_starts": step_starts or "",
        "hta": bool(hta),
        "hta_version": hta if isinstance(hta, str) else "",
        "hta_no_rounding": bool(hta_no_rounding),
        "replay": bool(replay),
        "what_if": [what_if] if isinstance(what_if, str) else list(what_if or ()),
        "advice": -1 if advice is None else int(bool(advice)),
        "html": html is not None,
        "diff": bool(diff),
    }
    for key, value in (("step_every", step_every), ("hta_max_queue", hta_max_queue)):
        if value is not None:
            options[key] = int(value)
    wrong = _core.check_options(files, options)
    if wrong:
        raise ValueError(f"attribute: {wrong}")
    if client is not None:

        def runner(task, fs, **kw):
            return _ranks.run_on_client(client, task, fs, **kw)

    else:

        def runner(task, fs, **kw):
            return _ranks.run_parallel(
                lambda f: task(f, **kw), fs, workers=workers, max_memory=max_memory
            )

    if diff or hta or hta_no_rounding or hta_max_queue is not None or html is not None:
        whole = _ranks.run_files(files, {**options, "frames": True})  # every input in one run
        runs = whole["ranks"]
    else:
        whole = None
        runs = runner(_ranks.run_rank, files, options={**options, "frames": True})
    result = result_of(options, runs, files, runner, whole)
    if json is not None:
        result.save_json(json)
    if html is not None:
        result.save_html(html)
    return result


def diff(a, b, step_range=None, *, step_starts=None, step_every=None, what_if=None, json=None):
    """./attribute --diff A B: two traces of one program side by side, as a DiffResult (its
    .table: every section's figures of A beside B's, B - A and B / A; .predictions: each
    what_if replayed from A beside B's measurement). The step keywords apply to both traces.
    Raises TraceError naming both files for two different programs, or for no common steps
    when steps are asked for."""
    return attribute(
        [a, b],
        step_range,
        step_starts=step_starts,
        step_every=step_every,
        what_if=what_if,
        json=json,
        diff=True,
    )


def __getattr__(name):  # the optional parts import what they need only when used
    if name == "TraceAnalysis":
        from .hta import TraceAnalysis

        return TraceAnalysis
    if name == "report":
        from .profiler import report

        return report
    raise AttributeError(f"module 'iris_trace' has no attribute {name!r}")
