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

from experiments import sweeps
from scripts import gpu_plan, gpu_run, gpu_steps, host_settle

REPO = pathlib.Path(__file__).resolve().parent.parent

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


def test_part_1_starts_with_the_paired_cuda_rows_after_the_build():
    names = [x.name for x in gpu_plan.chosen("1")]
    # After the build, only the probe and the wait for a quiet host come before the Paired row.
    assert names[: names.index("paired_cuda_item") + 1] == [
        "preflight",
        "build_bench",
        "probe",
        "settle",
        "paired_cuda_item",
    ]
    first_whole = min(names.index(n) for n in names if n.startswith("item_sync"))
    part1 = [x.name for x in gpu_plan.steps() if x.part == 1]
    assert part1[-4:] == ["primitives", "dispatch", "paired_cuda", "paired_cuda_item_again"]
    assert first_whole == len(part1) and names[first_whole] == "item_sync_cuda"
    assert "what_if_pairs" in names  # the three pairs of the article's loop
    assert gpu_plan.core_seconds() <= gpu_plan.CORE_LIMIT_S  # the budget test, as the ctest


def bench_args(results, name):
    return json.loads((results / f"{name}.json").read_text())["args"]


def test_the_paired_and_whole_run_steps_pass_their_own_sizes(run_env, monkeypatch):
    env, tmp, results = run_env
    monkeypatch.setattr(gpu_run, "analysis", lambda r: None)  # no report of the fake's JSON
    names = ["paired_cuda_item", "paired_cuda_item_again", "item_sync_cuda", "item_sync_cuda_rest"]
    rc = gpu_run.run_plan(env, "custom", names, plan(**dict.fromkeys(names, 5)), tmp, ([], [], 0))
    assert rc == 0
    item = bench_args(results, "paired_cuda_item")
    assert "--benchmark_filter=^Paired/cuda-(item)/" in item and "--devices=cuda" in item
    assert f"--paired_diff_us={gpu_plan.PAIRED_ITEM_DIFF_US}" in item
    assert f"--paired_max_s={gpu_plan.PAIRED_ITEM_MAX_S}" in item
    # the second window lands apart, where the report's one-row-per-group reading does not see it
    again = bench_args(results / "second_window", "paired_cuda_item")
    assert f"--paired_max_s={gpu_plan.PAIRED_AGAIN_MAX_S}" in again
    whole = bench_args(results, "item_sync_cuda")
    intervals = ",".join(map(str, gpu_plan.WHOLE_INTERVALS))
    assert 0 not in gpu_plan.WHOLE_INTERVALS and 1 in gpu_plan.WHOLE_INTERVALS
    for flag in (f"--intervals={intervals}", "--print100=1", "--trace_epochs=0"):
        assert flag in whole, flag
    assert f"--benchmark_repetitions={sweeps.load()['item_sync']['repetitions']}" in whole
    assert "--benchmark_enable_random_interleaving=true" in whole
    rest = bench_args(results, "item_sync_cuda_rest")
    (filt,) = [a for a in rest if a.startswith("--benchmark_filter=")]
    assert "interval:1/print100:0" in filt and "interval:1/print100:1" not in filt
    assert any(a.startswith("--trace_dir=") for a in rest)


def test_the_whole_runs_start_only_with_time_for_all_of_them(run_env, monkeypatch):
    env, tmp, results = run_env
    monkeypatch.setattr(gpu_run, "analysis", lambda r: None)  # no report of the fake's JSON
    env["BUDGET_S"] = "100"  # 80 s after the report's 20: a bench step that stops itself starts
    names = ["item_sync_cuda", "item_sync_cuda_rest"]
    rc = gpu_run.run_plan(env, "custom", names, plan(**dict.fromkeys(names, 150)), tmp, ([], [], 0))
    assert rc == 0
    got = steps_of(results, "custom")
    assert got["item_sync_cuda"][1] == "not-run" and got["item_sync_cuda"][4].startswith("budget")
    assert got["item_sync_cuda_rest"][1] == "ran"


def test_the_settle_step_writes_its_readings_and_says_how_it_ended(run_env, monkeypatch):
    env, tmp, results = run_env
    read, sleep, clock = fake_host([(0, 0, 0)] + [(0, 0, 0)] * 5)
    real_wait = host_settle.wait

    def wait(max_s):  # the real wait on a fake quiet host
        return real_wait(max_s, read, sleep, clock, cores=4, flush=lambda: None)

    monkeypatch.setattr(host_settle, "wait", wait)
    rc = gpu_run.run_plan(env, "custom", ["settle"], plan(settle=30), tmp, ([], [], 0))
    assert rc == 0
    row = steps_of(results, "custom")["settle"]
    assert row[1] == "ran" and row[4].startswith("quiet after 3 s")
    assert (results / "settle.tsv").read_text().count("\n") == 4  # a header and 3 windows
