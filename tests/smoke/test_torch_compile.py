"""experiments/torch_compile.py with a tiny epoch count: rows the analysis reads, the compiled
step checked against eager float64, CUDA rows skipped without a GPU. Compiling takes about a
minute per configuration on a busy 2-core VM, so ctest runs this file on its own
(torch_compile_smoke) with a longer timeout."""

import json
import os
import subprocess
import sys

from analysis import bench_json

REPO = os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = [sys.executable, "-m", "experiments.torch_compile"]


def test_torch_compile_rows_match_float64_and_skip_cuda_cleanly(tmp_path):
    out = tmp_path / "torch_compile.json"
    proc = subprocess.run(
        [
            *SCRIPT,
            "--out",
            str(out),
            "--epochs",
            "200",
            "--repetitions",
            "2",
            "--devices",
            "cpu,cuda",
            "--batches",
            "130",
            "--sweep-epochs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # as bench's JSON, not mkstemp's 0600
    run = bench_json.load(str(out))
    ladder = {r.variant for r in run.rows if r.family == "Ladder"}
    assert {"cpu-torch_compile", "cpu-torch_compile_1thread"} <= ladder
    for r in run.rows:
        if r.family == "Ladder":
            assert r.counters["records"] == 2 and r.counters["compile_s"] > 0
            assert r.counters["max_loss_error"] < 1e-3 and r.counters["max_weight_error"] < 1e-3, (
                r.name
            )
    sweep = [r for r in run.rows if r.family == "RungSweep"]
    assert sweep and all(
        r.args["batch"] == 130 and r.counters["epochs"] == 76
        for r in sweep
        if r.device.startswith("cpu")
    )
    raw = json.loads(out.read_text())["benchmarks"]
    # What torch.compile did, from torch's counters: on the CPU the default mode, the step
    # compiled into graphs with a break at loss.backward(), no recompile while timed, no CUDA
    # graph; on a GPU reduce-overhead, whose graphs every timed epoch replays.
    for r in raw:
        if r.get("error_occurred"):
            continue
        cuda = "/cuda-" in r["name"]
        assert r["compile_mode"] == ("reduce-overhead" if cuda else "default"), r["name"]
        assert r["dynamo_frames"] >= 1 and r["compiled_graphs"] >= 1, r["name"]
        assert r["graph_breaks"] >= 1 and r["graph_break_reasons"], r["name"]
        assert r["timed_recompiles"] == 0 and r["timed_dynamo_frames"] == 0, r["name"]
        if not cuda:
            assert r["cuda_graph_replays"] == 0 and r["cuda_graph_captures"] == 0, r["name"]
    if run.context["gpu_name"] == "none":
        cuda = [r for r in raw if "/cuda-" in r["name"]]
        assert cuda and all(r["error_message"].startswith("skipped: ") for r in cuda)


# Runs the script with sysconfig's include folder pointed at FAKE_INCLUDE: how a Python
# without its headers (a fresh Debian 12 without python3.11-dev) looks to the script.
FAKE_INCLUDE_RUNNER = """
import os, runpy, sys, sysconfig
real_get_path = sysconfig.get_path
sysconfig.get_path = lambda name, *a, **k: os.environ["FAKE_INCLUDE"] if name == "include" else real_get_path(name, *a, **k)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def run_missing(tmp_path, env):
    out = tmp_path / "x.json"
    proc = subprocess.run(
        [sys.executable, "-c", FAKE_INCLUDE_RUNNER, "experiments.torch_compile"]
        + ["--out", str(out), "--devices", "cpu"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        cwd=REPO,
        check=False,
    )
    assert not out.exists()
    return proc


def test_missing_python_headers_is_one_line_naming_the_package(tmp_path):
    fake = tmp_path / "include"
    fake.mkdir()
    proc = run_missing(tmp_path, {"FAKE_INCLUDE": str(fake)})
    version = "{}.{}".format(*sys.version_info[:2])
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stderr == (
        f"experiments/torch_compile.py: error: torch.compile cannot compile here: it needs "
        f"Python {version}'s C headers (no Python.h in {fake}); install python{version}-dev "
        f"(sudo apt-get install python{version}-dev; scripts/setup.sh does)\n"
    )


def test_missing_compiler_is_one_line_naming_the_package(tmp_path):
    fake = tmp_path / "include"
    fake.mkdir()
    (fake / "Python.h").write_text("")  # headers present: only the compiler is missing
    proc = run_missing(tmp_path, {"FAKE_INCLUDE": str(fake), "CXX": str(tmp_path / "no-such-g++")})
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert (
        f"a C++ compiler ('{tmp_path / 'no-such-g++'}', from $CXX or else g++, is not on PATH)"
        in proc.stderr
    )
    assert proc.stderr.rstrip().endswith(
        "install g++ (sudo apt-get install g++; scripts/setup.sh does)"
    )


def test_bad_batches_exit_2(tmp_path):
    proc = subprocess.run(
        [*SCRIPT, "--out", str(tmp_path / "x.json"), "--batches", "12,abc"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 2 and "--batches" in proc.stderr
    assert not (tmp_path / "x.json").exists()


def test_the_counters_keep_inductors_cuda_graph_skips_with_their_reasons():
    """Inductor logs each CUDA-graph skip through log_cudagraph_skip_and_bump_counter on a logger
    that is silent by default: experiments/compile_counters.py keeps the reason all the same."""
    from torch._inductor.cudagraph_utils import log_cudagraph_skip_and_bump_counter

    from experiments import compile_counters

    compile_counters.install()
    before = compile_counters.snapshot()
    log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to mutated inputs (2 instances)")
    got = compile_counters.difference(before, compile_counters.snapshot())
    assert got["cudagraph_skips"] == 1
    assert got["cudagraph_skip_reasons"] == [
        "skipping cudagraphs due to mutated inputs (2 instances)"
    ]
    assert got["recompiles"] == 0 and got["cuda_graph_replays"] == 0
