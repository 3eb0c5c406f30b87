"""The console script is ./attribute itself: same output and exit code for the same flags."""

import os
import shutil
import subprocess
import sys

import pytest
from conftest import TRACES

CASES = [
    ["a100-alexnet-syncs.json.gz"],
    ["--hta", "two-ranks"],
    ["--what-if", "no-syncs", "a100-event-sync.json.gz"],
    ["--nope", "a100-event-sync.json.gz"],
    ["missing.json"],
    ["--help"],
]


def run(cmd, args):
    full = [a if a.startswith("-") else str(TRACES / a) for a in args]
    p = subprocess.run([*cmd, *full], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a))
def test_console_script_is_attribute(args, attribute_bin, pkg_dir):
    want = run([attribute_bin], args)
    script = pkg_dir / "bin" / "iris-attribute"
    if not script.exists():  # installed on PATH rather than under --target
        script = shutil.which("iris-attribute")
    assert script, "iris-attribute was not installed"
    assert run([str(script)], args) == want
    assert run([sys.executable, "-m", "iris_trace"], args) == want


def test_package_binary_is_executable(pkg_dir):
    assert os.access(pkg_dir / "iris_trace" / "bin" / "attribute", os.X_OK)
