"""bench as a test: tiny runs of each family with their JSON checked, and bad input.

ctest sets BENCH to the built binary; run by hand with BENCH=build/bench pytest tests/smoke.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from analysis import article, bench_json
from experiments import sweeps  # the sweeps bench's defaults come from

REPO = os.path.join(os.path.dirname(__file__), "..", "..")

BENCH = os.environ.get(
    "BENCH", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bench")
)
CONTEXT_KEYS = [
    "torch_version",
    "cuda_runtime",
    "cuda_driver",
    "gpu_name",
    "cpu_threads_torch",
    "git_commit",
    "epochs",
    "tracing",
]
NAME = re.compile(r"^(?P<family>\w+)/(?P<device>cpu|cuda)/(?P<args>.*?)/iterations:1/manual_time$")


def run_bench(tmp_path, *args):
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [BENCH, *args, f"--benchmark_out={out}", "--benchmark_out_format=json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def parse_args(name):
    m = NAME.match(name)
    assert m, f"unexpected benchmark name {name!r}"
    args = dict(kv.split(":") for kv in m.group("args").split("/"))
    return m.group("family"), m.group("device"), {k: int(v) for k, v in args.items()}


def expected_item_calls(interval, print100, epochs):
    per_record = 2 if interval >= 2 else 1
    records = epochs // interval if interval > 0 else 0
    return records * per_record + (epochs // 100 if print100 else 0)


def check_device_rows(doc, rows):
    no_gpu = doc["context"]["gpu_name"] == "none"
    for row in rows:
        device = (
            row["name"].split("/")[1].split("-")[0]
        )  # ItemSync/cuda/..., Ladder/cuda-cuda_graph
        if device == "cuda" and no_gpu:
            assert row.get("error_occurred"), row["name"]
            assert row["error_message"].startswith("skipped: "), row["error_message"]
        else:
            assert not row.get("error_occurred"), (row["name"], row.get("error_message"))


def test_item_sync_rows_counts_and_context(tmp_path):
    epochs = 300
    doc = run_bench(
        tmp_path, "--benchmark_filter=ItemSync", f"--epochs={epochs}", "--warmup_epochs=5"
    )
    for key in CONTEXT_KEYS:
        assert key in doc["context"], key
    rows = doc["benchmarks"]
    seen = set()
    for row in rows:
        family, device, args = parse_args(row["name"])
        assert family == "ItemSync"
        seen.add((device, args["interval"], args["print100"], args["batch"]))
        if row.get("error_occurred"):
            continue
        assert row["item_calls"] == expected_item_calls(
            args["interval"], args["print100"], epochs
        ), row["name"]
        assert row["epochs"] == epochs
        assert row["us_per_epoch"] > 0
        assert (
            abs(row["us_per_epoch"] * epochs / 1e3 - row["real_time"])
            < 1e-3 * row["real_time"] + 1e-6
        )
        assert row["time_unit"] == "ms"
    # With no sweep flags bench runs experiments/sweeps.toml's sweep: the article's table and
    # the held-out interval among it.
    s = sweeps.load()
    want = {
        (d, i, p, b)
        for d in ("cpu", "cuda")
        for i in s["item_sync"]["intervals"]
        for p in s["item_sync"]["print100"]
        for b in s["item_sync"]["batches"]
    }
    assert seen == want
    intervals = {i for _, i, _, _ in seen}
    assert {k for k, _, _ in article.TABLE} <= intervals
    assert s["held_out"]["interval"] in intervals
    check_device_rows(doc, rows)


def test_batch_sweep_runs_synthetic_batches(tmp_path):
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=BatchSweep",
        "--sweep_epochs=10",
        "--warmup_epochs=0",
        "--sweep_batches=120,1000",
    )
    rows = doc["benchmarks"]
    assert {parse_args(r["name"])[2]["batch"] for r in rows} == {120, 1000}
    assert len(rows) == 8
    check_device_rows(doc, rows)
    for row in rows:
        if not row.get("error_occurred"):
            assert row["batch"] == parse_args(row["name"])[2]["batch"]


def test_repetitions_give_aggregates(tmp_path):
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=ItemSync/cpu/interval:0/print100:0",
        "--epochs=50",
        "--warmup_epochs=0",
        "--benchmark_repetitions=3",
    )
    kinds = sorted(r.get("aggregate_name", "iteration") for r in doc["benchmarks"])
    assert kinds == ["cv", "iteration", "iteration", "iteration", "mean", "median", "stddev"]


@pytest.mark.parametrize(
    "flag, message",
    [
        ("--devices=tpu", "--devices: expected cpu and/or cuda, got 'tpu'"),
        ("--intervals=100,-1", "--intervals: expected intervals >= 0"),
        ("--epochs=0", "--epochs: expected a positive integer, got '0'"),
        ("--print100=3", "--print100: expected 0 and/or 1"),
        ("--batches=-120", "--batches: expected batch sizes >= 1"),
        ("--no_such_flag=1", "unrecognized command-line flag"),
        ("--paired_rel_target=0", "--paired_rel_target: expected a fraction > 0"),
        ("--paired_min_rounds=1", "--paired_min_rounds: expected an integer >= 2"),
    ],
)
def test_bad_flags_fail_with_a_clear_message(flag, message):
    proc = subprocess.run(
        [BENCH, flag, "--benchmark_filter=ItemSync/cpu/interval:0/print100:0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
    assert "ItemSync/cpu" not in proc.stdout  # nothing ran


def test_bad_data_dir_names_the_file(tmp_path):
    (tmp_path / "iris_train.csv").write_text("row,sepal_length\n")
    proc = subprocess.run(
        [BENCH, f"--data_dir={tmp_path}", "--benchmark_filter=ItemSync/cpu"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert f"{tmp_path}/iris_train.csv:1: expected the header" in proc.stderr


def test_help_lists_families_and_flags():
    proc = subprocess.run(
        [BENCH, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0
    for text in ("ItemSync/<device>", "--epochs=N", "--benchmark_filter"):
        assert text in proc.stdout


def test_ladder_rows_match_the_float64_reference(tmp_path):
    doc = run_bench(
        tmp_path, "--benchmark_filter=Ladder", "--ladder_epochs=300", "--warmup_epochs=5"
    )
    rows = {r["name"].split("/")[1]: r for r in doc["benchmarks"]}
    assert set(rows) == {
        "cpu-libtorch_eager",
        "cpu-libtorch_eager_1thread",
        "cpu-libtorch_eager_allthreads",
        "cpu-fused_cpu",
        "cpu-fused_cpu_allthreads",
        "cuda-libtorch_eager",
        "cuda-device_log",
        "cuda-pinned_event",
        "cuda-cuda_graph",
        "cuda-fused_step_kernel",
        "cuda-persistent_kernel",
    }
    check_device_rows(doc, doc["benchmarks"])
    for name, row in rows.items():
        if row.get("error_occurred"):
            continue
        assert row["records"] == 3 and row["epochs"] == 300, name
        # float32 vs float64 after 300 epochs: the CPU rungs land near 1e-7 (losses) and 3e-6
        # (weights); CUDA rungs sum in other orders (tests/cpp/test_ladder.cpp says why 1e-3).
        loss_tol, weight_tol = (1e-3, 1e-3) if name.startswith("cuda-") else (1e-6, 3e-5)
        assert row["max_loss_error"] < loss_tol and row["max_weight_error"] < weight_tol, name
        assert "speedup_vs_eager" not in row, name  # the analysis divides the timed rows' medians
    assert (
        rows["cpu-fused_cpu"]["host_syncs"] == 0 and rows["cpu-libtorch_eager"]["host_syncs"] == 6
    )


def test_python_eager_writes_rows_the_analysis_reads(tmp_path):
    out = tmp_path / "python_eager.json"
    # Both devices named (the script's default too): on a GPU machine the cuda rows are real,
    # elsewhere one skipped row says why.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.python_eager",
            "--out",
            str(out),
            "--epochs",
            "300",
            "--repetitions",
            "2",
            "--devices",
            "cpu,cuda",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    run = bench_json.load(str(out))
    cpu_rows = [r for r in run.rows if r.variant == "cpu-python_eager"]
    cuda_rows = [r for r in run.rows if r.variant == "cuda-python_eager"]
    assert len(cpu_rows) == 2 and len(cpu_rows) + len(cuda_rows) == len(run.rows)
    for r in cpu_rows:  # checked against float64 as every ladder rung is, on the threads it says
        assert r.counters["max_loss_error"] < 1e-3 and r.counters["max_weight_error"] < 1e-3
        assert r.counters["cpu_threads"] == int(run.context["cpu_threads_torch"])
    raw_cuda = [
        r for r in json.loads(out.read_text())["benchmarks"] if r["name"].startswith("Ladder/cuda-")
    ]
    if run.context["gpu_name"] == "none":
        assert (
            not cuda_rows
            and len(raw_cuda) == 1
            and raw_cuda[0]["error_message"].startswith("skipped: ")
        )
    else:  # the same loop on the GPU lands on the same loss up to float32 reordering
        assert len(cuda_rows) == 2
        assert cuda_rows[0].counters["final_loss"] == pytest.approx(
            cpu_rows[0].counters["final_loss"], rel=1e-3
        )
    # Same seed, data and loop as bench's LibTorch eager: the same trajectory.
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=Ladder/cpu-libtorch_eager",
        "--ladder_epochs=300",
        "--warmup_epochs=0",
    )
    assert cpu_rows[0].counters["final_loss"] == pytest.approx(
        doc["benchmarks"][0]["final_loss"], rel=1e-5
    )


def test_python_eager_counts_kernels_in_a_process_of_its_own(capsys):
    """--profile-kernels counts in a child process (python -m experiments.python_eager
    --count-kernels), never in the one that times the loop: with a GPU it answers a count,
    without one the child's reason is printed and the count is left out."""
    from experiments import python_eager

    kernels = python_eager.kernels_in_own_process()
    if python_eager.torch.cuda.is_available():
        assert kernels is not None and kernels > 0
    else:
        assert kernels is None
        err = capsys.readouterr().err
        assert "exited 2" in err and "--count-kernels needs a GPU" in err


def test_primitive_families_run_or_skip(tmp_path):
    # Two processes, as scripts/gpu_check.sh runs them: Dispatch/cuda-train_step tears a CUPTI session
    # down and KernelLaunch/graph_node captures a CUDA graph, and PyTorch disables CUPTI teardown
    # once graphs are used (a crash on re-initialisation): the two never share a process.
    doc = run_bench(
        tmp_path, "--benchmark_filter=^Dispatch/", "--benchmark_min_time=0.01", "--devices=cpu,cuda"
    )
    rows = (
        doc["benchmarks"]
        + run_bench(
            tmp_path,
            "--benchmark_filter=^(KernelLaunch|Sync|Memcpy)/",
            "--benchmark_min_time=0.01",
            "--devices=cpu,cuda",
        )["benchmarks"]
    )
    names = {r["name"].rsplit("/manual_time", 1)[0] for r in rows}
    for expected in (
        "Dispatch/cpu-add",
        "Dispatch/cpu-backward",
        "Dispatch/cpu-train_step",
        "Dispatch/cuda-add",
    ):
        assert expected in names
    if doc["context"]["built_with_cuda"] == "yes":
        for expected in (
            "KernelLaunch/host_launch",
            "KernelLaunch/graph_node",
            "Sync/stream_idle",
            "Sync/after_queued/k:64",
            "Sync/wake/blocking:1",
            "Sync/item_idle",
            "Memcpy/DtoH-pinned-async/bytes:4",
            "Memcpy/HtoD-pageable-sync/bytes:268435456",
        ):
            assert expected in names
    no_gpu = doc["context"]["gpu_name"] == "none"
    for r in rows:
        cuda_row = not r["name"].startswith("Dispatch/cpu")
        if cuda_row and no_gpu:
            assert r.get("error_occurred") and r["error_message"].startswith("skipped: "), r["name"]
        else:
            assert not r.get("error_occurred"), (r["name"], r.get("error_message"))
            assert r["real_time"] > 0 and r["time_unit"] == "us" and r["label"]
            # Manual time is the batch; us_per_op is the price of one operation in it.
            assert r["us_per_op"] * r["ops_per_iteration"] == pytest.approx(
                r["real_time"], rel=1e-6
            ), r["name"]
    step = next(r for r in rows if r["name"].startswith("Dispatch/cpu-train_step"))
    assert step["aten_ops_per_step"] > 20  # forward, loss, backward and SGD of a 2-layer MLP


def test_budget_skips_rows_that_would_start_after_it(tmp_path):
    """--budget_s: the first row (longer than the budget) runs to the end; the one after it
    is skipped with a message naming the flag, and the JSON is still complete."""
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=ItemSync/cpu/interval:0/",
        "--epochs=10000",
        "--warmup_epochs=0",
        "--budget_s=0.2",
    )
    first, second = doc["benchmarks"]
    assert (
        not first.get("error_occurred") and first["real_time"] > 200
    )  # ms: it ran past the budget
    assert (
        second["error_occurred"]
        and second["error_message"] == "skipped: --budget_s=0.2 spent before this row started"
    )
    assert doc["context"]["budget_s"].startswith("0.2")


def test_paired_rows_interleave_and_say_whether_they_met_their_target(tmp_path):
    """Paired/cpu-held_out in short runs: each configuration's mean and interval, the paired
    difference's, the calls at each configuration's own rate over the rounds (the epoch count
    goes on across runs: 5 runs of 100 epochs hold the interval-500 record), the noise counters,
    and the target: unreachable here in its 1 s cap, so NOT met."""
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=^Paired/cpu-held_out",
        "--paired_epochs=100",
        "--paired_min_rounds=5",
        "--paired_max_s=1",
        "--paired_rel_target=0.000001",
        "--warmup_epochs=0",
    )
    (row,) = doc["benchmarks"]
    assert not row.get("error_occurred"), row
    assert row["configs"] == 2 and row["rounds"] >= 5 and row["epochs_per_run"] == 100
    assert row["c0_interval"] == 500 and row["c0_print100"] == 1 and row["c1_interval"] == 0
    rounds = int(row["rounds"])
    assert row["c0_item_calls_per_epoch"] == pytest.approx(
        expected_item_calls(500, True, 100 * rounds) / (100 * rounds)
    )
    assert row["c1_item_calls_per_epoch"] == pytest.approx(0.01)
    for c in ("c0", "c1"):
        assert row[f"{c}_lo"] <= row[f"{c}_us_per_epoch"] <= row[f"{c}_hi"]
    assert row["d0_1_lo"] <= row["d0_1_us"] <= row["d0_1_hi"]
    assert row["target_met"] == 0 and "target NOT met" in row["label"]
    assert 0 <= row["steal_share"] <= 1 and row["probe_us"] > 0 and row["probe_ratio"] >= 1
    assert row["disturbed"] in (0, 1)


def test_cupti_detach_check_writes_its_page_and_says_when_nothing_was_measured(tmp_path):
    """experiments/cupti_detach_check.py (run by the GPU script): on a GPU it compares the timed
    rows alone and after a CUPTI-traced pass; without one, every row skips and the page says so."""
    script = [sys.executable, "-m", "experiments.cupti_detach_check"]
    out = tmp_path / "cupti_detach"
    proc = subprocess.run(
        [*script, "--bench", os.path.abspath(BENCH), "--out", str(out), "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    page = (out / "cupti_detach.md").read_text()
    doc = json.loads((out / "cupti_detach.json").read_text())
    assert set(doc["rows"]) == {"alone", "after_trace"}
    if doc["medians"]:  # a GPU: both rows measured both ways
        assert set(doc["medians"]) == {"KernelLaunch/host_launch", "Sync/item_idle"}
        assert "kernels per step counted by CUPTI" in page
    else:
        assert "Not measured: " in page and "skipped: " in page
    bad = subprocess.run(
        [*script, "--bench", str(tmp_path / "nope"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert bad.returncode == 2 and "--bench" in bad.stderr


def test_traced_pass_sizing_from_a_probe(tmp_path):
    """The GPU script's probe: two traced rows in one process time the tracer's start and stop;
    experiments/size_traced_pass.py sizes the traced passes from the second. Here on the CPU
    rows (the same counters), with a budget that makes the size fall between its bounds."""
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=^ItemSync/cpu/interval:(0|1)/print100:0/",
        "--epochs=20",
        "--warmup_epochs=0",
        "--trace_epochs=20",
    )
    rows = [r for r in doc["benchmarks"] if r.get("attr_epochs", 0) > 0]
    assert len(rows) == 2 and all(r["trace_start_s"] >= 0 and r["trace_stop_s"] >= 0 for r in rows)
    script = [sys.executable, "-m", "experiments.size_traced_pass"]
    probe = tmp_path / "out.json"  # what run_bench wrote
    per_epoch_s = rows[1]["traced_us_per_epoch"] * 1e-6
    fixed = rows[1]["trace_start_s"] + rows[1]["trace_stop_s"]
    budget = 14 * (fixed + 300 * per_epoch_s)  # room for ~300 epochs per row
    proc = subprocess.run(
        [*script, str(probe), "--rows", "14", "--budget_s", str(budget)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert 290 <= int(proc.stdout) <= 300 and "traced pass 2" in proc.stderr
    tiny = subprocess.run(
        [*script, str(probe), "--rows", "14", "--budget_s", "0"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert int(tiny.stdout) == 100  # never below --min
    empty = tmp_path / "empty.json"
    empty.write_text('{"benchmarks": []}')
    bad = subprocess.run(
        [*script, str(empty), "--rows", "14", "--budget_s", "9"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert bad.returncode == 2 and "no row with a traced pass" in bad.stderr
