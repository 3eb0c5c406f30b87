import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def attribute():
    """./attribute as ctest builds it (ATTRIBUTE), else the repository's wrapper."""
    path = os.environ.get("ATTRIBUTE") or str(ROOT / "attribute")

    def run(*args):
        proc = subprocess.run([path, *map(str, args)], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return proc

    return run
