"""bench's Peak and RungSweep families: tiny runs, their JSON checked (speed is not)."""

import math

from test_bench import check_device_rows, run_bench


def test_peak_rows_name_their_precision_threads_and_lanes(tmp_path):
    doc = run_bench(tmp_path, "--benchmark_filter=^Peak/")
    rows = {r["name"].split("/")[1]: r for r in doc["benchmarks"]}
    assert {"cpu-fma-f32-1thread", "cpu-fma-f64-1thread"} <= set(rows)
    for name, r in rows.items():
        assert r["gflops"] > 0 and r["cpu_threads"] >= 1, name
        assert ("float64" if r["float64"] else "float32") in r["label"], name
    assert rows["cpu-fma-f32-1thread"]["lanes"] == 2 * rows["cpu-fma-f64-1thread"]["lanes"]


def test_rung_sweep_every_cpu_rung_trains_the_same_batches(tmp_path):
    doc = run_bench(
        tmp_path,
        "--benchmark_filter=^RungSweep/",
        "--rung_sweep_batches=120,1000",
        "--rung_sweep_epochs=2",
    )
    # The hand-written CUDA kernels hold at most 256 rows: at 1000 they refuse, saying why, with or
    # without a GPU; every other row runs (or, without a GPU, skips for that reason).
    kernels = ("cuda-fused_step_kernel", "cuda-persistent_kernel")
    refused = [
        r
        for r in doc["benchmarks"]
        if r["name"].split("/")[1] in kernels and "/batch:1000/" in r["name"]
    ]
    assert len(refused) == 2, [r["name"] for r in doc["benchmarks"]]
    for r in refused:
        assert (
            r["error_message"]
            == "skipped: the hand-written kernels hold at most 256 rows (one block's shared "
            "memory), not 1000"
        ), r
    check_device_rows(doc, [r for r in doc["benchmarks"] if r not in refused])
    cpu = [r for r in doc["benchmarks"] if r["name"].startswith("RungSweep/cpu-")]
    rungs = {r["name"].split("/")[1] for r in cpu}
    assert rungs == {
        "cpu-libtorch_eager",
        "cpu-libtorch_eager_1thread",
        "cpu-libtorch_eager_allthreads",
        "cpu-fused_cpu",
        "cpu-fused_cpu_allthreads",
    }
    by_batch = {}
    for r in cpu:
        assert not r.get("error_occurred"), r
        # epochs = rung_sweep_epochs x 10^4 / rows within [rung_sweep_epochs, 20000]
        assert r["epochs"] == min(20000, max(2, int(2 * 1e4 / r["rows"]))), r["name"]
        assert r["flops_per_epoch"] > 0 and r["us_per_epoch"] > 0 and math.isfinite(r["final_loss"])
        by_batch.setdefault(int(r["rows"]), []).append(r["final_loss"])
    # Same seed, rows and epochs: every rung ends at the same loss up to float32 summation order.
    for rows, losses in by_batch.items():
        assert max(losses) - min(losses) < 1e-3 * max(losses), (rows, losses)
