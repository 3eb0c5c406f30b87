"""What attribute() returns: ./attribute's figures for one or many ranks, as its text (str()),
its JSON (.json) and pandas DataFrames with units in the column names."""

import json as _json

import pandas as pd

from . import _core, _tables
from ._atomic_write import write_atomic  # analysis/atomic_write.py, installed by CMake

TABLES = (
    "steps",
    "blocking_calls",
    "syncs_by_cause",
    "call_sites",
    "would_sync",
    "copies",
    "idle",
    "launch_delays",
    "kernels",
)


class Result:
    """One run of ./attribute over the traces, one entry per rank (file): str() is its text,
    .json its --json document byte for byte, .html its --html page (when asked)."""

    def __init__(self, options, runs, files, runner=None, whole=None):
        self._options = options
        self._runs = list(runs)
        self._whole = whole  # the run over every file at once, when it was one
        self.files = [str(f) for f in files]
        self._runner = runner  # runs a per-file task the way these were read (threads, Dask)
        self._frames = {}
        ranks = [r["rank"] for r in self._runs]
        # A rank is the trace's distributedInfo.rank when the files have distinct ones, else the
        # file's position (single-process traces all say rank 0).
        self.ranks = ranks if len(set(ranks)) == len(ranks) else list(range(len(ranks)))

    def __str__(self):
        text = self._whole["text"] if self._whole else "".join(r["text"] for r in self._runs)
        return text.removesuffix("\n")

    def __repr__(self):
        more = " ..." if len(self.files) > 3 else ""
        return f"<{type(self).__name__}: {len(self._runs)} trace(s): {', '.join(self.files[:3])}{more}>"

    @property
    def json(self):
        """./attribute --json's output, byte for byte (a final newline included)."""
        if self._whole:
            return self._whole["json"]
        return _core.document_json(self._options, [r["json"] for r in self._runs])

    @property
    def html(self):
        """./attribute --html's page ("" unless attribute() was given html=)."""
        return self._whole["html"] if self._whole else ""

    def to_dict(self):
        return _json.loads(self.json)

    def save_json(self, path):
        write_atomic(path, self.json)

    def save_html(self, path):
        write_atomic(path, self.html)

    def _table(self, name):
        if name not in self._frames:
            self._frames[name] = _tables.concat(
                [_tables.frame(r["tables"][name], rank) for r, rank in zip(self._runs, self.ranks)]
            )
        return self._frames[name]


class AttributeResult(Result):
    """./attribute's attribution. Each table (steps, blocking_calls, syncs_by_cause,
    call_sites, would_sync, copies, idle, launch_delays, kernels) is a DataFrame with a leading
    `rank` column; cross_rank and waits_for compare the ranks' steps."""

    steps = property(lambda self: self._table("steps"), doc="per step and whole trace")
    blocking_calls = property(
        lambda self: self._table("blocking_calls"), doc="every blocking call, in time order"
    )
    syncs_by_cause = property(
        lambda self: self._table("syncs_by_cause"), doc="blocking calls by the op that issued them"
    )
    call_sites = property(
        lambda self: self._table("call_sites"),
        doc="blocking calls by call site (traces with stacks: torch.profiler with_stack=True)",
    )
    would_sync = property(
        lambda self: self._table("would_sync"),
        doc="a trace without GPU work: the ops that would block on a GPU, by call site",
    )
    copies = property(lambda self: self._table("copies"), doc="copies per step and kind")
    idle = property(lambda self: self._table("idle"), doc="GPU idle time per step, by cause")
    launch_delays = property(
        lambda self: self._table("launch_delays"), doc="launch delay distribution per step"
    )
    kernels = property(lambda self: self._table("kernels"), doc="API, queue, kernel time per name")

    @property
    def cross_rank(self):
        """Per step name: the slowest rank and the spread of wall time across ranks."""
        s = self.steps
        s = s[~s["is_total"]]
        if s.empty:
            return pd.DataFrame(
                columns=[
                    "step",
                    "ranks",
                    "slowest_rank",
                    "slowest_wall_us",
                    "fastest_wall_us",
                    "spread_us",
                ]
            )
        g = s.groupby("step", observed=True, sort=False)
        slowest = s.loc[g["wall_us"].idxmax()]
        out = pd.DataFrame(
            {
                "step": slowest["step"].astype(str).to_numpy(),
                "ranks": g["rank"].nunique().to_numpy(),
                "slowest_rank": slowest["rank"].to_numpy(),
                "slowest_wall_us": slowest["wall_us"].to_numpy(),
                "fastest_wall_us": g["wall_us"].min().to_numpy(),
            }
        )
        out["spread_us"] = out["slowest_wall_us"] - out["fastest_wall_us"]
        return out

    @property
    def waits_for(self):
        """The rank that is slowest in the most steps (the one every step waits for), or None
        with one rank or no steps. Ties: the lowest rank."""
        c = self.cross_rank
        if len(self._runs) < 2 or c.empty:
            return None
        counts = c["slowest_rank"].value_counts()
        best = counts.max()
        return int(min(r for r, n in counts.items() if n == best))

    def what_if(self, spec):
        """./attribute --what-if SPEC on the same traces (read again: their records were
        dropped); spec is one string or a list of them."""
        from . import _ranks

        specs = [spec] if isinstance(spec, str) else list(spec)
        options = {**self._options, "replay": True, "what_if": specs, "html": False}
        wrong = _core.check_options(self.files, options)  # ValueError for a bad spec, first
        if wrong:
            raise ValueError(f"attribute: {wrong}")
        runs = self._runner(_ranks.run_rank, self.files, options={**options, "frames": True})
        return WhatIfResult(options, runs, self.files, self._runner)


class WhatIfResult(Result):
    """./attribute --what-if's answer: .windows a DataFrame of every scenario's measured,
    replayed and predicted window (us); .specs the what-ifs as ./attribute echoes them."""

    @property
    def specs(self):
        return self.to_dict()["what_if"]

    @property
    def windows(self):
        return self._table("windows")


class HtaResult(Result):
    """./attribute --hta's answer: HTA 0.5.0's figures of every rank as text and JSON (its
    DataFrames: iris_trace.hta.TraceAnalysis)."""


class DiffResult(Result):
    """./attribute --diff A B's answer: str() its tables, .json its document; .table every
    section's rows (section, item, figure, a, b, diff = B - A, ratio = B / A), one section each
    as .section(name) ("steps", "summary", "syncs by call site", "copies by kind", "kernels by
    name", "idle by cause", "classes"); .predictions each what-if replayed from A beside B."""

    @property
    def table(self):
        return _tables.frame(self._whole["tables"]["diff_rows"])

    @property
    def predictions(self):
        return _tables.frame(self._whole["tables"]["diff_predictions"])

    def section(self, name):
        t = self.table
        return t[t["section"] == name].drop(columns="section").reset_index(drop=True)


def result_of(options, runs, files, runner=None, whole=None):
    """The result class of the report the options ask for."""
    if options.get("diff"):
        return DiffResult(options, runs, files, runner, whole)
    if options["hta"] or options["hta_no_rounding"] or "hta_max_queue" in options:
        return HtaResult(options, runs, files, runner, whole)
    if options["replay"] or options["what_if"]:
        return WhatIfResult(options, runs, files, runner, whole)
    return AttributeResult(options, runs, files, runner, whole)
