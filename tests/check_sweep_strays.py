#!/usr/bin/env python3
"""experiments/sweeps.toml is the only place a sweep is written: this finds copies elsewhere.

A copy is a list of a sweep's values (three or more, in its order, separated by commas: a flag's
`1,100,200`, a tuple, a C++ initializer) written in code, or a held-out row set by assignment
(`HELD_OUT_BATCH = 30000`). Code is every tracked file but Markdown and results/: prose may
quote a sweep, code must read it (experiments/sweeps.py). Each copy is printed as FILE:LINE,
exit 1. `--self-test` plants each kind of copy in a small tree and checks each is caught and a
clean tree passes, so this check cannot pass by reading nothing. Standard library only.
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

from experiments import sweeps  # the caller puts the repository root on PYTHONPATH (ctest does)

REPO = pathlib.Path(__file__).resolve().parent.parent

SKIP_SUFFIXES = (".md", ".json", ".csv", ".png", ".txt", ".gz", ".sqlite", ".tsv")
SKIP_DIRS = ("results/", "tests/data/", ".deps/")
HELD_OUT_ASSIGN = re.compile(r"\bheld_out\w*\s*=\s*\d", re.IGNORECASE)


def sweep_lists(path):
    """Every list value of the file, in the base sweeps and each profile: (name, values)."""
    out = []
    for profile in (None, *sweeps.PROFILES):
        for family, keys in sweeps.load(path, profile).items():
            for key, value in keys.items():
                if isinstance(value, list) and len(value) >= 3:
                    name = f"{profile + '.' if profile else ''}{family}.{key}"
                    if all(v != value for _, v in out):
                        out.append((name, value))
    return out


def pattern(values):
    body = r"\s*,\s*".join(str(v) for v in values)
    # Not part of a longer list: no digit or further comma-separated number on either side.
    return re.compile(r"(?<![\d.])(?<!\d,)(?<!\d, )" + body + r"(?![\d.])(?!\s*,\s*\d)")


def tracked_files(root):
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    return sorted(f for f in listed if f)


def strays(root, sweep_file):
    root = pathlib.Path(root)
    lists = [(name, pattern(values)) for name, values in sweep_lists(sweep_file)]
    own = pathlib.Path(sweep_file).resolve()
    found = []
    for rel in tracked_files(root):
        path = root / rel
        if rel.endswith(SKIP_SUFFIXES) or rel.startswith(SKIP_DIRS) or not path.is_file():
            continue
        if path.resolve() in (own, pathlib.Path(__file__).resolve()):
            continue  # the sweeps themselves, and this file's own planted examples
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for name, pat in lists:
                if pat.search(line):
                    found.append(f"{rel}:{n}: a copy of {name} (read experiments/sweeps.toml)")
            if HELD_OUT_ASSIGN.search(line):
                found.append(
                    f"{rel}:{n}: a held-out row set by hand (read experiments/sweeps.toml)"
                )
    return found


def self_test():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        sweep_file = REPO / "experiments" / "sweeps.toml"
        intervals = sweeps.load(sweep_file)["item_sync"]["intervals"]
        batches = sweeps.load(sweep_file)["batch_sweep"]["batches"]
        cases = {
            "flag.sh": f"--intervals={','.join(map(str, intervals))}\n",
            "tuple.py": f"X = {tuple(batches)}\n",
            "init.h": "std::vector<int64_t> v = {" + ", ".join(map(str, intervals)) + "};\n",
            "held.py": "HELD_OUT_BATCH = 7\n",
        }
        clean = {
            "clean.py": f"x = {tuple(intervals[:-1]) + (99999,)}\n",  # a different list
            "doc.md": f"intervals {', '.join(map(str, intervals))}\n",  # prose may quote it
            "longer.py": f"y = {tuple(intervals) + (77777,)}\n",  # part of a longer list
        }
        for name, text in {**cases, **clean}.items():
            (root / name).write_text(text)
        found = strays(root, sweep_file)
        for name in cases:
            if not any(f.startswith(name + ":") for f in found):
                print(f"self-test: the copy in {name} was not caught", file=sys.stderr)
                ok = False
        for name in clean:
            if any(f.startswith(name + ":") for f in found):
                print(f"self-test: {name} was flagged but holds no copy", file=sys.stderr)
                ok = False
    print("self-test:", "every planted copy caught, clean files pass" if ok else "FAILED")
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(REPO))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    found = strays(args.root, pathlib.Path(args.root) / "experiments" / "sweeps.toml")
    for f in found:
        print(f)
    print(f"sweep strays: {len(found)}" + ("" if found else " (the sweeps file is the only copy)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
