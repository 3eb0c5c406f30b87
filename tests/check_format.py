#!/usr/bin/env python3
"""Every tracked C++ and Python file is formatted as .clang-format and ruff.toml say.

C++ (.h, .cpp, .cu, .cuh) by clang-format 14 (Debian 12's, the reference version: another
version may format differently, so it is refused rather than trusted), Python by `ruff format`
(pinned in requirements.txt). Prints each file that is not formatted and how to fix it; exit 1
then, 0 when all are. `--self-test` formats a badly formatted copy of each kind and checks that
it is caught, so this check cannot pass by checking nothing.
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
CPP = (".h", ".cpp", ".cu", ".cuh")
CLANG_FORMAT_MAJOR = 14


def clang_format():
    for name in (f"clang-format-{CLANG_FORMAT_MAJOR}", "clang-format"):
        path = shutil.which(name)
        if path:
            out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            m = re.search(r"version (\d+)\.", out)
            if m and int(m.group(1)) == CLANG_FORMAT_MAJOR:
                return path
    sys.exit(
        f"check_format: clang-format {CLANG_FORMAT_MAJOR} not found (Debian 12: apt-get install "
        "clang-format; scripts/setup.sh installs it)"
    )


def ruff():
    probe = subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        sys.exit(
            f"check_format: ruff not importable by {sys.executable} (requirements.txt pins it)"
        )
    return [sys.executable, "-m", "ruff"]


def tracked(root):
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    return [p for p in out.decode().split("\0") if p]


def unformatted(root, files):
    """The files under root that their formatter would change."""
    root = pathlib.Path(root)
    bad = []
    cpp = [f for f in files if f.endswith(CPP)]
    py = [f for f in files if f.endswith(".py")]
    cf = clang_format()
    for i in range(0, len(cpp), 100):
        chunk = cpp[i : i + 100]
        r = subprocess.run(
            [cf, "--dry-run", "--Werror", "--style=file", *chunk],
            cwd=root,
            capture_output=True,
            text=True,
        )
        bad += sorted({m for m in re.findall(r"^(\S+?):\d+:\d+: error", r.stderr, re.M)})
    if py:
        r = subprocess.run(
            [
                *ruff(),
                "format",
                "--check",
                "--output-format",
                "concise",
                "--config",
                str(root / "ruff.toml"),
                *py,
            ],
            cwd=root,
            capture_output=True,
            text=True,
        )
        bad += sorted(set(re.findall(r"^(\S+?):\d+:\d+: unformatted", r.stdout, re.M)))
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for name in (".clang-format", "ruff.toml"):
            shutil.copy(REPO / name, tmp / name)
        (tmp / "good.cpp").write_text("int f(int x) { return x + 1; }\n")
        (tmp / "bad.cpp").write_text("int  f( int x ){return x+1;}\n")
        (tmp / "good.py").write_text("x = [1, 2]\n")
        (tmp / "bad.py").write_text("x=[1,2 ]\n")
        found = set(unformatted(tmp, ["good.cpp", "bad.cpp", "good.py", "bad.py"]))
        if found != {"bad.cpp", "bad.py"}:
            print(
                f"check_format self-test: expected bad.cpp and bad.py flagged, got {sorted(found)}"
            )
            return 1
    print("check_format self-test: a badly formatted C++ and Python file are caught, good ones not")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=pathlib.Path, default=REPO)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    bad = unformatted(args.root, tracked(args.root))
    for f in bad:
        print(f"{f}: not formatted")
    if bad:
        print(
            f"{len(bad)} file(s) not formatted: clang-format -i FILE (C++), "
            ".venv/bin/python -m ruff format FILE (Python)"
        )
        return 1
    print("every tracked C++ and Python file is formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
