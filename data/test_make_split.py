"""The committed split is exactly what data/make_split.py produces."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_committed_split_matches_a_fresh_one():
    pytest.importorskip("sklearn")
    proc = subprocess.run(
        [sys.executable, "-m", "data.make_split", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
