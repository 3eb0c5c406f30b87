"""Chrome trace files checked by a parser: the synthetic one (hand-built records with
kernels, a copy and flows, written by write_synthetic_trace) and a CPU trace made end to
end by bench's traced pass."""

import json
import os
import subprocess
from collections import defaultdict

import pytest

BENCH = os.environ.get(
    "BENCH", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bench")
)
SYNTHETIC = os.environ.get("SYNTHETIC_TRACE", "")


def load_trace(path):
    doc = json.loads(open(path).read())
    assert doc["displayTimeUnit"] == "ns"
    events = doc["traceEvents"]
    for e in events:
        assert {"name", "ph", "pid", "tid"} <= e.keys(), e
        if e["ph"] in ("X", "s", "f"):
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
    return doc, events


def slices(events, pid=None, cat=None):
    return [
        e
        for e in events
        if e["ph"] == "X" and (pid is None or e["pid"] == pid) and (cat is None or e["cat"] == cat)
    ]


def assert_properly_nested(xs):
    """Slices on one thread either nest or are disjoint (what the viewers require)."""
    by_thread = defaultdict(list)
    for e in xs:
        by_thread[(e["pid"], e["tid"])].append(e)
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            end = e["ts"] + e["dur"]
            while stack and stack[-1] <= e["ts"] + 1e-9:
                stack.pop()
            assert not stack or end <= stack[-1] + 1e-9, f"{e['name']} crosses its parent"
            stack.append(end)


@pytest.mark.skipif(not SYNTHETIC, reason="SYNTHETIC_TRACE not set (ctest sets it)")
def test_synthetic_trace_units_tracks_and_flows():
    doc, events = load_trace(SYNTHETIC)
    names = {
        (e["pid"], e["args"]["name"])
        for e in events
        if e["ph"] == "M" and e["name"] == "process_name"
    }
    assert names == {(1, "CPU"), (100, "GPU 0")}
    kernels = slices(events, cat="kernel")
    assert len(kernels) == 3
    # Records are in ns from the first event (t=0); ts/dur are microseconds.
    first = min(kernels, key=lambda e: e["ts"])
    assert first["ts"] == pytest.approx(0.1) and first["dur"] == pytest.approx(0.2)
    copy = slices(events, cat="memcpy")[0]
    assert (
        copy["args"]["bytes"] == 4
        and copy["args"]["dst"] == "pinned"
        and copy["name"] == "Memcpy DtoH"
    )
    # One flow per launch or copy call with GPU work: start on the CPU, end on the GPU.
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    assert set(starts) == set(ends) == {1, 2, 3, 4}
    for fid, f in ends.items():
        assert f["bp"] == "e" and f["pid"] == 100 and starts[fid]["pid"] == 1
        assert starts[fid]["ts"] <= f["ts"]
    assert_properly_nested(slices(events, pid=1, cat="phase"))
    assert doc["otherData"]["clock"] == "steady"


def test_cpu_trace_end_to_end_and_attribution_counters(tmp_path):
    out = tmp_path / "row.json"
    proc = subprocess.run(
        [
            BENCH,
            "--benchmark_filter=ItemSync/cpu/interval:1/print100:0",
            "--epochs=40",
            "--warmup_epochs=0",
            "--trace_epochs=20",
            f"--trace_dir={tmp_path}",
            "--trace_file_epochs=3",
            f"--benchmark_out={out}",
            "--benchmark_out_format=json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(out.read_text())["benchmarks"]
    assert row["attr_epochs"] == 20
    assert row["traced_us_per_epoch"] > 0 and row["trace_overhead"] > 0
    for phase in ("forward", "loss", "zero_grad", "backward", "step", "log", "item"):
        assert row[f"phase_{phase}_us"] > 0, phase
    assert row["item_us_per_call"] > 0
    assert row["trace_start_s"] >= 0 and 0 <= row["trace_stop_s"] < row["real_time"] / 1e3
    assert (
        "attr_kernels" not in row and "phase_forward_kernels" not in row
    )  # no GPU timeline on the CPU
    assert row["attr_launch_queue"] == 0 and "attr_queue_empty_share" not in row  # nor a queue
    assert row["phase_forward_us"] + row["phase_backward_us"] < row["traced_us_per_epoch"]
    path = tmp_path / "ItemSync_cpu_interval-1_print100-0_batch-120.trace.json"
    doc, events = load_trace(path)
    phases = slices(events, pid=1, cat="phase")
    assert sum(e["name"] == "epoch" for e in phases) == 3
    assert sum(e["name"] == "item" for e in phases) == 3
    assert not slices(events, cat="kernel")
    assert_properly_nested(phases)
    assert not list(tmp_path.glob("*.tmp"))


def test_trace_dir_without_a_traced_pass_is_refused():
    proc = subprocess.run([BENCH, "--trace_dir=/tmp"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--trace_epochs=N" in proc.stderr


def run_cuda_item_sync(tmp_path, extra_env=None, trace_dir=True):
    """One ItemSync cuda row (interval 1) with a 20-epoch traced pass; skips the test
    when bench itself reports the CUDA row skipped (no GPU, or built without CUDA)."""
    out = tmp_path / "row.json"
    args = [
        BENCH,
        "--benchmark_filter=ItemSync/cuda/interval:1/print100:0",
        "--epochs=40",
        "--warmup_epochs=5",
        "--trace_epochs=20",
        f"--benchmark_out={out}",
        "--benchmark_out_format=json",
    ]
    if trace_dir:
        args += [f"--trace_dir={tmp_path}", "--trace_file_epochs=3"]
    proc = subprocess.run(
        args, capture_output=True, text=True, timeout=180, env={**os.environ, **(extra_env or {})}
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(out.read_text())["benchmarks"]
    if row.get("error_occurred"):
        assert row["error_message"].startswith("skipped: "), row["error_message"]
        pytest.skip(row["error_message"])
    return row, proc.stderr


def test_cuda_trace_end_to_end_and_attribution_counters(tmp_path):
    """GPU only: CUPTI records turned into per-epoch counters and a trace whose CPU slices
    (our phases on CUPTI's clock, and CUPTI's API records) nest, with a flow per launch."""
    row, _ = run_cuda_item_sync(tmp_path)
    assert row["attr_epochs"] == 20
    assert row["attr_dropped_records"] == 0
    assert row["attr_kernels"] >= 10, row  # forward, loss, backward and SGD of two layers
    for phase in ("forward", "backward", "step"):
        assert row[f"phase_{phase}_kernels"] > 0, phase
    # The backward's kernels are launched from LibTorch's autograd thread, which records no
    # phases: they belong to the `backward` range open on the recording thread, so backward
    # launches more than forward (not just the ones_like of the main thread), and every
    # kernel lands in some phase.
    assert row["phase_backward_kernels"] > row["phase_forward_kernels"], row
    assert row["attr_kernels_outside_phases"] == 0
    in_phases = sum(v for k, v in row.items() if k.startswith("phase_") and k.endswith("_kernels"))
    assert in_phases <= row["attr_kernels"] + 1e-9
    assert row["trace_start_s"] >= 0 and row["trace_stop_s"] >= 0
    assert row["attr_launches"] > 0 and row["attr_launch_api_us"] > 0
    assert row["attr_memcpys"] >= 1  # interval 1: the loss copied to the host every epoch
    assert 0 < row["attr_gpu_busy_us"] <= row["attr_window_us"]
    idle = (
        row["attr_idle_host_wait_us"] + row["attr_idle_kernel_wait_us"] + row["attr_idle_other_us"]
    )
    assert idle + row["attr_gpu_busy_us"] == pytest.approx(row["attr_window_us"], rel=1e-6)
    assert row["attr_sync_api_us"] > 0 and row["item_us_per_call"] > 0
    assert row["traced_us_per_epoch"] > 0 and row["trace_overhead"] > 0
    # The launch queue per epoch: a tiny model leaves it (nearly) empty, and every epoch falls
    # in one regime or another.
    assert row["attr_launch_queue"] == 1 and 0 < row["attr_queue_empty_share"] <= 1
    assert row["attr_queue_depth_max"] >= 1
    regimes = ("launch_bound", "gpu_bound", "mixed")
    assert sum(row[f"attr_queue_{r}_share"] for r in regimes) == pytest.approx(1)

    doc, events = load_trace(tmp_path / "ItemSync_cuda_interval-1_print100-0_batch-120.trace.json")
    assert doc["otherData"]["clock"] == "cupti"
    cpu = [e for e in slices(events, pid=1) if e["cat"] in ("phase", "cuda_runtime", "cuda_driver")]
    assert sum(e["name"] == "epoch" for e in cpu) == 3
    assert_properly_nested(cpu)
    kernels = slices(events, cat="kernel")
    assert kernels and all(e["pid"] >= 100 for e in kernels)
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    assert starts and set(starts) == set(ends)
    for fid, f in ends.items():
        assert starts[fid]["pid"] == 1 and f["pid"] >= 100 and starts[fid]["ts"] <= f["ts"]
    assert any(
        e["cat"] == "memcpy" and e["args"]["dst"] == "pinned" for e in slices(events)
    )  # .item()'s copy


def test_cuda_tracer_steps_aside_under_nsight_systems(tmp_path):
    """GPU only: with Nsight Systems' injection marker set, the traced pass steps aside with a
    message; the timed row stands, and no trace file is written."""
    row, stderr = run_cuda_item_sync(tmp_path, {"NSYS_PROFILING_SESSION_ID": "1"})
    assert "steps aside" in stderr
    assert row["attr_epochs"] == 0 and "attr_kernels" not in row
    assert row["real_time"] > 0
    assert not list(tmp_path.glob("*.trace.json"))
