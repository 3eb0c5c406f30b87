"""The GPU run's steps and their scheduler: scripts/gpu_plan.py --run calls run_plan().

scripts/gpu_check.sh checks the machine (the preflight) and hands over; this runs the plan's steps
in order, each only if the budget left covers it and stopped at CAP_FACTOR x its estimate, records
each in steps-<part>.tsv (step, status, seconds, estimate, note: status ran | not-run | cut |
failed), and packs results/<machine>/ into OUT_DIR after every step, so a run cut at the device
tool's limit still returns everything done before the cut. A step returns (code, note): 0 ran,
3 not run (the note says why), 124 cut, anything else failed.
CUPTI teardown and CUDA-graph capture never share a process: PyTorch turns CUPTI teardown off
once CUDA graphs are used, citing a crash on re-initialisation after teardown (the comment beside
_TorchCompileInductorWrapper in torch/__init__.py). So Dispatch (a CUPTI kernel count) runs apart
from KernelLaunch/Sync/Memcpy (graph_node captures a graph), and the traced ItemSync rows apart
from the ladder and the rung sweep.
"""

import copy
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import time

from experiments import sweeps
from scripts import gpu_plan  # the estimates and fixed budgets

REPO = pathlib.Path(__file__).resolve().parent.parent

RAN, NOT_RUN, CUT = 0, 3, 124
# Steps that start when 20 s are left: bench's --budget_s stops starting rows at the budget.
BENCH_STEPS = {
    "item_sync_cuda",
    "item_sync_cpu",
    "dispatch",
    "primitives",
    "memcpy_sweep",
    "ladder_cuda",
    "ladder_cpu",
    "batch_sweep",
    "rung_sweep_cuda",
    "paired_cuda",
}
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


class Run:
    """One gpu_check.sh call: where things are, the budget, the record of the steps."""

    def __init__(self, env, part, out_dir):
        self.env = env
        self.out_dir = pathlib.Path(out_dir)
        self.py = env.get("PYTHON", "python3")
        self.build_dir = pathlib.Path(env.get("GPU_BUILD_DIR", REPO / "build-gpu"))
        self.bench = self.build_dir / "bench"
        self.machine = env["MACHINE"]
        self.results = REPO / "results" / self.machine
        self.results.mkdir(parents=True, exist_ok=True)
        self.budget_s = int(env.get("BUDGET_S") or gpu_plan.default_budget_s(part))
        self.cap_factor = int(env.get("CAP_FACTOR") or 3)
        self.grace_s = int(env.get("GRACE_S") or 30)
        self.t0 = float(env.get("GPU_CHECK_T0") or time.time())
        self.no_gpu_ok = env.get("ALLOW_NO_GPU", "0") == "1"
        self.sanitizer = env.get("SANITIZER", "")
        self.ctest_j = env.get("CTEST_J", "8")
        self.deps = REPO / ".deps" / "root" / "usr"
        self.label = "custom" if part == "custom" else f"part{part}"
        self.tsv = self.results / f"steps-{self.label}.tsv"
        self.tsv.write_text("step\tstatus\tseconds\testimate_s\tnote\n")
        # The GPU run's sizes: sweeps.toml with its [gpu] changes (then the [env] variables).
        self.sweeps = sweeps.load(profile="gpu", environ=env)

    def elapsed(self):
        return int(time.time() - self.t0)

    def step(self, msg):
        say(f"\033[1m[gpu_check]\033[0m [{self.elapsed()}s] {msg}")

    def left(self, analysis_s):
        return self.budget_s - analysis_s - self.elapsed()

    def record(self, name, status, seconds, estimate, note):
        note = " ".join(str(note).split())  # one line, no tabs
        with open(self.tsv, "a") as f:
            f.write(f"{name}\t{status}\t{seconds}\t{estimate}\t{note}\n")

    def tried(self, name):
        return any(line.split("\t")[0] == name for line in self.tsv.read_text().splitlines()[1:])

    def pack(self):
        """results/<machine>/ into OUT_DIR, atomically: a cut run returns all done before it."""
        final = self.out_dir / f"results-{self.machine}.tar.gz"
        tmp = self.out_dir / f".results-{self.machine}.tar.gz.tmp"
        with tarfile.open(tmp, "w:gz") as tar:
            tar.add(self.results, arcname=f"results/{self.machine}")
        os.replace(tmp, final)
        mb = final.stat().st_size // 1048576
        if mb >= 16:
            self.step(
                f"WARNING: {final.name} is {mb} MiB: over the 16 MiB a file may have to come back"
            )

    def flags(self, family, **changes):
        s = copy.deepcopy(self.sweeps)
        s[family].update(changes)
        return sweeps.flags(s, family)

    def bench_json(self, name, limit, flags):
        """bench with a budget; its JSON lands under its name only if bench finished."""
        partial = self.results / f".{name}.json.partial"
        rc = run_cmd(
            [self.bench, *flags, f"--budget_s={limit}", f"--benchmark_out={partial}"]
            + ["--benchmark_out_format=json"],
            timeout=limit + self.grace_s,
            env=self.env,
        )
        if rc == 0:
            os.replace(partial, self.results / f"{name}.json")
            return rc, ""
        if partial.exists():  # not *.json, so the analysis reads only complete files
            os.replace(partial, self.results / f"{name}.json.partial")
        return rc, f"bench exit {rc}: what it wrote is kept as {name}.json.partial"


# --- the steps: each (run, limit seconds) -> (code, note) ------------------------------------
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


def step_build_bench(r, limit):
    return build(r, "bench")


def step_build_tests(r, limit):
    return build(r)


def step_probe(r, limit):
    """Two traced rows in one process time the tracer's start (the first CUPTI session in a
    process can stall for seconds enabling concurrent-kernel tracing) and stop (flush, parse,
    detach); the plan's traced-pass budget is shared by every traced pass that will run."""
    probe = r.results / "probe"  # out of the analysis' folder: other epochs
    probe.mkdir(exist_ok=True)
    flags = r.flags("item_sync", trace_epochs=200)
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
            "experiments/size_traced_pass.py",
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


def step_item_sync_cuda(r, limit):
    (r.results / "traces").mkdir(exist_ok=True)
    flags = r.flags("item_sync", trace_epochs=trace_epochs(r))
    return r.bench_json(
        "item_sync_cuda", limit, [*flags, "--devices=cuda", f"--trace_dir={r.results / 'traces'}"]
    )


def step_item_sync_cpu(r, limit):  # the article's comparison is CPU vs GPU on one machine
    return r.bench_json(
        "item_sync_cpu", limit, [*r.flags("item_sync", trace_epochs=200), "--devices=cpu"]
    )


def step_replay_validation(r, limit):
    """The interval-1 traced pass predicts the rows that log less often."""
    traces = list(
        (r.results / "traces").glob("ItemSync_*_interval-1_print100-0_batch-120.trace.json")
    )
    if not traces:
        return (
            NOT_RUN,
            f"no traced ItemSync interval-1 pass in {r.results / 'traces'} (item_sync_cuda traces it on a GPU)",
        )
    rc, note = build(r, "attribute")
    if rc != 0:
        return rc, note
    env = dict(r.env, BUILD_DIR=str(r.build_dir))
    return run_cmd(["experiments/replay_validation.sh", r.results], timeout=limit, env=env), ""


def primitives(r, name, limit, filt, devices):
    flags = replace_flag(r.flags("primitives"), "--benchmark_filter=", f"--benchmark_filter={filt}")
    return r.bench_json(name, limit, [*flags, f"--devices={devices}"])


def step_dispatch(r, limit):  # its CUDA train_step counts kernels with CUPTI: alone in its process
    return primitives(r, "dispatch", limit, "^Dispatch/", "cpu,cuda")


def step_primitives(r, limit):  # launch, graph node, sync, .item() idle, the loop's copies + 1 MiB
    filt = "^(KernelLaunch|Sync)/|^Memcpy/[^/]+/bytes:(4|1048576)/"
    return primitives(r, "primitives", limit, filt, "cuda")


def step_memcpy_sweep(r, limit):
    filt = "^Memcpy/[^/]+/bytes:(1024|65536|16777216|268435456)/"
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


def step_ladder_cpu(r, limit):
    filt = "--benchmark_filter=^(Ladder/cpu-|Peak/)"
    flags = replace_flag(r.flags("ladder"), "--benchmark_filter=", filt)
    return r.bench_json("ladder_cpu", limit, [*flags, "--devices=cpu"])


def step_batch_sweep(r, limit):
    return r.bench_json("batch_sweep", limit, [*r.flags("batch_sweep"), "--devices=cpu,cuda"])


def step_paired_cuda(r, limit):  # the fitted quantities from paired short runs, on the GPU
    return r.bench_json("paired_cuda", limit, [*r.flags("paired"), "--devices=cuda"])


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
        [r.py, "scripts/sanitizer_findings.py", log],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=r.env,
    )
    (r.results / "compute_sanitizer_findings.txt").write_text(found.stdout)
    say(found.stdout)
    return RAN, " ".join(notes)


def step_cupti_detach(r, limit):
    cmd = [r.py, "experiments/cupti_detach_check.py", "--bench", r.bench]
    cmd += ["--out", r.results / "cupti_detach", "--rounds", "2", "--budget_s", str(limit // 5)]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


def step_python_eager(r, limit):
    cmd = [r.py, "experiments/python_eager.py", *r.flags("python_eager")]
    cmd += ["--devices=cpu,cuda", "--profile-kernels", "--out", r.results / "python_eager.json"]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


def step_rung_sweep_cuda(r, limit):  # a CUDA graph rung: no CUPTI in this process
    return r.bench_json("rung_sweep_cuda", limit, [*r.flags("rung_sweep"), "--devices=cuda"])


def step_torch_compile(r, limit):  # 2 compiles fit the cap
    cmd = [r.py, "experiments/torch_compile.py", *r.flags("torch_compile")]
    cmd += ["--devices=cuda", "--out", r.results / "torch_compile.json"]
    return run_cmd(cmd, timeout=limit, env=r.env), ""


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


# --- the scheduler ----------------------------------------------------------------------------
def run_step(r, plan, name):
    est = round(plan[name].seconds)
    left = r.left(gpu_plan.ANALYSIS_S)
    need = 20 if name in BENCH_STEPS else est
    if left < need:
        r.step(f"{name} NOT RUN: needs ~{est} s, {left} s of the {r.budget_s} s budget left")
        r.record(name, "not-run", 0, est, f"budget: needs ~{est} s, {left} s left")
        return
    limit = min(max(r.cap_factor * est, 60), left)
    r.step(f"{name} (estimate {est} s, stopped at {limit} s)")
    t = time.time()
    rc, note = globals()[f"step_{name}"](r, limit)
    secs = int(time.time() - t)
    if rc == RAN:
        r.record(name, "ran", secs, est, note)
    elif rc == NOT_RUN:
        r.record(name, "not-run", secs, est, note)
        r.step(f"{name} NOT RUN: {note}")
    elif rc in (CUT, 137):
        r.record(name, "cut", secs, est, f"stopped at {limit} s; {note}")
        r.step(f"{name} CUT at {limit} s")
    else:
        r.record(name, "failed", secs, est, f"exit {rc}; {note}")
        r.step(f"{name} FAILED (exit {rc}) {note}")
    r.pack()


def analysis(r):
    r.step("analysis")
    t = time.time()
    est = gpu_plan.ANALYSIS_S
    if not list(r.results.glob("item_sync_*.json")):
        # The report is built around the article's table: a part 2 or --steps run without it
        # leaves the report to the union of both parts' results, made after unpacking them.
        why = "no ItemSync results in this run: the report is made from both parts' results once unpacked"
        r.record("analysis", "not-run", 0, est, why)
        r.step(f"analysis NOT RUN: {why}")
        return
    table = r.results / "table.txt"
    with open(table, "w") as f:
        rc = subprocess.run(
            [r.py, "-m", "analysis.report", r.results, "--machine", r.machine],
            cwd=REPO,
            stdout=f,
            stderr=subprocess.STDOUT,
            env=r.env,
        ).returncode
    text = table.read_text(errors="replace")
    last = (text.strip().splitlines() or [""])[-1]
    r.record(
        "analysis",
        "ran" if rc == 0 else "failed",
        int(time.time() - t),
        est,
        "REPORT.md" if rc == 0 else last,
    )
    say(text)


def run_plan(env, part, names, plan, out_dir, preflight):
    """preflight: (problems, warnings, seconds) from gpu_check.sh. Returns the exit code."""
    r = Run(env, part, out_dir)
    problems, warnings, secs = preflight
    for w in warnings:
        r.step(f"warning: {w}")
    if problems:
        for p in problems:
            r.step(f"PREFLIGHT FAILED: {p}")
        r.record("preflight", "failed", secs, 15, "; ".join(problems))
        r.pack()
        return 1
    r.record("preflight", "ran", secs, 15, "; ".join(warnings))
    unit_tests = r.build_dir / "tests" / "unit_tests"
    for name in names:
        if name not in ("build_bench", "build_tests"):
            # a step whose binaries are missing (part 2 or --steps on a fresh machine) builds them
            if not r.bench.exists() and not r.tried("build_bench"):
                run_step(r, plan, "build_bench")
            if name in ("cuda_tests", "compute_sanitizer") and not unit_tests.exists():
                if not r.tried("build_tests"):
                    run_step(r, plan, "build_tests")
            if not r.bench.exists():
                r.record(name, "not-run", 0, round(plan[name].seconds), "bench did not build")
                continue
        run_step(r, plan, name)
    analysis(r)
    r.pack()
    rows = [x.split("\t") for x in r.tsv.read_text().splitlines()]
    say("")
    r.step("steps (seconds here; estimate for the GPU machine from scripts/gpu_plan.py):")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        say("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    rest = [
        x[0] for x in rows[1:] if x[1] == "cut" or (x[1] == "not-run" and x[4].startswith("budget"))
    ]
    if rest:
        r.step(
            f"left out; the rerun slot's command: scripts/gpu_check.sh $OUT --steps {','.join(rest)}"
        )
    r.step(
        f"done: unpack {out_dir}/results-{r.machine}.tar.gz at the repository root (docs/gpu-run.md)"
    )
    return 1 if any(x[1] == "failed" for x in rows[1:]) else 0
