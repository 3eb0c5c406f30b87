"""The package under test is built from this tree: `pip install --target` into a temporary
folder (scikit-build-core reuses build-py/, so an unchanged tree rebuilds in seconds), put first
on sys.path and on PYTHONPATH (for the Dask workers and the console-script subprocesses).
IRIS_TRACE_PKG=DIR uses a folder installed that way already. ATTRIBUTE names the ./attribute
binary the package is compared with (ctest passes the build's); else the package's own."""

import atexit
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
TRACES = DATA / "traces"


def _build_package():
    missing = [m for m in ("scikit_build_core", "nanobind") if importlib.util.find_spec(m) is None]
    if missing:
        return None, (
            f"cannot build the package: {', '.join(missing)} not installed in {sys.executable} "
            "(scripts/setup.sh installs requirements.txt)"
        )
    target = tempfile.mkdtemp(prefix="iris-trace-pkg-")
    atexit.register(shutil.rmtree, target, True)
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps"]
    cmd += ["--target", target, str(REPO)]
    env = dict(
        os.environ, CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    )
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(
            f"building the package failed ({' '.join(cmd)}):\n{p.stdout}\n{p.stderr}"
        )
    return target, None


_PKG = os.environ.get("IRIS_TRACE_PKG")
_SKIP = None
if not _PKG:
    _PKG, _SKIP = _build_package()
if _PKG:
    sys.path.insert(0, _PKG)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_PKG, os.environ.get("PYTHONPATH")]))
    os.environ["IRIS_TRACE_PKG"] = _PKG


def pytest_collection_modifyitems(config, items):
    if _SKIP:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=_SKIP))


@pytest.fixture(scope="session")
def pkg_dir():
    return Path(_PKG)


@pytest.fixture(scope="session")
def attribute_bin(pkg_dir):
    return os.environ.get("ATTRIBUTE") or str(pkg_dir / "iris_trace" / "bin" / "attribute")


def kineto_traces():
    """Every committed Kineto trace: single files, then folders of ranks."""
    files = sorted(TRACES.glob("*.json.gz"))
    return files + sorted(d for d in TRACES.iterdir() if d.is_dir())
