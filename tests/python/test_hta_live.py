"""iris_trace.hta.TraceAnalysis against HTA run now, in both releases it follows: every frame of
every call (experiments/hta_compare.py) on every real trace, with
pandas.testing.assert_frame_equal. HTA is never a dependency: each release runs in its own
venv, named by HTA_PYTHON (holistictraceanalysis 0.5.0) and TRACEINSIGHT_PYTHON (traceinsight
0.6.1); the test skips, saying so, for a release whose venv is not named. The traces: the
committed real ones, and every Kineto trace under IRIS_SHARED_TRACES (a folder such as
/work/shared/traces) when it is set."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO

RELEASES = {"0.5.0": "HTA_PYTHON", "0.6.1": "TRACEINSIGHT_PYTHON"}


def real_traces():
    """Single files, and folders of ranks (a folder whose files are all rank-*)."""
    roots = [DATA / d for d in ("traces", "traces_pairs", "traces_stacks")]
    shared = os.environ.get("IRIS_SHARED_TRACES")
    if shared:
        roots.append(Path(shared))
    found = {}
    for root in roots:
        for f in sorted(root.rglob("*.json.gz")):
            multi = f.name.startswith("rank-")
            t = f.parent if multi else f
            found.setdefault((t.parent.name if multi else "") + t.name, t)
    return sorted(found.values())


def compare_live(release, traces, out):
    """HTA `release` run now on the traces (pickles in out), then ours against it: the check's
    output, every trace's line and the count; fails on any difference."""
    python = os.environ.get(RELEASES[release])
    if not python:
        pytest.skip(f"{RELEASES[release]} unset: no live HTA {release} to compare with")
    subprocess.run(
        [python, "-m", "experiments.hta_frames_reference", "--out", str(out), *traces],
        check=True,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
    )
    p = subprocess.run(
        [sys.executable, "-m", "experiments.hta_frames_check", "--ref", str(out), *traces],
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_every_frame_equals_hta_run_now(release, tmp_path):
    compare_live(release, [str(t) for t in real_traces()], tmp_path)


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_generated_traces_equal_hta_run_now(release, tmp_path):
    """HTA_GENERATED=N: N generated traces (experiments/hta_trace_gen.py, seeds 1..N), every one
    with the ties real traces have, the odd seeds with several ranks and long ncclKernels (HTA's
    stragglers answer there)."""
    count = int(os.environ.get("HTA_GENERATED", "0"))
    if count <= 0:
        pytest.skip("HTA_GENERATED unset: no generated traces asked for")
    from experiments import hta_trace_gen

    traces = []
    for seed in range(1, count + 1):
        folder = tmp_path / "traces" / f"gen-{seed}"
        hta_trace_gen.write(hta_trace_gen.generate(seed, True, seed % 2 == 1), folder)
        traces.append(str(folder))
    out = compare_live(release, traces, tmp_path / "ref")
    print(f"HTA {release}, {count} generated traces: {out.strip().splitlines()[-1]}")
