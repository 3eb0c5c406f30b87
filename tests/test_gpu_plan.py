"""The GPU run's scheduler (scripts/gpu_run.py) on a fake bench: what each step's outcome
writes to steps.tsv, the budget, the cap, the tarball after every step and the exit code.

The real steps run only on the GPU machine and in scripts/device_rehearsal.sh; this pins the
scheduler's rules in CI, where nothing of the device's can run."""

import json
import os
import pathlib
import shutil
import sys
import tarfile

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the repository root: its scripts and experiments packages
from experiments import sweeps
from scripts import gpu_plan, gpu_run, gpu_steps, host_settle

FAKE_BENCH = """#!/usr/bin/env python3
import json, os, sys, time
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
out = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--benchmark_out=")]
if out:
    open(out[0], "w").write(json.dumps({"benchmarks": [], "args": sys.argv[1:]}))
sys.exit(int(os.environ.get("FAKE_RC", "0")))
"""


@pytest.fixture
def run_env(tmp_path, monkeypatch):
    build = tmp_path / "build-gpu"
    build.mkdir()
    bench = build / "bench"
    bench.write_text(FAKE_BENCH)
    bench.chmod(0o755)
    machine = f"test-{os.getpid()}"
    results = REPO / "results" / machine
    yield (
        {
            "PYTHON": sys.executable,
            "GPU_BUILD_DIR": str(build),
            "MACHINE": machine,
            "BUDGET_S": "1000",
            "GRACE_S": "1",
            "PATH": os.environ["PATH"],
        },
        tmp_path,
        results,
    )
    shutil.rmtree(results, ignore_errors=True)


def steps_of(results, label):
    rows = (results / f"steps-{label}.tsv").read_text().splitlines()
    return {r.split("\t")[0]: r.split("\t") for r in rows[1:]}


def plan(**seconds):
    return {n: gpu_plan.Step(n, "a", 1, s, "test") for n, s in seconds.items()}


def test_a_bench_step_lands_its_json_and_the_tarball_holds_it(run_env):
    env, tmp, results = run_env
    out = tmp / "out"
    out.mkdir()
    rc = gpu_run.run_plan(env, "custom", ["batch_sweep"], plan(batch_sweep=5), out, ([], [], 1))
    assert rc == 0
    got = steps_of(results, "custom")
    assert got["preflight"][1] == "ran" and got["batch_sweep"][1] == "ran"
    assert got["analysis"][1] == "not-run" and got["analysis"][4]  # no ItemSync: says why
    doc = (results / "batch_sweep.json").read_text()
    # The GPU run's sizes are the sweeps file's with its [gpu] changes.
    sweep = sweeps.load(profile="gpu")["batch_sweep"]
    assert f"--sweep_epochs={sweep['epochs']}" in doc and "--budget_s=" in doc
    with tarfile.open(out / f"results-{env['MACHINE']}.tar.gz") as tar:
        names = tar.getnames()
    assert f"results/{env['MACHINE']}/batch_sweep.json" in names
    assert not list(out.glob(".*.tmp"))


def test_failed_bench_keeps_its_partial_and_the_run_exits_1(run_env):
    env, tmp, results = run_env
    env["FAKE_RC"] = "2"
    rc = gpu_run.run_plan(env, "custom", ["ladder_cpu"], plan(ladder_cpu=5), tmp, ([], [], 0))
    assert rc == 1
    row = steps_of(results, "custom")["ladder_cpu"]
    assert row[1] == "failed" and "exit 2" in row[4] and "ladder_cpu.json.partial" in row[4]
    assert (results / "ladder_cpu.json.partial").exists()
    assert not (results / "ladder_cpu.json").exists()


def test_a_step_past_the_budget_is_not_run_and_named_for_the_rerun(run_env, capsys):
    env, tmp, results = run_env
    env["BUDGET_S"] = "100"  # 80 s after the 20 s kept for the report: cupti_detach needs 500
    names = ["cupti_detach"]
    rc = gpu_run.run_plan(env, "custom", names, plan(cupti_detach=500), tmp, ([], [], 0))
    assert rc == 0
    row = steps_of(results, "custom")["cupti_detach"]
    assert row[1] == "not-run" and row[4].startswith("budget:")
    assert "scripts/gpu_check.sh $OUT --steps cupti_detach" in capsys.readouterr().out


def test_a_step_over_its_cap_is_cut_and_its_processes_killed(run_env, monkeypatch):
    env, tmp, results = run_env
    limits = []

    def slow(r, limit):  # a step whose command outlives its cap (timeout shortened to 1 s)
        limits.append(limit)
        return gpu_steps.run_cmd(["sh", "-c", "sleep 30 & sleep 30"], timeout=1), "slow"

    monkeypatch.setitem(gpu_steps.STEPS, "cupti_detach", slow)
    env["CAP_FACTOR"] = "3"
    rc = gpu_run.run_plan(env, "custom", ["cupti_detach"], plan(cupti_detach=25), tmp, ([], [], 0))
    row = steps_of(results, "custom")["cupti_detach"]
    assert row[1] == "cut" and "stopped at 75 s" in row[4], row
    assert limits == [75]  # CAP_FACTOR x the estimate
    assert rc == 0  # a cut step is named for the rerun slot, not a failure


def test_preflight_problems_stop_the_run_before_any_step(run_env):
    env, tmp, results = run_env
    rc = gpu_run.run_plan(
        env, "1", ["batch_sweep"], plan(batch_sweep=5), tmp, (["nvcc: not on PATH"], [], 3)
    )
    assert rc == 1
    got = steps_of(results, "part1")
    assert got["preflight"][1] == "failed" and "nvcc" in got["preflight"][4]
    assert "batch_sweep" not in got
    assert (tmp / f"results-{env['MACHINE']}.tar.gz").exists()


def test_the_ladder_check_refuses_rows_off_float64_and_an_empty_check_with_a_gpu(tmp_path):
    good = {"name": "Ladder/cuda-x", "max_loss_error": 1e-5, "max_weight_error": 1e-5}
    bad = {"name": "Ladder/cuda-y", "max_loss_error": 1e-2, "max_weight_error": 1e-5}
    skipped = {"name": "Ladder/cuda-z", "error_occurred": True, "error_message": "skipped: no GPU"}
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps({"benchmarks": [good]}))
    assert gpu_steps.ladder_errors(path, need_rows=True)[0] == 0
    path.write_text(json.dumps({"benchmarks": [good, bad]}))
    rc, note = gpu_steps.ladder_errors(path, need_rows=True)
    assert rc == 1 and "OFF: Ladder/cuda-y" in note
    path.write_text(json.dumps({"benchmarks": [skipped]}))
    assert gpu_steps.ladder_errors(path, need_rows=True)[0] == 1
    assert gpu_steps.ladder_errors(path, need_rows=False)[0] == 0


def test_the_plan_and_the_registry_name_the_same_steps():
    planned = {x.name for x in gpu_plan.steps()} - {"preflight"}  # the preflight is gpu_check.sh's
    assert planned == set(gpu_steps.STEPS)
    assert gpu_steps.BUDGETED <= planned


def fake_host(readings):
    """read_proc() answers from a list of (busy jiffies, steal jiffies, dirty kB) per reading,
    100 jiffies a second on 4 cores; the clock is the sleeps'."""
    now = [0.0]
    state = {"busy": 0, "steal": 0, "total": 0, "i": 0}

    def read():
        busy, steal, dirty_kb = readings[min(state["i"], len(readings) - 1)]
        state["i"] += 1
        state["busy"] += busy
        state["steal"] += steal
        state["total"] += 400
        idle = state["total"] - state["busy"] - state["steal"]
        cpu = [state["busy"], 0, 0, idle, 0, 0, 0, state["steal"]]
        return cpu, f"Dirty: {dirty_kb} kB\nWriteback: 0 kB\n", "0.50 0.40 0.30 1/100 1"

    def sleep(s):
        now[0] += s

    return read, sleep, lambda: now[0]


def test_settle_waits_for_quiet_windows_in_a_row():
    # busy 2 cores, then 0.2 (quiet) once, busy again, then quiet: three quiet in a row end it
    readings = [(0, 0, 0), (200, 0, 0), (20, 0, 0), (200, 0, 0)] + [(20, 0, 0)] * 10
    read, sleep, clock = fake_host(readings)
    flushed = []
    got = host_settle.wait(30, read, sleep, clock, cores=4, flush=lambda: flushed.append(1))
    assert flushed == [1]  # the build's writes flushed first
    assert got.quiet and got.waited_s == 6  # 1 noisy, 1 quiet, 1 noisy, then 3 quiet
    assert [s.quiet() for s in got.samples] == [False, True, False, True, True, True]
    assert got.note().startswith("quiet after 6 s (busy 0.20 cores")


def test_settle_stops_at_its_cap_and_says_why():
    # quiet cores, but dirty pages above the limit, then steal above its share
    readings = [(0, 0, 0)] + [(0, 0, 200 * 1024)] * 3 + [(0, 20, 0)] * 10
    read, sleep, clock = fake_host(readings)
    got = host_settle.wait(5, read, sleep, clock, cores=4, flush=lambda: None)
    assert not got.quiet and got.waited_s == 5 and len(got.samples) == 5
    assert got.samples[0].dirty_mib == 200 and got.samples[-1].steal_share == 0.05
    assert got.note().startswith("NOT quiet after 5 s (busy 0.00 cores, steal 5.0 %")
