"""The GPU run's steps, each registered under its plan name: scripts/gpu_run.py runs them.

A step is a function (run, limit seconds) -> (code, note): 0 ran, 3 not run (the note says why),
124 cut, anything else failed. `run` is gpu_run's Run (where things are, the sizes, bench with a
budget); `limit` the seconds it may take. The plan (scripts/gpu_plan.py) orders and sizes them;
this module knows how each runs, and nothing of the order.
CUPTI teardown and CUDA-graph capture never share a process: PyTorch turns CUPTI teardown off
once CUDA graphs are used, citing a crash on re-initialisation after teardown (the comment beside
_TorchCompileInductorWrapper in torch/__init__.py). So Dispatch (a CUPTI kernel count) runs apart
from KernelLaunch/Sync/Memcpy (graph_node captures a graph), and the traced ItemSync rows apart
from the ladder and the rung sweep.
"""

import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys

from scripts import gpu_plan, host_settle

REPO = pathlib.Path(__file__).resolve().parent.parent

RAN, NOT_RUN, CUT = 0, 3, 124
STEPS = {}  # plan name -> the function that runs it
# Steps that start when 20 s are left: bench's --budget_s stops starting rows at the budget.
BUDGETED = set()


def step(name, budgeted=False):
    """Registers a step under its plan name."""

    def register(fn):
        STEPS[name] = fn
        if budgeted:
            BUDGETED.add(name)
        return fn

    return register


CUDA_TESTS = "LadderCuda|TraceSession|CuptiRecords|bench_smoke|write_synthetic"


def say(msg):
    print(msg, flush=True)


def run_cmd(cmd, timeout=None, log=None, env=None, cwd=REPO):
    """Runs cmd in its own process group; its output to log (appended) or ours. 124 on timeout
    (the whole group killed, as timeout(1) does)."""
    out = open(log, "a") if log else None
    try:
        proc = subprocess.Popen(
            [str(c) for c in cmd],
            cwd=cwd,
            env=env,
            stdout=out or sys.stdout,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            return CUT
    except OSError as e:
        say(f"cannot run {cmd[0]}: {e}")
        return 127
    finally:
        if out:
            out.close()


def cores():  # the cores this process may use (not OMP_NUM_THREADS, as nproc would answer)
    return len(os.sched_getaffinity(0))


def replace_flag(flags, prefix, value):
    return [value if f.startswith(prefix) else f for f in flags]


# --- the steps -------------------------------------------------------------------------------
def configure(r, log):
    if (r.build_dir / "build.ninja").exists():
        return 0  # a warm machine's second call: configured already
    prefix = subprocess.run(
        [r.py, "-c", "import torch.utils; print(torch.utils.cmake_prefix_path)"],
        capture_output=True,
        text=True,
        env=r.env,
    )
    if prefix.returncode != 0:
        with open(log, "a") as f:
            f.write(prefix.stderr)
        return prefix.returncode
    lib = r.deps / "lib" / "x86_64-linux-gnu"
    # The carried packages' CMake configs (lib/<triplet>/cmake/<name>/, named as a prefix too:
    # not every distro searches lib/<triplet>), libraries and headers, found like the machine's.
    return run_cmd(
        [
            "cmake",
            "-S",
            ".",
            "-B",
            r.build_dir,
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_PREFIX_PATH={prefix.stdout.strip()};{r.deps};{lib / 'cmake'}",
            f"-DCMAKE_LIBRARY_PATH={lib}",
            f"-DCMAKE_INCLUDE_PATH={r.deps / 'include'}",
            f"-DPython3_EXECUTABLE={shutil.which(r.py) or r.py}",
            "-DIRIS_WITH_CUDA=ON",
        ],  # fmt: skip
        log=log,
        env=r.env,
    )


def build(r, *targets):
    """Configure and build; the compiler's CPU seconds go to the note (the plan's estimate)."""
    log = r.results / "build.log"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = configure(r, log)
    if rc == 0:
        cmd = ["cmake", "--build", r.build_dir, "-j", str(cores())]
        rc = run_cmd(cmd + (["--target", *targets] if targets else []), log=log, env=r.env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = log.read_text(errors="replace").splitlines() if log.exists() else []
    for line in [x for x in text if "iris: CUDA parts" in x][-1:]:
        say(line)
    if rc != 0:
        r.step("BUILD FAILED (build.log):")
        marks = ("CMake Error", "error:", "Could NOT find", "Could not find")
        say("\n".join([x for x in text if any(m in x for m in marks)][:20]))
        say("\n".join(text[-30:]))
    return rc, f"compiler CPU {cpu:.0f} s (user+sys) on {cores()} cores"


@step("build_bench")
def step_build_bench(r, limit):
    return build(r, "bench")


@step("build_tests")
def step_build_tests(r, limit):
    return build(r)


@step("probe")
def step_probe(r, limit):
    """Two traced rows in one process time the tracer's start (the first CUPTI session in a
    process can stall for seconds enabling concurrent-kernel tracing) and stop (flush, parse,
    detach); the plan's traced-pass budget is shared by every traced pass that will run (the
    ItemSync rows that are not whole runs: item_sync_cuda_rest)."""
    probe = r.results / "probe"  # out of the analysis' folder: other epochs
    probe.mkdir(exist_ok=True)
    flags = rest_flags(r, trace_epochs=200)
    listed = subprocess.run(
        [r.bench, "--benchmark_list_tests", *flags, "--devices=cuda"],
        capture_output=True,
        text=True,
        env=r.env,
    )
    passes = sum(1 for x in listed.stdout.splitlines() if x.startswith("ItemSync/"))
    passes *= r.sweeps["item_sync"]["repetitions"]  # a traced pass follows every timed run
    rc = run_cmd(
        [
            r.bench,
            "--benchmark_filter=^ItemSync/cuda/interval:(0|1)/print100:0/",
            "--devices=cuda",
            "--epochs=200",
            "--warmup_epochs=10",
            "--trace_epochs=100",
            "--benchmark_repetitions=1",
            f"--benchmark_out={probe / 'trace_probe.json'}",
            "--benchmark_out_format=json",
        ],  # fmt: skip
        timeout=limit,
        log=probe / "probe.log",
        env=r.env,
    )
    if rc != 0:
        return rc, "probe failed (probe/probe.log): traced passes of 200 epochs"
    sized = subprocess.run(
        [
            r.py,
            "-m",
            "experiments.size_traced_pass",
            probe / "trace_probe.json",
            "--rows",
            str(passes),
            "--budget_s",
            str(gpu_plan.TRACED_BUDGET_S),
            "--min",
            "100",
            "--max",
            "500",
        ],  # fmt: skip
        cwd=REPO,
        capture_output=True,
        text=True,
        env=r.env,
    )
    with open(probe / "probe.log", "a") as f:
        f.write(sized.stderr)
    if sized.returncode != 0:
        note = "no traced row in the probe (no GPU?): traced passes of 200 epochs"
    else:
        (probe / "trace_epochs").write_text(sized.stdout)
        note = f"{passes} traced passes sized to {sized.stdout.strip()} epochs within {gpu_plan.TRACED_BUDGET_S} s"
    r.step(note)
    return RAN, note


def trace_epochs(r):
    try:
        return int((r.results / "probe" / "trace_epochs").read_text())
    except (OSError, ValueError):
        return 200


def rest_flags(r, **changes):
    """The ItemSync flags, filtered to the cuda rows that are not whole runs."""
    rows = "|".join(f"interval:{i}/print100:{p}" for i, p in gpu_plan.rest_rows())
    filt = f"--benchmark_filter=^ItemSync/cuda/({rows})/"
    return replace_flag(r.flags("item_sync", **changes), "--benchmark_filter=", filt)


@step("item_sync_cuda")
def step_item_sync_cuda(r, limit):
    """The article's table rows and its every-epoch run, whole, repetitions interleaved, no
    traced pass: started only with time for all of them."""
    flags = r.flags(
        "item_sync",
        intervals=gpu_plan.WHOLE_INTERVALS,
        print100=[1],
        repetitions=gpu_plan.WHOLE_REPS,
        trace_epochs=0,
    )
    return r.bench_json("item_sync_cuda", limit, [*flags, "--devices=cuda"])


@step("item_sync_cuda_rest", budgeted=True)
def step_item_sync_cuda_rest(r, limit):  # the traces: attribution and the replay's check
    (r.results / "traces").mkdir(exist_ok=True)
    flags = rest_flags(r, trace_epochs=trace_epochs(r)) + [f"--trace_dir={r.results / 'traces'}"]
    return r.bench_json("item_sync_cuda_rest", limit, [*flags, "--devices=cuda"])


@step("item_sync_cpu", budgeted=True)
def step_item_sync_cpu(r, limit):  # the article's comparison is CPU vs GPU on one machine
    return r.bench_json(
        "item_sync_cpu", limit, [*r.flags("item_sync", trace_epochs=200), "--devices=cpu"]
    )


@step("replay_validation")
def step_replay_validation(r, limit):
    """The interval-1 traced pass predicts the rows that log less often."""
    traces = list(
        (r.results / "traces").glob("ItemSync_*_interval-1_print100-0_batch-120.trace.json")
    )
    if not traces:
        return (
            NOT_RUN,
            f"no traced ItemSync interval-1 pass in {r.results / 'traces'} (item_sync_cuda_rest traces it on a GPU)",
        )
    rc, note = build(r, "attribute")
    if rc != 0:
        return rc, note
    env = dict(r.env, BUILD_DIR=str(r.build_dir))
    return run_cmd(["experiments/replay_validation.sh", r.results], timeout=limit, env=env), ""


def primitives(r, name, limit, filt, devices):
    flags = replace_flag(r.flags("primitives"), "--benchmark_filter=", f"--benchmark_filter={filt}")
    return r.bench_json(name, limit, [*flags, f"--devices={devices}"])


@step("dispatch", budgeted=True)
def step_dispatch(r, limit):  # its CUDA train_step counts kernels with CUPTI: alone in its process
    return primitives(r, "dispatch", limit, "^Dispatch/", "cpu,cuda")


@step("primitives", budgeted=True)
def step_primitives(r, limit):  # launch, graph node, sync, .item() idle, the loop's copies
    filt = "^(KernelLaunch|Sync)/|^Memcpy/[^/]+/bytes:4/"
    return primitives(r, "primitives", limit, filt, "cuda")


@step("memcpy_sweep", budgeted=True)
def step_memcpy_sweep(r, limit):
    filt = "^Memcpy/[^/]+/bytes:(1024|65536|1048576|16777216|268435456)/"
    return primitives(r, "memcpy_sweep", limit, filt, "cuda")


def ladder_errors(path, need_rows):
    """The CUDA rungs' float64 checks: the same bounds as tests/cpp/test_ladder.cpp's."""
    rows = [
        x for x in json.loads(path.read_text())["benchmarks"] if x.get("run_type") != "aggregate"
    ]
    ran = [x for x in rows if not x.get("error_occurred")]
    bad = [
        f"{x['name']}: loss {x['max_loss_error']:.1e}, weights {x['max_weight_error']:.1e}"
        for x in ran
        if not (x["max_loss_error"] < 1e-3 and x["max_weight_error"] < 1e-3)
    ]
    note = f"float64 check: {len(ran)} rows ran, {len(bad)} off by more than 1e-3"
    note += "".join(f"; OFF: {b}" for b in bad)
    if need_rows and not ran:  # with a GPU, a check of no rows proves nothing
        reasons = sorted({x.get("error_message", "") for x in rows})
        note += "; no CUDA rung ran: " + "; ".join(reasons)
    return (1 if bad or (need_rows and not ran) else 0), note


@step("ladder_cuda", budgeted=True)
def step_ladder_cuda(r, limit):
    flags = replace_flag(
        r.flags("ladder"), "--benchmark_filter=", "--benchmark_filter=^Ladder/cuda-"
    )
    rc, note = r.bench_json("ladder_cuda", limit, [*flags, "--devices=cuda"])
    if rc != 0:
        return rc, note
    rc, note = ladder_errors(r.results / "ladder_cuda.json", need_rows=not r.no_gpu_ok)
    say(note)
    return rc, note


@step("ladder_cpu", budgeted=True)
def step_ladder_cpu(r, limit):
    filt = "--benchmark_filter=^(Ladder/cpu-|Peak/)"
    flags = replace_flag(r.flags("ladder"), "--benchmark_filter=", filt)
    return r.bench_json("ladder_cpu", limit, [*flags, "--devices=cpu"])


@step("batch_sweep", budgeted=True)
def step_batch_sweep(r, limit):
    return r.bench_json("batch_sweep", limit, [*r.flags("batch_sweep"), "--devices=cpu,cuda"])


def paired(r, name, limit, groups, folder=None, **changes):
    """Paired rows on the GPU (the fitted quantities from paired short runs) of these groups."""
    flags = replace_flag(
        r.flags("paired", **changes),
        "--benchmark_filter=",
        f"--benchmark_filter=^Paired/cuda-({groups})/",
    )
    return r.bench_json(name, limit, [*flags, "--devices=cuda"], folder)


def paired_item(r, name, limit, max_s, folder=None):
    """Paired/cuda-item to this run's own targets: +-2 us per .item(), the file's per epoch."""
    return paired(
        r, name, limit, "item", folder, diff_target_us=gpu_plan.PAIRED_ITEM_DIFF_US, max_s=max_s
    )


@step("paired_cuda_item")
def step_paired_cuda_item(r, limit):  # the article's question first, before any whole run
    return paired_item(r, "paired_cuda_item", limit, gpu_plan.PAIRED_ITEM_MAX_S)


@step("paired_cuda", budgeted=True)
def step_paired_cuda(r, limit):
    return paired(r, "paired_cuda", limit, "held_out|replay")


@step("paired_cuda_item_again")
def step_paired_cuda_item_again(r, limit):
    """The same row in a second time window, apart from the first (the report reads one row
    per group): does the per-epoch cost hold?"""
    return paired_item(
        r, "paired_cuda_item", limit, gpu_plan.PAIRED_AGAIN_MAX_S, folder="second_window"
    )


@step("paired_cuda_batch", budgeted=True)
def step_paired_cuda_batch(r, limit):
    return paired(r, "paired_cuda_batch", limit, "batch")


@step("settle")
def step_settle(r, limit):
    """sync, then wait for the host to read quiet before the first timed row; its readings in
    settle.tsv. A host that never reads quiet is said in the note, and the run goes on."""
    settled = host_settle.wait(min(gpu_plan.SETTLE_MAX_S, limit))
    host_settle.write_tsv(r.results / "settle.tsv", settled)
    note = settled.note()
    say(note)
    return RAN, note


@step("what_if_pairs")
def step_what_if_pairs(r, limit):
    """The article's loop as three what-if pairs, with their provenance, for the validation set."""
    cmd = [r.py, "-m", "experiments.record_loop_pairs", "--out", r.results / "what_if_pairs"]
    return run_cmd(cmd + ["--device", "auto"], timeout=limit, env=r.env), "what_if_pairs/"


@step("cuda_tests")
def step_cuda_tests(r, limit):  # the tests whose CUDA half runs only here (CI runs them all)
    shutil.rmtree(r.build_dir / "test-reports", ignore_errors=True)  # this run's reports only
    log = r.results / "ctest.log"
    cmd = ["ctest", "--output-on-failure", "-j", r.ctest_j, "-R", CUDA_TESTS]
    rc = run_cmd(cmd, timeout=limit, log=log, cwd=r.build_dir, env=r.env)
    skips = subprocess.run(
        [r.py, "tests/skip_summary.py", r.build_dir],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=r.env,
    )
    with open(log, "a") as f:
        f.write(skips.stdout)
    text = log.read_text(errors="replace").splitlines()
    say("\n".join(text[-15:]))
    counts = [x for x in text if "tests passed" in x or "tests failed" in x]
    return rc, counts[-1] if counts else ""


@step("compute_sanitizer")
def step_compute_sanitizer(r, limit):
    if not r.sanitizer:
        return NOT_RUN, "compute-sanitizer not found on this machine"
    log = r.results / "compute_sanitizer.log"
    env = dict(r.env, IRIS_LADDER_TEST_EPOCHS="200")
    tests = r.build_dir / "tests" / "unit_tests"
    notes = []
    for tool, share, filt in (
        ("memcheck", 5, "*LadderCuda*fused_step_kernel*:*LadderCuda*persistent_kernel*"),
        ("racecheck", 3, "*LadderCuda*persistent_kernel*"),
        ("synccheck", 2, "*LadderCuda*persistent_kernel*"),
    ):
        cmd = [
            r.sanitizer,
            "--tool",
            tool,
            "--error-exitcode",
            "3",
            tests,
            f"--gtest_filter={filt}",
        ]
        rc = run_cmd(cmd, timeout=limit * share // 10, log=log, env=env)
        with open(log, "a") as f:
            f.write(f"{tool} exit {rc}\n")
        notes.append(f"{tool} exit {rc}")
    say("\n".join(log.read_text(errors="replace").splitlines()[-6:]))
    # The exit codes also count API errors raised inside LibTorch or cuBLAS: name each finding's
    # kernel, so a failure is read against our kernels only when it is theirs.
    found = subprocess.run(
        [r.py, "-m", "scripts.sanitizer_findings", log],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=r.env,
    )
    (r.results / "compute_sanitizer_findings.txt").write_text(found.stdout)
    say(found.stdout)
    return RAN, " ".join(notes)


@step("cupti_detach")
def step_cupti_detach(r, limit):
    cmd = [r.py, "-m", "experiments.cupti_detach_check", "--bench", r.bench]
    cmd += ["--out", r.results / "cupti_detach", "--rounds", "2", "--budget_s", str(limit // 5)]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


@step("python_eager")
def step_python_eager(r, limit):
    cmd = [r.py, "-m", "experiments.python_eager", *r.flags("python_eager")]
    cmd += ["--devices=cpu,cuda", "--profile-kernels", "--out", r.results / "python_eager.json"]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


@step("rung_sweep_cuda", budgeted=True)
def step_rung_sweep_cuda(r, limit):  # a CUDA graph rung: no CUPTI in this process
    return r.bench_json("rung_sweep_cuda", limit, [*r.flags("rung_sweep"), "--devices=cuda"])


@step("torch_compile")
def step_torch_compile(r, limit):  # 2 compiles fit the cap
    cmd = [r.py, "-m", "experiments.torch_compile", *r.flags("torch_compile")]
    cmd += ["--devices=cuda", "--out", r.results / "torch_compile.json"]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


@step("nsys")
def step_nsys(r, limit):  # the timeline with CUDA rows under our phases, into the tarball
    log = r.results / "nsys.log"
    env = dict(r.env, BUILD_DIR=str(r.build_dir))
    rc = run_cmd(["scripts/gpu_nsys.sh", r.results / "nsys"], timeout=limit, log=log, env=env)
    text = log.read_text(errors="replace").splitlines()
    say("\n".join(text[-5:]))
    # No nsys anywhere it looks (the rehearsal's root has none): not run, with why.
    missing = [x for x in text if "error: no nsys on this machine" in x]
    if rc != 0 and missing:
        return NOT_RUN, missing[0].split("error: ", 1)[1]
    return rc, ""
