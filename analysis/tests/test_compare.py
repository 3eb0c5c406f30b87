"""A/B comparison: python -m analysis.compare on two results folders, and scripts/compare.sh
around it and around Google Benchmark's compare.py."""

import json
import os
import stat
import subprocess
import sys

import pytest

from analysis import compare
from analysis.tests.synthetic import CONTEXT, item_sync_doc, row, write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPARE_SH = os.path.join(ROOT, "scripts", "compare.sh")


def _folder(path, per_epoch_s, add_us, seed):
    path.mkdir()
    write(
        path / "item_sync.json",
        item_sync_doc(per_epoch_s, 1e-6, noise=0.01, seed=seed, intervals=(0, 1)),
    )
    prims = [
        dict(
            row("Dispatch/cpu-add", u * 1e-6, rep=i, epochs=1, us_per_op=u),
            name="Dispatch/cpu-add/manual_time",
        )
        for i, u in enumerate(add_us)
    ]
    prims.append(
        {
            "name": "Memcpy/DtoH/bytes:4/manual_time",
            "run_type": "iteration",
            "error_occurred": True,
            "error_message": "skipped: no CUDA driver (no GPU)",
        }
    )
    write(path / "primitives.json", {"context": dict(CONTEXT), "benchmarks": prims})
    return path


def test_differences_beyond_noise_are_marked(tmp_path, capsys):
    # B's epochs are 30% slower (1% noise): beyond noise. Its tiny op moved 2% inside a 40% spread: noise.
    a = _folder(tmp_path / "a", 100e-6, [1.0, 1.4, 1.2], seed=1)
    b = _folder(tmp_path / "b", 130e-6, [1.4, 1.0, 1.22], seed=2)
    assert compare.main([str(a), str(b), "--out", str(tmp_path / "ab.md")]) == 0
    out = capsys.readouterr().out
    lines = {l.split(" | ")[0].lstrip("| "): l for l in out.splitlines() if l.startswith("| ")}
    assert "**slower**" in lines["ItemSync/cpu/interval:0/print100:0/batch:120"]
    ratio = float(lines["ItemSync/cpu/interval:0/print100:0/batch:120"].split(" | ")[4].rstrip("x"))
    assert ratio == pytest.approx(1.3, abs=0.03)
    assert "*within noise*" in lines["Dispatch/cpu-add"]
    assert (
        "| us/op |" in lines["Dispatch/cpu-add"]
        and "| us/epoch |" in lines["ItemSync/cpu/interval:1/print100:1/batch:120"]
    )
    assert "5 rows in both: 4 slower and 0 faster beyond noise, 1 within noise" in out
    assert "Memcpy" not in out  # a row that did not run is not compared
    assert (tmp_path / "ab.md").read_text() == out


def test_rows_in_one_run_only_are_listed(tmp_path, capsys):
    a = _folder(tmp_path / "a", 100e-6, [1.0, 1.1, 1.2], seed=1)
    b = _folder(tmp_path / "b", 100e-6, [1.0, 1.1, 1.2], seed=1)
    os.remove(b / "primitives.json")
    assert compare.main([str(a), str(b)]) == 0
    assert "Only in A (1 rows): Dispatch/cpu-add" in capsys.readouterr().out


def test_bad_input_names_it(tmp_path, capsys):
    a = _folder(tmp_path / "a", 100e-6, [1.0, 1.1, 1.2], seed=1)
    assert compare.main([str(a), str(tmp_path / "missing")]) == 2
    assert "missing: no such results folder or bench JSON file" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.json").write_text("{")
    assert compare.main([str(a), str(tmp_path / "bad")]) == 2
    assert "x.json: not valid JSON" in capsys.readouterr().err


def test_compare_sh_on_folders_and_on_files(tmp_path):
    a = _folder(tmp_path / "a", 100e-6, [1.0, 1.4, 1.2], seed=1)
    b = _folder(tmp_path / "b", 130e-6, [1.4, 1.0, 1.22], seed=2)
    proc = subprocess.run(
        [COMPARE_SH, str(a), str(b)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "**slower**" in proc.stdout
    proc = subprocess.run(
        [COMPARE_SH, str(a), str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (
        proc.returncode == 2
        and "must be two bench JSON files or two results folders" in proc.stderr
    )
    if not os.path.exists("/usr/share/benchmark/compare.py"):
        pytest.skip("libbenchmark-tools is not installed (scripts/setup.sh installs it)")
    proc = subprocess.run(
        [COMPARE_SH, str(a / "item_sync.json"), str(b / "item_sync.json"), "-a"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ItemSync/cpu/interval:0/print100:0/batch:120" in proc.stdout and "U Test" in proc.stdout
    proc = subprocess.run(
        [COMPARE_SH, str(a / "primitives.json"), str(b / "primitives.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (
        proc.returncode == 0 and "Memcpy" not in proc.stdout
    )  # rows that did not run are left out


def test_python_eager_json_is_world_readable(tmp_path):
    out = tmp_path / "python_eager.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.python_eager",
            "--out",
            str(out),
            "--epochs",
            "100",
            "--repetitions",
            "1",
            "--devices",
            "cpu",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    mode = stat.S_IMODE(out.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask, oct(mode)
    assert json.loads(out.read_text())["benchmarks"][0]["name"].startswith(
        "Ladder/cpu-python_eager"
    )
