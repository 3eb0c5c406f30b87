"""experiments/sweeps.py: the sweeps file read and checked, and bench's defaults equal to it.

ctest sets BENCH to the built binary (bench --help prints its defaults)."""

import os
import pathlib
import subprocess
import sys

import pytest

from experiments import sweeps

REPO = pathlib.Path(__file__).resolve().parent.parent

BENCH = os.environ.get("BENCH", str(REPO / "build" / "bench"))


def edited(tmp_path, old, new):
    text = sweeps.SWEEPS_TOML.read_text()
    assert old in text, old
    path = tmp_path / "sweeps.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_bench_defaults_are_the_files():
    if not os.path.exists(BENCH):
        pytest.skip(f"no bench at {BENCH}")
    usage = subprocess.run([BENCH, "--help"], capture_output=True, text=True, check=False).stdout
    s = sweeps.load()

    def default(flag):
        line = next(x for x in usage.splitlines() if x.strip().startswith(flag + "="))
        return line.rsplit("[", 1)[1].rstrip("]")

    csv = sweeps._csv
    assert default("--epochs") == str(s["item_sync"]["epochs"])
    assert default("--intervals") == csv(s["item_sync"]["intervals"])
    assert default("--print100") == csv(s["item_sync"]["print100"])
    assert default("--batches") == csv(s["item_sync"]["batches"])
    assert default("--sweep_epochs") == str(s["batch_sweep"]["epochs"])
    assert default("--sweep_intervals") == csv(s["batch_sweep"]["intervals"])
    assert default("--sweep_batches") == csv(s["batch_sweep"]["batches"])
    assert default("--ladder_epochs") == str(s["ladder"]["epochs"])
    assert default("--rung_sweep_epochs") == str(s["rung_sweep"]["epochs"])
    assert default("--rung_sweep_batches") == csv(s["rung_sweep"]["batches"])


def test_held_out_rows_are_run_by_their_family():
    s = sweeps.load()
    assert s["held_out"]["interval"] in s["item_sync"]["intervals"]
    assert s["held_out"]["batch"] in s["batch_sweep"]["batches"]


def test_profile_then_environment_change_the_values():
    base, gpu = sweeps.load(), sweeps.load(profile="gpu")
    assert gpu["item_sync"]["intervals"] == base["item_sync"]["intervals"]
    changed = {(f, k) for f in base for k in base[f] if base[f][k] != gpu[f][k]}
    assert ("item_sync", "repetitions") in changed
    env = sweeps.load(profile="gpu", environ={"REPETITIONS": "7", "PRIMITIVE_REPETITIONS": "9"})
    assert env["item_sync"]["repetitions"] == 7 and env["primitives"]["repetitions"] == 9
    assert sweeps.load(environ={"EPOCHS": ""})["item_sync"]["epochs"] == base["item_sync"]["epochs"]


def test_flags_run_what_the_file_says():
    s = sweeps.load()
    f = sweeps.flags(s, "item_sync")
    assert "--intervals=" + sweeps._csv(s["item_sync"]["intervals"]) in f
    assert f"--benchmark_repetitions={s['item_sync']['repetitions']}" in f
    assert "--rung_sweep_batches=" + sweeps._csv(s["rung_sweep"]["batches"]) in sweeps.flags(
        s, "rung_sweep"
    )


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("epochs = 20000", "epochs = 0", "item_sync.epochs: expected an integer >= 1, got 0"),
        ("epochs = 20000", 'epochs = "many"', "expected an integer >= 1, got 'many'"),
        ("print100 = [0, 1]", "print100 = []", "expected a non-empty list"),
        ("print100 = [0, 1]", "print100 = [0, 0]", "a value is listed twice"),
        ("batch = 30000", "batch = 31000", "held_out.batch 31000 is not a batch_sweep batch"),
        ("[ladder]", "[ladders]", "unknown table [ladders]"),
        ("trace_epochs = 2000", "trace_epoch = 2000", "unknown key"),
        ("[item_sync]", "[item_sync", "cannot read the sweeps"),
    ],
)
def test_bad_files_are_refused_naming_the_value(tmp_path, old, new, message):
    with pytest.raises(sweeps.SweepError) as e:
        sweeps.load(edited(tmp_path, old, new))
    assert message in str(e.value) and str(tmp_path) in str(e.value)


def test_bad_environment_is_refused_naming_the_variable():
    with pytest.raises(sweeps.SweepError) as e:
        sweeps.load(environ={"SWEEP_EPOCHS": "ten"})
    assert "environment SWEEP_EPOCHS" in str(e.value)


def test_command_line(tmp_path):
    run = [sys.executable, "-m", "experiments.sweeps"]
    ok = subprocess.run(
        run + ["get", "held_out.batch"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert ok.returncode == 0 and ok.stdout.strip() == str(sweeps.load()["held_out"]["batch"])
    bad = subprocess.run(
        run + ["get", "nope.key"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert bad.returncode == 2 and "FAMILY.KEY" in bad.stderr
    header = tmp_path / "h" / "sweep_defaults.h"
    assert subprocess.run(run + ["header", str(header)], cwd=REPO, check=False).returncode == 0
    assert "kItemSyncIntervals = {" + ", ".join(
        map(str, sweeps.load()["item_sync"]["intervals"])
    ) in header.read_text().replace("\n", " ")
    broken = edited(tmp_path, "epochs = 20000", "epochs = -1")
    out = subprocess.run(run + ["--file", str(broken), "header", str(header) + ".x"], text=True,
                         capture_output=True, cwd=REPO, check=False)  # fmt: skip
    assert out.returncode == 2 and not os.path.exists(str(header) + ".x")
