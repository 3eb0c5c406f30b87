"""Read Google Benchmark JSON written by `bench` into plain rows, checking every field used.

A row is one repetition of one benchmark instance. Its arguments (device, interval,
print100, batch, ...) are parsed from the benchmark name, which is the record of what was
measured; counters must agree with the name where both exist.
"""

import functools
import re
from dataclasses import dataclass, field

from analysis import json_input

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NAME = re.compile(
    r"^(?P<family>[A-Za-z]\w*)/(?P<variant>[A-Za-z][\w.-]*)(?P<args>(?:/[a-z_0-9]+:-?\d+)*)"
    r"(?:/iterations:\d+)?(?:/repeats:\d+)?(?:/manual_time|/real_time)?$"
)
CONTEXT_FIELDS = (
    "torch_version",
    "cuda_runtime",
    "cuda_driver",
    "gpu_name",
    "cpu_threads_torch",
    "git_commit",
)


class BenchJsonError(ValueError):
    """Bad input: the message names the file and the field."""


@dataclass
class Row:
    source: str  # file it came from
    family: str  # ItemSync, BatchSweep, ...
    variant: str  # the part after the family: cpu, cuda, a ladder variant ...
    args: dict  # interval, print100, batch, ... (ints)
    seconds: float  # real_time of the iteration, in seconds
    counters: dict = field(default_factory=dict)
    context: dict = field(
        default_factory=dict
    )  # the run's context (threads, load, commit), shared by its rows

    @property
    def device(self):
        return self.variant

    @property
    def cpu_threads(self):
        """CPU threads the row ran on: its own counter when it has one, else the torch thread
        count its run recorded (experiments/python_eager.py wrote none before it learned to),
        else nan. Never assumed to be 1."""
        if "cpu_threads" in self.counters:
            return self.counters["cpu_threads"]
        try:
            return float(int(self.context.get("cpu_threads_torch")))
        except (TypeError, ValueError):
            return float("nan")

    @property
    def name(self):
        """The row's configuration as bench names it, without GB's suffixes:
        ItemSync/cpu/interval:0/print100:0/batch:120, Sync/after_queued/k:4."""
        return "/".join([self.family, self.variant] + [f"{k}:{v}" for k, v in self.args.items()])


@dataclass
class BenchRun:
    path: str
    context: dict
    rows: list  # measured rows (repetitions)
    skipped: list  # (name, message) of rows that did not run


# json_input.field, its errors BenchJsonError.
_field = functools.partial(json_input.field, error=BenchJsonError)


def parse_name(path, name):
    m = NAME.match(name)
    if not m:
        raise BenchJsonError(
            f"{path}: benchmark '{name}': name is not FAMILY/VARIANT/arg:value/..."
        )
    args = {}
    for part in filter(None, m.group("args").split("/")):
        k, v = part.split(":")
        args[k] = int(v)
    return m.group("family"), m.group("variant"), args


def load(path):
    """Loads one bench JSON file. Raises BenchJsonError naming the file and field."""
    doc = json_input.read_json(path, BenchJsonError, "; was the run interrupted?")
    if not isinstance(doc, dict):
        raise BenchJsonError(f"{path}: expected a Google Benchmark JSON object")
    context = _field(path, doc, "context", dict, "top level")
    for key in CONTEXT_FIELDS:
        _field(path, context, key, str, "context")
    benchmarks = _field(path, doc, "benchmarks", list, "top level")
    rows, skipped = [], []
    for i, b in enumerate(benchmarks):
        where = f"benchmarks[{i}]"
        name = _field(path, b, "name", str, where)
        where = f"benchmark '{name}'"
        if b.get("run_type", "iteration") != "iteration":
            continue  # mean/median/stddev rows: we aggregate ourselves
        if b.get("error_occurred"):
            skipped.append((name, b.get("error_message", "")))
            continue
        family, variant, args = parse_name(path, name)
        unit = _field(path, b, "time_unit", str, where)
        if unit not in UNIT_SECONDS:
            raise BenchJsonError(
                f"{path}: {where}: field 'time_unit' must be one of {sorted(UNIT_SECONDS)}, got {unit!r}"
            )
        seconds = _field(path, b, "real_time", float, where) * UNIT_SECONDS[unit]
        counters = {
            k: float(v)
            for k, v in b.items()
            if isinstance(v, (int, float))
            and not isinstance(v, bool)
            and k
            not in (
                "real_time",
                "cpu_time",
                "iterations",
                "family_index",
                "per_family_instance_index",
                "repetitions",
                "repetition_index",
                "threads",
            )
        }
        for k, v in args.items():
            if k in counters and counters[k] != v:
                raise BenchJsonError(
                    f"{path}: {where}: counter '{k}'={counters[k]} disagrees with the name ({v})"
                )
        # real_time is per iteration; our loop benchmarks run one iteration per repetition.
        rows.append(Row(path, family, variant, args, seconds, counters, context))
    return BenchRun(path, context, rows, skipped)


def require_counters(run, family, names):
    """Checks that every row of `family` carries the counters `names`."""
    for r in run.rows:
        if r.family != family:
            continue
        for n in names:
            if n not in r.counters:
                raise BenchJsonError(
                    f"{run.path}: benchmark {r.family}/{r.variant} {r.args}: missing counter '{n}'"
                )


def group(rows, *keys):
    """Groups rows by (variant, args[k] for k in keys) -> list of rows."""
    out = {}
    for r in rows:
        out.setdefault((r.variant,) + tuple(r.args.get(k) for k in keys), []).append(r)
    return out
