import os
import shutil

import pytest

from analysis import bench_json, report
from analysis.tests.synthetic import CONTEXT, item_sync_doc, write

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "cpu_small")


def test_report_builds_from_committed_real_results(tmp_path, capsys):
    folder = tmp_path / "cpu-fixture"
    shutil.copytree(FIXTURE, folder)
    assert report.main([str(folder)]) == 0
    text = (folder / "REPORT.md").read_text()
    for heading in (
        "The article's tables, with ours beside them",
        "Our whole sweep",
        "The model",
        "Held-out prediction",
        "Why is the remaining time not linear in the number of loss records?",
        "Batch size",
        "GPU figures pending",
    ):
        assert heading in text
    assert (folder / "item_calls.png").stat().st_size > 10000
    assert (folder / "batch_sweep.png").stat().st_size > 10000
    out = capsys.readouterr().out
    assert ".item()" in out and "never" in out
    assert not list(folder.glob("*.tmp*"))


def test_article_values_sit_beside_ours(tmp_path, capsys):
    doc = item_sync_doc(500e-6, 40e-6, device="cuda")
    doc["context"]["gpu_name"] = "Test GPU"
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        "11.29 (GPU)" in out and "10.38 (GPU, record every 200); 10.02 (table ('remaining'))" in out
    )
    assert "GPU figures pending" not in (tmp_path / "REPORT.md").read_text()


def _expect_failure(tmp_path, capsys, *fragments):
    (tmp_path / "REPORT.md").write_text("previous report\n")
    assert report.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    for f in fragments:
        assert f in err, err
    assert (tmp_path / "REPORT.md").read_text() == "previous report\n"  # untouched


def test_malformed_file_names_the_file(tmp_path, capsys):
    (tmp_path / "item_sync.json").write_text('{"context": {"torch_version": ')
    _expect_failure(tmp_path, capsys, "item_sync.json", "not valid JSON")


def test_missing_field_names_file_and_field(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["benchmarks"][3]["real_time"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "item_sync.json", "missing field 'real_time'")


def test_missing_counter_names_it(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["benchmarks"][0]["item_calls"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "missing counter 'item_calls'")


def test_missing_context_field(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["context"]["gpu_name"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "context: missing field 'gpu_name'")


def test_rows_from_two_machines_are_refused(tmp_path, capsys):
    write(tmp_path / "a.json", item_sync_doc(1e-4, 1e-6))
    other = item_sync_doc(1e-4, 1e-6)
    other["context"]["gpu_name"] = "NVIDIA H200"
    write(tmp_path / "b.json", other)
    _expect_failure(tmp_path, capsys, "b.json", "'gpu_name'", "one machine")


def test_only_skipped_rows_is_a_clear_error(tmp_path, capsys):
    doc = {
        "context": dict(CONTEXT),
        "benchmarks": [
            {
                "name": "ItemSync/cuda/interval:1/print100:1/batch:120/iterations:1/manual_time",
                "run_type": "iteration",
                "error_occurred": True,
                "error_message": "skipped: no CUDA driver on this machine (no GPU)",
            }
        ],
    }
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "no ItemSync rows that ran")


def test_skipped_rows_are_listed_not_counted(tmp_path):
    doc = item_sync_doc(1e-4, 1e-6)
    doc["benchmarks"].append(
        {
            "name": "ItemSync/cuda/interval:1/print100:1/batch:120/iterations:1/manual_time",
            "run_type": "iteration",
            "error_occurred": True,
            "error_message": "skipped: no CUDA driver on this machine (no GPU)",
        }
    )
    run = bench_json.load(write(tmp_path / "item_sync.json", doc))
    assert all(r.device == "cpu" for r in run.rows)
    assert run.skipped[0][1].startswith("skipped:")
    assert report.main([str(tmp_path)]) == 0
    assert "skipped: no CUDA driver" in (tmp_path / "REPORT.md").read_text()


def test_counter_that_disagrees_with_the_name_is_refused(tmp_path):
    doc = item_sync_doc(1e-4, 1e-6)
    doc["benchmarks"][0]["interval"] = 7.0
    with pytest.raises(bench_json.BenchJsonError, match="disagrees with the name"):
        bench_json.load(write(tmp_path / "x.json", doc))


def test_empty_folder(tmp_path, capsys):
    assert report.main([str(tmp_path)]) == 2
    assert "no bench JSON files" in capsys.readouterr().err


def test_attribution_section_from_traced_rows(tmp_path):
    doc = item_sync_doc(500e-6, 40e-6, device="cuda", intervals=(200, 0), reps=1)
    doc["context"]["gpu_name"] = "Test GPU"
    for row in doc["benchmarks"]:
        row.update(
            {
                "attr_epochs": 2000.0,
                "traced_us_per_epoch": 560.0,
                "trace_overhead": 1.12,
                "phase_forward_us": 90.0,
                "phase_loss_us": 40.0,
                "phase_zero_grad_us": 10.0,
                "phase_backward_us": 250.0,
                "phase_step_us": 80.0,
                "phase_log_us": 5.0,
                "item_us_per_call": 45.0,
                "attr_launches": 21.0,
                "attr_kernels": 21.0,
                "attr_launch_api_us": 60.0,
                "attr_gpu_busy_us": 40.0,
                "attr_blocked_us": 3.0,
                "attr_idle_host_wait_us": 500.0,
                "attr_idle_kernel_wait_us": 10.0,
                "attr_idle_other_us": 10.0,
                "attr_launch_delay_p50_us": 6.0,
            }
        )
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    # The phases (475.0) and `outside the phases` (85.0) add up to the traced 560.0.
    assert (
        "| cuda | 200 | 1 | 500.8 | 560.0 | 1.12x | +59.2 (n<2: noise unknown) | 90.0 | 40.0 | 10.0 | 250.0 | "
        "80.0 | 5.0 | 85.0 | 45.0 |"
    ) in text
    assert "| 200 | 1 | 21.0 | 60.0 | 21.0 | 40.0 | 3.0 | 500.0 | 10.0 | 10.0 | 6.0 |" in text
    assert (tmp_path / "attribution.png").stat().st_size > 10000
    # Rows without bench's queue counters and no queue/ folder: the queue is said to be missing.
    assert "No launch-queue figures" in text


def _queue_step(empty_shares, regime):
    gpus = [
        {"device": d, "pieces": 3, "empty_share": e, "depth_p50": d, "depth_p90": 2 + d}
        | {"depth_max": 5 + d, "full_queue_calls": 0, "full_queue_us": 0.0}
        for d, e in enumerate(empty_shares)
    ]
    return {"name": "epoch", "queue": {"regime": regime, "gpus": gpus}}


def test_launch_queue_from_bench_counters_or_the_trace_files(tmp_path):
    """bench's attr_queue_* counters when a row has them; else ./attribute's JSON of the row's
    trace in queue/ (experiments/trace_queue.sh), per epoch the GPU empty least."""
    doc = item_sync_doc(500e-6, 40e-6, device="cuda", intervals=(200, 0), reps=1)
    doc["context"]["gpu_name"] = "Test GPU"
    for row in doc["benchmarks"]:
        row.update({"attr_epochs": 2000.0, "traced_us_per_epoch": 560.0, "attr_kernels": 21.0})
        if row["interval"] == 200:
            row.update(
                {
                    "attr_launch_queue": 1.0,
                    "attr_queue_empty_share": 0.9,
                    "attr_queue_depth_p50": 0.0,
                    "attr_queue_depth_p90": 1.0,
                    "attr_queue_depth_max": 2.0,
                    "attr_queue_launch_bound_share": 0.75,
                    "attr_queue_gpu_bound_share": 0.0,
                    "attr_queue_mixed_share": 0.25,
                }
            )
    write(tmp_path / "item_sync.json", doc)
    # The never-logging row's trace, three epochs on two GPUs, and a step of another name.
    steps = [
        _queue_step([0.5, 0.02], "GPU-bound"),
        _queue_step([0.4, 0.01], "GPU-bound"),
        _queue_step([0.3, 0.6], "mixed"),
        {"name": "ProfilerStep#1", "queue": {"regime": "launch-bound", "gpus": []}},
    ]
    (tmp_path / "queue").mkdir()
    name = "ItemSync_cuda_interval-0_print100-1_batch-120.trace.json"
    write(tmp_path / "queue" / name, {"traces": [{"steps": steps}]})
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert (
        "| 200 | 1 | 90.0 | 0 | 1 | 2 | launch-bound 75%, mixed 25% | bench's traced pass |" in text
    )
    # Busiest GPU per epoch: 0.02 (gpu 1), 0.01 (gpu 1), 0.3 (gpu 0): median 2.0%; depth p50
    # 1, 1, 0 -> 1; p90 3, 3, 2 -> 3; the deepest of all 6.
    assert (
        f"| never | 1 | 2.0 | 1 | 3 | 6 | GPU-bound 67%, mixed 33% | `queue/{name}` (3 epochs) |"
        in text
    )


def test_loop_is_predicted_from_primitive_rows(tmp_path):
    from analysis.tests.synthetic import row

    write(tmp_path / "item_sync.json", item_sync_doc(130e-6, 2e-6))
    prims = {
        "context": dict(CONTEXT),
        "benchmarks": [
            dict(
                row("Dispatch/cpu-add", 1.25e-6, epochs=1),
                time_unit="us",
                real_time=1.25,
                name="Dispatch/cpu-add/manual_time",
            ),
            dict(
                row("Dispatch/cpu-train_step", 128e-6, epochs=1, aten_ops_per_step=104),
                time_unit="us",
                real_time=128.0,
                name="Dispatch/cpu-train_step/manual_time",
            ),
        ],
    }
    write(tmp_path / "primitives.json", prims)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    # 104 ops x 1.25 us = 130.0 us predicted, next to the 130 us/epoch the ItemSync rows measured.
    assert (
        "| cpu | us/epoch = 104 ATen ops x 1.25 us (one tiny op) | 130.00 | "
        "130.00 [130.00, 130.00] ItemSync never-logging us/epoch | agrees (+0.0%; the ranges meet, both narrower "
        "than 10%) |  |"
    ) in text
    # The fit's runs allow no interval (its Model row says so), so its slope gets none here
    # either, and no verdict rests on it.
    assert (
        "| 2.00 the ItemSync fit's slope (no CI: runs not independent) | no verdict (the slope comes "
        "from runs that drift with their run order) | the fit's slope carries"
    ) in text
    assert "(no CI: runs not independent)" in text.split("## The model")[1].split("###")[0]
    # The Dispatch train_step (128 us) is off the exact 130 us by -1.5%, and says so.
    assert (
        "| cpu | us/epoch = Dispatch train_step (the same loop, timed alone) | 128.00 | 130.00 [130.00, 130.00]"
        in text
    )
    assert "off by -1.5% (the ranges do not meet) | measured minutes apart" in text
    # One primitive repetition: its spread cannot be known, and the report says so rather than
    # calling a 0% spread unstable.
    assert "**Too few repetitions to judge stability** (" in text
    assert "Not stable enough" not in text


def test_kernel_counts_cross_checked_when_both_exist(tmp_path):
    doc = item_sync_doc(500e-6, 40e-6, device="cuda", intervals=(0,), reps=1)
    doc["context"]["gpu_name"] = "Test GPU"
    for row in doc["benchmarks"]:
        row.update({"attr_epochs": 500.0, "attr_kernels": 21.0, "traced_us_per_epoch": 510.0})
    write(tmp_path / "item_sync.json", doc)
    from analysis.tests.synthetic import row

    py = {
        "context": dict(doc["context"]),
        "benchmarks": [
            row(
                "Ladder/cuda-python_eager",
                10.0,
                epochs=20000,
                torch_profiler_kernels_per_epoch=21.0,
            )
        ],
    }
    write(tmp_path / "python_eager.json", py)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "Kernels per epoch: 21.0 by CUPTI in bench's traced pass, 21.0 by torch.profiler" in text
    assert "as LibTorch's): they agree." in text
    py["benchmarks"][0]["torch_profiler_kernels_per_epoch"] = 18.0
    write(tmp_path / "python_eager.json", py)
    assert report.main([str(tmp_path)]) == 0
    assert "18.0 by torch.profiler" in (tmp_path / "REPORT.md").read_text()
    assert "they DIFFER by +3.0" in (tmp_path / "REPORT.md").read_text()


def test_primitives_are_set_beside_published_prices(tmp_path):
    from analysis.tests.synthetic import row

    write(tmp_path / "item_sync.json", item_sync_doc(130e-6, 2e-6))
    prims = {
        "context": dict(CONTEXT),
        "benchmarks": [
            dict(
                row("KernelLaunch/host_launch", 256 * 5e-6, epochs=1, us_per_op=5.0),
                name="KernelLaunch/host_launch/manual_time",
            ),
            dict(
                row("KernelLaunch/graph_node", 256 * 0.9e-6, epochs=1, us_per_op=0.9),
                name="KernelLaunch/graph_node/manual_time",
            ),
        ],
    }
    write(tmp_path / "primitives.json", prims)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert (
        "| KernelLaunch/host_launch | host time of one kernel launch (Linux) | 5.00 | 2.5-4 | above (one run) |"
        in text
    )
    assert (
        "| KernelLaunch/graph_node | one kernel node inside a replayed CUDA graph | 0.90 | 0.5-1.3 | inside (one run) |"
        in text
    )
    assert (
        "Sync/stream_idle"
        not in text.split("Measured against published figures")[1].split("\n\n")[1]
    )


def test_published_prices_pending_without_cuda_primitives(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(130e-6, 2e-6))
    from analysis.tests.synthetic import row

    write(
        tmp_path / "primitives.json",
        {
            "context": dict(CONTEXT),
            "benchmarks": [
                dict(
                    row("Dispatch/cpu-add", 1.25e-6, epochs=1), name="Dispatch/cpu-add/manual_time"
                )
            ],
        },
    )
    assert report.main([str(tmp_path)]) == 0
    assert (
        "published launch, sync and graph-node figures pending"
        in (tmp_path / "REPORT.md").read_text()
    )


def gpu_folder(tmp_path, persistent_us=2.0, batch_reps=2):
    """A whole GPU machine's folder, synthetic: ItemSync on both devices with traced
    counters, BatchSweep with a crossover at 10000 rows, every ladder rung, CUDA primitives
    and the Python eager rung with its kernel count."""
    from analysis.tests.synthetic import row

    ctx = dict(CONTEXT, gpu_name="Test GPU", cuda_driver="13.0")
    cpu, gpu = (
        item_sync_doc(100e-6, 1e-6, reps=2),
        item_sync_doc(200e-6, 40e-6, device="cuda", reps=2),
    )
    for r in gpu["benchmarks"]:
        r.update(
            {
                "attr_epochs": 500.0,
                "attr_kernels": 21.0,
                "attr_launches": 21.0,
                "attr_window_us": 200.0,
                "attr_gpu_busy_us": 40.0,
                "attr_idle_host_wait_us": 150.0,
                "attr_idle_kernel_wait_us": 5.0,
                "attr_idle_other_us": 5.0,
                "traced_us_per_epoch": 230.0,
                "trace_overhead": 1.15,
                "phase_forward_us": 50.0,
                "phase_backward_us": 80.0,
            }
        )
    write(
        tmp_path / "item_sync.json",
        {"context": ctx, "benchmarks": cpu["benchmarks"] + gpu["benchmarks"]},
    )
    sweep = []
    for device, base_us, per_row_ns in (("cpu", 100.0, 50.0), ("cuda", 200.0, 0.5)):
        for batch in (120, 1000, 10000, 30000, 100000):
            for interval, extra in ((0, 0.0), (1, 40.0 if device == "cuda" else 1.0)):
                us = base_us + per_row_ns * batch / 1e3 + extra
                for rep in range(batch_reps):
                    sweep.append(
                        row(
                            f"BatchSweep/{device}/interval:{interval}/batch:{batch}",
                            us * 200 / 1e6,
                            rep=rep,
                            epochs=200,
                            item_calls=200 * interval,
                            batch=batch,
                            interval=interval,
                        )
                    )
    write(tmp_path / "batch_sweep.json", {"context": ctx, "benchmarks": sweep})
    rungs = {
        ("cpu", "libtorch_eager"): 100.0,
        ("cpu", "fused_cpu"): 6.0,
        ("cuda", "libtorch_eager"): 250.0,
        ("cuda", "device_log"): 200.0,
        ("cuda", "pinned_event"): 205.0,
        ("cuda", "cuda_graph"): 60.0,
        ("cuda", "fused_step_kernel"): 4.0,
        ("cuda", "persistent_kernel"): persistent_us,
    }
    ladder = [
        row(
            f"Ladder/{d}-{r}",
            us * 20000 / 1e6,
            rep=rep,
            epochs=20000,
            max_loss_error=1e-5,
            max_weight_error=1e-4,
            final_loss=0.06,
            host_syncs=1,
        )
        for (d, r), us in rungs.items()
        for rep in range(2)
    ]
    write(tmp_path / "ladder.json", {"context": ctx, "benchmarks": ladder})
    prims = [
        dict(row(name, 256 * us * 1e-6, epochs=1, us_per_op=us), name=name + "/manual_time")
        for name, us in (
            ("KernelLaunch/host_launch", 2.1),
            ("KernelLaunch/graph_node", 0.9),
            ("Sync/stream_idle", 1.4),
            ("Sync/item_idle", 12.0),
            ("Dispatch/cuda-add", 4.0),
        )
    ]
    prims.append(
        dict(
            row(
                "Dispatch/cuda-train_step",
                16 * 210e-6,
                epochs=1,
                us_per_op=210.0,
                aten_ops_per_step=105,
                kernels_per_step=21,
            ),
            name="Dispatch/cuda-train_step/manual_time",
        )
    )
    write(tmp_path / "primitives.json", {"context": ctx, "benchmarks": prims})
    write(
        tmp_path / "python_eager.json",
        {
            "context": ctx,
            "benchmarks": [
                row(
                    "Ladder/cuda-python_eager",
                    400e-6 * 20000,
                    epochs=20000,
                    torch_profiler_kernels_per_epoch=21.0,
                )
            ],
        },
    )
    return tmp_path


def test_whole_gpu_folder_report(tmp_path):
    """Every GPU path of the report at once, on the shapes bench and python_eager.py write."""
    assert report.main([str(gpu_folder(tmp_path))]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "GPU figures pending" not in text
    assert (
        "- The GPU's never-logging epoch is faster than its CPU's from somewhere between batch "
        "1000 (slower there) and 10000 (faster there and at every larger batch)" in text
    )
    # one run of each rung: two significant digits
    assert "- fused CPU >= 10x LibTorch CPU eager: met (17x)" in text
    assert "- CUDA graph >= 3x LibTorch CUDA eager: met (4.2x)" in text
    assert "- persistent kernel >= 30x LibTorch CUDA eager: met (120x)" in text
    assert "- persistent kernel faster than the fused CPU loop: met (2.00 vs 6.00 us/epoch)" in text
    assert (
        "| KernelLaunch/host_launch | host time of one kernel launch (Linux) | 2.10 | 2.5-4 | below (one run) |"
        in text
    )
    assert (
        "| Sync/stream_idle | cudaStreamSynchronize on an idle stream | 1.40 | 0-1 | above (one run) |"
        in text
    )
    assert "they agree" in text
    assert "GPU timeline per epoch, traced (CUPTI on" in text
    for png in ("item_calls.png", "batch_sweep.png", "ladder.png", "attribution.png"):
        assert (tmp_path / png).stat().st_size > 10000, png


def test_missed_gpu_targets_say_not_met(tmp_path):
    assert report.main([str(gpu_folder(tmp_path, persistent_us=9.0))]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "- persistent kernel >= 30x LibTorch CUDA eager: NOT met (28x)" in text
    assert (
        "- persistent kernel faster than the fused CPU loop: NOT met (9.00 vs 6.00 us/epoch)"
        in text
    )


def test_failed_traced_passes_are_reported(tmp_path):
    doc = item_sync_doc(130e-6, 2e-6, intervals=(0, 1), reps=1)
    doc["benchmarks"][0].update({"attr_epochs": 0.0, "trace_failed": 1.0})
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "**The traced pass FAILED on 1 configuration(s)**" in text
    assert "their timed figures stand): ItemSync/cpu/interval:0/print100:0/batch:120" in text


@pytest.mark.parametrize("machine", ["cpu-intel-xeon-processor-2c", "nvidia-h200"])
def test_the_committed_report_is_what_the_command_writes_now(tmp_path, machine):
    """results/<machine>/REPORT.md is generated, never edited: regenerated from the committed
    JSON it must come out the same (all but the line naming the folder, which follows the
    working directory). Fails when the analysis changed and the report was not regenerated."""
    committed = os.path.join(os.path.dirname(__file__), "..", "..", "results", machine)
    folder = tmp_path / machine
    shutil.copytree(
        committed, folder, ignore=shutil.ignore_patterns("*.png", "REPORT.md", "table.txt")
    )
    assert report.main([str(folder), "--machine", machine]) == 0
    drop = lambda text: [
        l for l in text.splitlines() if not l.startswith("Generated by `python -m analysis.report")
    ]
    with open(os.path.join(committed, "REPORT.md")) as f:
        assert drop((folder / "REPORT.md").read_text()) == drop(f.read()), (
            "REPORT.md differs from what python -m analysis.report writes: regenerate it"
        )
