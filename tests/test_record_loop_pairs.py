"""experiments/record_loop_pairs.py on this machine: the article's loop as what-if pairs, each
trace a valid torch.profiler trace with one ProfilerStep per profiled epoch, the manifest the
validation page reads, the provenance README, and ./attribute and the page run over the folder.
Without CUDA (CI) the pairs that need it say so and are left out; with it all three are there."""

import gzip
import json
import os
import pathlib
import subprocess
import sys

import pytest

from analysis import what_if_pairs

REPO = pathlib.Path(__file__).resolve().parent.parent

STEPS = 4


def recorder(*args):
    return subprocess.run(
        [sys.executable, "-m", "experiments.record_loop_pairs", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("pairs") / "loop"
    out.mkdir()
    (out / "stale.json.gz").write_text("from an older run")  # the folder is replaced whole
    proc = recorder("--out", out, "--steps", STEPS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc.stdout


def cuda():
    import torch

    return torch.cuda.is_available()


def events(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"]


def test_every_trace_holds_its_profiled_steps_with_stacks(recorded):
    out, _ = recorded
    names = sorted(p.name for p in out.glob("*.json.gz"))
    assert "stale.json.gz" not in names
    assert {"item-every.json.gz", "item-never.json.gz", "graph-eager.json.gz"} <= set(names)
    for name in names:
        ev = events(out / name)
        steps = [e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")]
        assert len(steps) == STEPS, name
        assert any(e.get("cat") == "python_function" for e in ev), name  # with_stack=True
        items = sum(1 for e in ev if e.get("name") == "aten::item")
        assert items == (STEPS if name == "item-every.json.gz" else 0), name


def test_the_manifest_names_the_complete_pairs_and_the_readme_their_provenance(recorded):
    out, stdout = recorded
    manifest = what_if_pairs.load_manifest(str(out / "manifest.json"))  # every field checked
    pairs = [(p["first"], p["second"], p["what_ifs"]) for p in manifest["pairs"]]
    item = ("item-every.json.gz", "item-never.json.gz", ["no-syncs:op=aten::item"])
    graph = ("graph-eager.json.gz", "graph-captured.json.gz", ["graph-steps"])
    pinned = ("copy-pageable.json.gz", "copy-pinned.json.gz", ["pin-copies"])
    assert pairs == ([item, graph, pinned] if cuda() else [item])
    assert all(p["unit"] == "step" for p in manifest["pairs"])
    readme = (out / "README.md").read_text()
    import torch

    assert torch.__version__.split("+")[0] in readme and "commit " in readme
    assert f"{STEPS} profiled ones" in readme
    if not cuda():
        for run in ("graph-captured", "copy-pageable", "copy-pinned"):
            assert f"`{run}` needs CUDA" in readme and f"`{run}` needs CUDA" in stdout


def test_attribute_and_the_validation_page_read_the_folder(recorded, tmp_path):
    out, _ = recorded
    attribute = os.environ.get("ATTRIBUTE") or str(REPO / "attribute")
    page = tmp_path / "page.md"
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.what_if_validation", out, "--attribute", attribute]
        + ["--json-out", tmp_path / "json", "--out", page],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    replay = json.loads((tmp_path / "json" / "item-every.replay.json").read_text())
    windows = replay["replays"][0]["replay"]["windows"]
    assert len(windows) == STEPS  # ./attribute's calls are the ProfilerSteps
    assert "| item-every -> item-never | `no-syncs:op=aten::item` |" in page.read_text()


def test_bad_flags_exit_2_and_write_nothing(tmp_path):
    out = tmp_path / "pairs"
    proc = recorder("--out", out, "--steps", "1")
    assert proc.returncode == 2 and "--steps" in proc.stderr
    assert not out.exists() and not list(tmp_path.iterdir())
    if not cuda():
        proc = recorder("--out", out, "--device", "cuda")
        assert proc.returncode == 2 and "no CUDA device" in proc.stderr
        assert not list(tmp_path.iterdir())
