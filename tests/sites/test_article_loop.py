"""The article's loop, as its post wrote it, recorded by torch.profiler with stacks: ./attribute
finds its two `.item()` sites (the log and the every-100 print) with their exact counts, and
Adam's own `.item()` calls apart from them. On the CPU nothing blocks: the ops are listed as those
that would sync on a GPU; on a GPU the same sites are real syncs."""

import json
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
EPOCHS = 200  # two prints


def record(tmp_path, optimizer, device="cpu"):
    trace = tmp_path / f"{optimizer}-{device}.json"
    proc = subprocess.run(
        [sys.executable, HERE / "article_loop.py", trace, "--epochs", str(EPOCHS)]
        + ["--optimizer", optimizer, "--device", device],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return trace


def sites(attribute, trace, tmp_path, key):
    out = tmp_path / "a.json"
    attribute("--quiet", "--no-advice", "--json", out, trace)
    doc = json.loads(out.read_text())["traces"][0]
    return {s["site"]: s for s in doc["call_sites"][key]}, doc


def module_frame(by_site):
    """The <module> frame's name, whatever line the profiler gave it."""
    callers = {s["caller"] for s in by_site.values()}
    (caller,) = callers
    assert caller.startswith("article_loop.py(") and caller.endswith("): <module>"), caller
    return caller


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_two_item_sites_and_adams_own(attribute, tmp_path, optimizer):
    by_site, doc = sites(attribute, record(tmp_path, optimizer), tmp_path, "would_sync")
    assert not doc["call_sites"]["gpu_work"] and not doc["syncs"]
    module = module_frame(by_site)
    item = f"{module} -> <built-in method item of Tensor object>, aten::item"
    log, prints = by_site.pop(item), by_site.pop(item + " (2nd in its step)")
    assert (log["calls"], log["occurrences"], log["steps"]) == (EPOCHS, EPOCHS, EPOCHS)
    assert (prints["calls"], prints["steps"]) == (EPOCHS // 100, EPOCHS // 100)
    assert log["user_frame"] == module
    if optimizer == "sgd":
        assert by_site == {}
    else:
        # Adam reads its step count once per parameter (4: two weights, two biases) in each
        # optimizer.step(): one site, one occurrence of the step per epoch.
        ((label, adam),) = by_site.items()
        assert label.startswith(f"{module} -> torch/optim/optimizer.py(") and "wrapper" in label
        assert (adam["calls"], adam["occurrences"]) == (4 * EPOCHS, EPOCHS)


def test_on_a_gpu_the_same_sites_are_real_syncs(attribute, tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the sites are checked as would-sync ops on the CPU above")
    by_site, doc = sites(attribute, record(tmp_path, "sgd", "cuda"), tmp_path, "sites")
    module = module_frame(by_site)
    item = f"{module} -> <built-in method item of Tensor object>, aten::item"
    assert by_site[item]["occurrences"] == EPOCHS
    assert by_site[item + " (2nd in its step)"]["occurrences"] == EPOCHS // 100
