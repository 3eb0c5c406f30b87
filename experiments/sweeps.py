"""The sweeps of experiments/sweeps.toml: read, checked, and turned into what each user needs.

    python3 -m experiments.sweeps flags FAMILY [--profile gpu]   the family's flags, one a line
    python3 -m experiments.sweeps get FAMILY.KEY [--profile gpu] one value (a list as 1,2,3)
    python3 -m experiments.sweeps header OUT                     bench's defaults as a C++ header

FAMILY is item_sync, batch_sweep, ladder, rung_sweep, primitives, paired (bench's flags), python_eager
or torch_compile (their scripts' flags). The environment variables of the file's [env] table
replace the values they name (after the profile), as scripts/reproduce.sh documents.
Standard library only (Python >= 3.11 for tomllib): CMake runs it at build time, scripts/common.sh
with the system python3.
"""

import argparse
import os
import pathlib
import sys
import tomllib

from analysis.atomic_write import write_atomic

SWEEPS_TOML = pathlib.Path(__file__).resolve().parent / "sweeps.toml"

# family -> key -> kind: "int" (>= 0), "pos" (>= 1), "ints" (a non-empty list of ints >= 0),
# "posints" (of ints >= 1), "secs" (a number > 0).
SCHEMA = {
    "item_sync": {
        "epochs": "pos",
        "intervals": "ints",
        "print100": "ints",
        "batches": "posints",
        "repetitions": "pos",
        "trace_epochs": "int",
    },
    "batch_sweep": {
        "epochs": "pos",
        "intervals": "ints",
        "batches": "posints",
        "repetitions": "pos",
    },
    "ladder": {"epochs": "pos", "repetitions": "pos"},
    "rung_sweep": {"epochs": "pos", "batches": "posints", "repetitions": "pos"},
    "primitives": {"min_time_s": "secs", "repetitions": "pos"},
    "python_eager": {"epochs": "pos", "repetitions": "pos"},
    "torch_compile": {
        "epochs": "pos",
        "repetitions": "pos",
        "batches": "posints",
        "sweep_epochs": "pos",
    },
    "paired": {
        "epochs": "pos",
        "replay_intervals": "ints",
        "batch_epochs": "pos",
        "batches": "posints",
        "rel_target": "secs",
        "diff_target_us": "secs",
        "max_s": "secs",
        "min_rounds": "pos",
    },
    "held_out": {"interval": "pos", "batch": "pos"},
}
PROFILES = ("gpu",)
FLAG_FAMILIES = [f for f in SCHEMA if f != "held_out"]  # held_out names rows, it runs none


class SweepError(ValueError):
    pass


def _check(where, kind, value):
    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    if kind in ("int", "pos"):
        lo = 0 if kind == "int" else 1
        if is_int(value) and value >= lo:
            return value
        raise SweepError(f"{where}: expected an integer >= {lo}, got {value!r}")
    if kind in ("ints", "posints"):
        lo = 0 if kind == "ints" else 1
        if isinstance(value, str):  # from the environment: 1,2,3
            try:
                value = [int(x) for x in value.split(",")]
            except ValueError:
                raise SweepError(f"{where}: expected a list of integers, got {value!r}") from None
        if isinstance(value, list) and value and all(is_int(v) and v >= lo for v in value):
            if len(set(value)) != len(value):
                raise SweepError(f"{where}: a value is listed twice in {value}")
            return value
        raise SweepError(f"{where}: expected a non-empty list of integers >= {lo}, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return value
    raise SweepError(f"{where}: expected a number of seconds > 0, got {value!r}")


def _from_env(kind, text, where):
    if kind in ("int", "pos"):
        try:
            return int(text)
        except ValueError:
            raise SweepError(f"{where}: expected an integer, got {text!r}") from None
    if kind == "secs":
        try:
            return float(text)
        except ValueError:
            raise SweepError(f"{where}: expected a number of seconds, got {text!r}") from None
    return text  # a list: _check parses it


def _apply(sweeps, path, family, values, origin):
    for key, value in values.items():
        kind = SCHEMA[family].get(key)
        if kind is None:
            raise SweepError(
                f"{path}: {origin}{family}.{key}: unknown key; expected one of "
                f"{', '.join(SCHEMA[family])}"
            )
        sweeps[family][key] = _check(f"{path}: {origin}{family}.{key}", kind, value)


def load(path=SWEEPS_TOML, profile=None, environ=None):
    """The sweeps as {family: {key: value}}, checked; profile's changes and then the [env]
    variables set in environ (None: none) applied."""
    path = pathlib.Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SweepError(f"{path}: cannot read the sweeps: {e}") from None
    known = set(SCHEMA) | {"env", *PROFILES}
    for name in raw:
        if name not in known:
            raise SweepError(f"{path}: unknown table [{name}]; expected {', '.join(sorted(known))}")
    sweeps = {}
    for family, keys in SCHEMA.items():
        table = raw.get(family)
        if not isinstance(table, dict):
            raise SweepError(f"{path}: no [{family}] table")
        sweeps[family] = {}
        _apply(sweeps, path, family, table, "")  # an unknown key (a typo) first
        missing = [k for k in keys if k not in table]
        if missing:
            raise SweepError(f"{path}: [{family}] lacks {', '.join(missing)}")
    if profile is not None:
        if profile not in PROFILES:
            raise SweepError(f"profile {profile!r}: expected one of {', '.join(PROFILES)}")
        for family, values in raw.get(profile, {}).items():
            if family not in SCHEMA or not isinstance(values, dict):
                raise SweepError(f"{path}: [{profile}.{family}]: not a family of the file")
            _apply(sweeps, path, family, values, f"[{profile}] ")
    for var, targets in raw.get("env", {}).items():
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise SweepError(f"{path}: [env] {var}: expected a list of 'family.key'")
        for target in targets:
            family, _, key = target.partition(".")
            if key not in SCHEMA.get(family, {}):
                raise SweepError(f"{path}: [env] {var}: {target!r} is not a family.key of the file")
            if environ and environ.get(var, "") != "":
                where = f"environment {var} (for {target})"
                value = _from_env(SCHEMA[family][key], environ[var], where)
                sweeps[family][key] = _check(where, SCHEMA[family][key], value)
    held = sweeps["held_out"]
    if held["interval"] not in sweeps["item_sync"]["intervals"]:
        raise SweepError(
            f"{path}: held_out.interval {held['interval']} is not an item_sync interval"
        )
    if held["batch"] not in sweeps["batch_sweep"]["batches"]:
        raise SweepError(f"{path}: held_out.batch {held['batch']} is not a batch_sweep batch")
    p = sweeps["paired"]
    if held["batch"] not in p["batches"]:
        raise SweepError(f"{path}: held_out.batch {held['batch']} is not a paired batch")
    if p["min_rounds"] < 2:
        raise SweepError(f"{path}: paired.min_rounds must be >= 2 (an interval needs two)")
    return sweeps


def _csv(values):
    return ",".join(str(v) for v in values)


def flags(sweeps, family):
    """The command-line flags that run one family as the file says."""
    s = sweeps[family]
    reps = f"--benchmark_repetitions={s.get('repetitions', 1)}"
    interleave = "--benchmark_enable_random_interleaving=true"
    if family == "item_sync":
        return [
            "--benchmark_filter=^ItemSync/",
            f"--epochs={s['epochs']}",
            f"--intervals={_csv(s['intervals'])}",
            f"--print100={_csv(s['print100'])}",
            f"--batches={_csv(s['batches'])}",
            reps,
            interleave,
            f"--trace_epochs={s['trace_epochs']}",
        ]
    if family == "batch_sweep":
        return [
            "--benchmark_filter=^BatchSweep/",
            f"--sweep_epochs={s['epochs']}",
            f"--sweep_intervals={_csv(s['intervals'])}",
            f"--sweep_batches={_csv(s['batches'])}",
            reps,
            interleave,
        ]
    if family == "ladder":  # with the FMA peak in the same interleaved run: ratios under one load
        return [
            "--benchmark_filter=^(Ladder|Peak)/",
            f"--ladder_epochs={s['epochs']}",
            reps,
            interleave,
        ]
    if family == "rung_sweep":
        return [
            "--benchmark_filter=^RungSweep/",
            f"--rung_sweep_epochs={s['epochs']}",
            f"--rung_sweep_batches={_csv(s['batches'])}",
            reps,
            interleave,
        ]
    if family == "primitives":
        return [
            "--benchmark_filter=^(Dispatch|KernelLaunch|Sync|Memcpy)/",
            f"--benchmark_min_time={s['min_time_s']}",
            reps,
        ]
    if family == "paired":
        return [
            "--benchmark_filter=^Paired/",
            f"--paired_epochs={s['epochs']}",
            f"--paired_intervals={_csv(s['replay_intervals'])}",
            f"--held_out_interval={sweeps['held_out']['interval']}",
            f"--paired_batch_epochs={s['batch_epochs']}",
            f"--paired_batches={_csv(s['batches'])}",
            f"--paired_rel_target={s['rel_target']}",
            f"--paired_diff_us={s['diff_target_us']}",
            f"--paired_max_s={s['max_s']}",
            f"--paired_min_rounds={s['min_rounds']}",
        ]
    if family == "python_eager":
        return ["--epochs", str(s["epochs"]), "--repetitions", str(s["repetitions"])]
    if family == "torch_compile":
        return [
            "--epochs",
            str(s["epochs"]),
            "--repetitions",
            str(s["repetitions"]),
            "--batches",
            _csv(s["batches"]),
            "--sweep-epochs",
            str(s["sweep_epochs"]),
        ]
    raise SweepError(f"{family!r} has no flags; expected one of {', '.join(FLAG_FAMILIES)}")


def header(sweeps):
    """bench's defaults (benchmarks/bench_options.h includes this)."""

    def vec(values):
        return "{" + ", ".join(str(v) for v in values) + "}"

    i, b, r = sweeps["item_sync"], sweeps["batch_sweep"], sweeps["rung_sweep"]
    p = sweeps["paired"]
    lines = [
        "// Generated by experiments/sweeps.py from experiments/sweeps.toml: edit that file.",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <vector>",
        "",
        "namespace bench::sweep_defaults {",
        f"inline constexpr int64_t kItemSyncEpochs = {i['epochs']};",
        f"inline const std::vector<int64_t> kItemSyncIntervals = {vec(i['intervals'])};",
        f"inline const std::vector<int64_t> kItemSyncPrint100 = {vec(i['print100'])};",
        f"inline const std::vector<int64_t> kItemSyncBatches = {vec(i['batches'])};",
        f"inline constexpr int64_t kBatchSweepEpochs = {b['epochs']};",
        f"inline const std::vector<int64_t> kBatchSweepIntervals = {vec(b['intervals'])};",
        f"inline const std::vector<int64_t> kBatchSweepBatches = {vec(b['batches'])};",
        f"inline constexpr int64_t kLadderEpochs = {sweeps['ladder']['epochs']};",
        f"inline constexpr int64_t kRungSweepEpochs = {r['epochs']};",
        f"inline const std::vector<int64_t> kRungSweepBatches = {vec(r['batches'])};",
        f"inline constexpr int64_t kPairedEpochs = {p['epochs']};",
        f"inline const std::vector<int64_t> kPairedIntervals = {vec(p['replay_intervals'])};",
        f"inline constexpr int64_t kHeldOutInterval = {sweeps['held_out']['interval']};",
        f"inline constexpr int64_t kPairedBatchEpochs = {p['batch_epochs']};",
        f"inline const std::vector<int64_t> kPairedBatches = {vec(p['batches'])};",
        f"inline constexpr double kPairedRelTarget = {float(p['rel_target'])!r};",
        f"inline constexpr double kPairedDiffTargetUs = {float(p['diff_target_us'])!r};",
        f"inline constexpr double kPairedMaxS = {float(p['max_s'])!r};",
        f"inline constexpr int64_t kPairedMinRounds = {p['min_rounds']};",
        "}  // namespace bench::sweep_defaults",
        "",
    ]
    return "\n".join(lines)


def write_header(path, text):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text() == text:
        return  # unchanged: nothing that includes it rebuilds
    write_atomic(path, text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(SWEEPS_TOML), help="the sweeps file [%(default)s]")
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("flags", help="a family's flags, one a line")
    f.add_argument("family", choices=FLAG_FAMILIES)
    f.add_argument("--profile", choices=PROFILES)
    g = sub.add_parser("get", help="one value")
    g.add_argument("key", metavar="FAMILY.KEY")
    g.add_argument("--profile", choices=PROFILES)
    h = sub.add_parser("header", help="bench's defaults as a C++ header")
    h.add_argument("out")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "header":  # bench's defaults: the file alone, no environment
            write_header(args.out, header(load(args.file)))
            return 0
        sweeps = load(args.file, args.profile, os.environ)
        if args.cmd == "flags":
            print("\n".join(flags(sweeps, args.family)))
            return 0
        family, _, key = args.key.partition(".")
        if key not in SCHEMA.get(family, {}):
            raise SweepError(
                f"{args.key!r}: expected FAMILY.KEY of the file, e.g. item_sync.epochs"
            )
        value = sweeps[family][key]
        print(_csv(value) if isinstance(value, list) else value)
        return 0
    except SweepError as e:
        print(f"sweeps: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
