"""bench as a test: tiny runs of each family with their JSON checked, and bad input.

ctest sets BENCH to the built binary; run by hand with BENCH=build/bench pytest tests/smoke.
"""
import json
import os
import re
import subprocess

import pytest

BENCH = os.environ.get("BENCH", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bench"))
CONTEXT_KEYS = ["torch_version", "cuda_runtime", "cuda_driver", "gpu_name", "cpu_threads_torch", "git_commit",
                "epochs", "tracing"]
NAME = re.compile(r"^(?P<family>\w+)/(?P<device>cpu|cuda)/(?P<args>.*?)/iterations:1/manual_time$")


def run_bench(tmp_path, *args):
    out = tmp_path / "out.json"
    proc = subprocess.run([BENCH, *args, f"--benchmark_out={out}", "--benchmark_out_format=json"],
                          capture_output=True, text=True, timeout=300)
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
        device = row["name"].split("/")[1].split("-")[0]  # ItemSync/cuda/..., Ladder/cuda-cuda_graph
        if device == "cuda" and no_gpu:
            assert row.get("error_occurred"), row["name"]
            assert row["error_message"].startswith("skipped: "), row["error_message"]
        else:
            assert not row.get("error_occurred"), (row["name"], row.get("error_message"))


def test_item_sync_rows_counts_and_context(tmp_path):
    epochs = 300
    doc = run_bench(tmp_path, "--benchmark_filter=ItemSync", f"--epochs={epochs}", "--warmup_epochs=5")
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
        assert row["item_calls"] == expected_item_calls(args["interval"], args["print100"], epochs), row["name"]
        assert row["epochs"] == epochs
        assert row["us_per_epoch"] > 0
        assert abs(row["us_per_epoch"] * epochs / 1e3 - row["real_time"]) < 1e-3 * row["real_time"] + 1e-6
        assert row["time_unit"] == "ms"
    want = {(d, i, p, 120) for d in ("cpu", "cuda") for i in (1, 100, 200, 1000, 2000, 0) for p in (0, 1)}
    assert seen == want
    check_device_rows(doc, rows)


def test_batch_sweep_runs_synthetic_batches(tmp_path):
    doc = run_bench(tmp_path, "--benchmark_filter=BatchSweep", "--sweep_epochs=10", "--warmup_epochs=0",
                    "--sweep_batches=120,1000")
    rows = doc["benchmarks"]
    assert {parse_args(r["name"])[2]["batch"] for r in rows} == {120, 1000}
    assert len(rows) == 8
    check_device_rows(doc, rows)
    for row in rows:
        if not row.get("error_occurred"):
            assert row["batch"] == parse_args(row["name"])[2]["batch"]


def test_repetitions_give_aggregates(tmp_path):
    doc = run_bench(tmp_path, "--benchmark_filter=ItemSync/cpu/interval:0/print100:0", "--epochs=50",
                    "--warmup_epochs=0", "--benchmark_repetitions=3")
    kinds = sorted(r.get("aggregate_name", "iteration") for r in doc["benchmarks"])
    assert kinds == ["cv", "iteration", "iteration", "iteration", "mean", "median", "stddev"]


@pytest.mark.parametrize("flag, message", [
    ("--devices=tpu", "--devices: expected cpu and/or cuda, got 'tpu'"),
    ("--intervals=100,-1", "--intervals: expected intervals >= 0"),
    ("--epochs=0", "--epochs: expected a positive integer, got '0'"),
    ("--print100=3", "--print100: expected 0 and/or 1"),
    ("--batches=-120", "--batches: expected batch sizes >= 1"),
    ("--no_such_flag=1", "unrecognized command-line flag"),
])
def test_bad_flags_fail_with_a_clear_message(flag, message):
    proc = subprocess.run([BENCH, flag, "--benchmark_filter=ItemSync/cpu/interval:0/print100:0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
    assert "ItemSync/cpu" not in proc.stdout  # nothing ran


def test_bad_data_dir_names_the_file(tmp_path):
    (tmp_path / "iris_train.csv").write_text("row,sepal_length\n")
    proc = subprocess.run([BENCH, f"--data_dir={tmp_path}", "--benchmark_filter=ItemSync/cpu"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert f"{tmp_path}/iris_train.csv:1: expected the header" in proc.stderr


def test_help_lists_families_and_flags():
    proc = subprocess.run([BENCH, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for text in ("ItemSync/<device>", "--epochs=N", "--benchmark_filter"):
        assert text in proc.stdout


def test_ladder_rows_match_the_float64_reference(tmp_path):
    doc = run_bench(tmp_path, "--benchmark_filter=Ladder", "--ladder_epochs=300", "--warmup_epochs=5")
    rows = {r["name"].split("/")[1]: r for r in doc["benchmarks"]}
    assert set(rows) == {"cpu-libtorch_eager", "cpu-fused_cpu", "cuda-libtorch_eager", "cuda-device_log",
                         "cuda-pinned_event", "cuda-cuda_graph", "cuda-fused_step_kernel", "cuda-persistent_kernel"}
    check_device_rows(doc, doc["benchmarks"])
    for name, row in rows.items():
        if row.get("error_occurred"):
            continue
        assert row["records"] == 3 and row["epochs"] == 300, name
        assert row["max_loss_error"] < 1e-3 and row["max_weight_error"] < 1e-3, name
        assert row["speedup_vs_eager"] > 0, name
    assert rows["cpu-fused_cpu"]["host_syncs"] == 0 and rows["cpu-libtorch_eager"]["host_syncs"] == 6


def test_python_eager_writes_rows_the_analysis_reads(tmp_path):
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    from analysis import bench_json
    script = os.path.join(os.path.dirname(__file__), "..", "..", "experiments", "python_eager.py")
    out = tmp_path / "python_eager.json"
    proc = subprocess.run([sys.executable, script, "--out", str(out), "--epochs", "300", "--repetitions", "2"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    run = bench_json.load(str(out))
    assert [r.variant for r in run.rows] == ["cpu-python_eager"] * 2
    # Same seed, data and loop as bench's LibTorch eager: the same trajectory.
    doc = run_bench(tmp_path, "--benchmark_filter=Ladder/cpu-libtorch_eager", "--ladder_epochs=300",
                    "--warmup_epochs=0")
    assert run.rows[0].counters["final_loss"] == pytest.approx(doc["benchmarks"][0]["final_loss"], rel=1e-5)


def test_primitive_families_run_or_skip(tmp_path):
    doc = run_bench(tmp_path, "--benchmark_filter=^(Dispatch|KernelLaunch|Sync|Memcpy)/", "--benchmark_min_time=0.01",
                    "--devices=cpu,cuda")
    rows = doc["benchmarks"]
    names = {r["name"].rsplit("/manual_time", 1)[0] for r in rows}
    for expected in ("Dispatch/cpu-add", "Dispatch/cpu-backward", "Dispatch/cpu-train_step", "Dispatch/cuda-add"):
        assert expected in names
    if doc["context"]["built_with_cuda"] == "yes":
        for expected in ("KernelLaunch/host_launch", "KernelLaunch/graph_node", "Sync/stream_idle",
                         "Sync/after_queued/k:64", "Sync/wake/blocking:1", "Sync/item_idle",
                         "Memcpy/DtoH-pinned-async/bytes:4", "Memcpy/HtoD-pageable-sync/bytes:268435456"):
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
            assert r["us_per_op"] * r["ops_per_iteration"] == pytest.approx(r["real_time"], rel=1e-6), r["name"]
    step = next(r for r in rows if r["name"].startswith("Dispatch/cpu-train_step"))
    assert step["aten_ops_per_step"] > 20  # forward, loss, backward and SGD of a 2-layer MLP


def test_budget_skips_rows_that_would_start_after_it(tmp_path):
    """--budget_s: the first row (longer than the budget) runs to the end; the one after it
    is skipped with a message naming the flag, and the JSON is still complete."""
    doc = run_bench(tmp_path, "--benchmark_filter=ItemSync/cpu/interval:0/", "--epochs=10000", "--warmup_epochs=0",
                    "--budget_s=0.2")
    first, second = doc["benchmarks"]
    assert not first.get("error_occurred") and first["real_time"] > 200  # ms: it ran past the budget
    assert second["error_occurred"] and second["error_message"] == "skipped: --budget_s=0.2 spent before this row started"
    assert doc["context"]["budget_s"].startswith("0.2")
