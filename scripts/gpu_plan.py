"""The GPU run's plan and its runner: every step, most needed first, with an ESTIMATE of its
seconds on the GPU machine, so one device command does what matters most inside its budget.

Each estimate is rows x epochs x a per-epoch cost, plus fixed costs, from the article's own machine
(ARTICLE.md): 518 us per epoch of its loop on its GPU (RTX 3080 Ti, PyTorch eager) and 46 us per
.item(), solved from its two GPU runs; 145 us per epoch on its CPU (2.9 s / 20000). They are the
only measured figures of this loop on a GPU that we have; the H200 machine will replace them with
its own (steps.tsv holds both). Costs the article has no figure for are marked "guess".

    python -m scripts.gpu_plan --part 1|2|all [--budget_s S]    the plan as a table (the run prints it)
    python -m scripts.gpu_plan --names --part 1|2|all           the step names, one a line, in order
    python -m scripts.gpu_plan --estimate STEP                  one step's estimate in whole seconds
    python -m scripts.gpu_plan --check                          exit 1 unless part 1's core, (a)-(c)
                                                                with the preflight and the build, fits
                                                                CORE_LIMIT_S

From the repository root. scripts/gpu_run.py runs the plan (scripts/gpu_check.sh calls it after its
preflight); the steps' commands are scripts/gpu_steps.py's. This module knows neither.

The sizes (epochs, rows, repetitions) are experiments/sweeps.toml's with its [gpu] changes.
Part 1 is the first device call: the preflight, bench's build, then (a) the article's table on the
GPU and the CPU, (b) the primitives, (c) the ladder's CUDA rungs; then, while its budget lasts, part
2's steps in order. Part 2 is the second call (the rerun slot): (d) the batch crossover, (e) the CUDA
tests and compute-sanitizer, then the rest."""

import argparse
import os
import sys
from dataclasses import dataclass

from experiments import sweeps

GPU_US = 518.0  # us per epoch, the article's loop on its GPU
ITEM_US = 46.0  # us per .item() on the article's GPU
CPU_US = 145.0  # us per epoch, the article's loop on its CPU
CPU_NS_PER_ROW = 130.0  # LibTorch eager per extra row on the CPU: measured here (2-core Xeon,
# results/cpu-intel-xeon-processor-2c, 10^6 rows); more cores run it faster
GPU_NS_PER_ROW = 0.5  # guess: 10^6 rows are ~0.4 GFLOP and ~0.3 GB of traffic per epoch on an H200
PROCESS_S = 5.0  # guess: one bench/python process loading LibTorch and making a CUDA context
TRACE_FIXED_S = 1.0  # guess: one CUPTI session's start + stop (the probe measures it)
TRACE_SLOWDOWN = 3.0  # guess: a traced epoch against an untraced one
TRACED_BUDGET_S = 20  # what the ItemSync cuda traced passes get (the probe sizes them to it)
PRIMITIVE_ROW_S = (
    0.3  # a primitive row: --benchmark_min_time=0.2 of manual time + its set-up (guess)
)
# Seconds of compiler time (user + sys) the builds took, as scripts/gpu_check.sh measured them in
# the device rehearsal (scripts/device_rehearsal.sh, commit 7033d53, 2 shared cores): bench 322 s
# (304 s at 98fc877), the tests 187 s more. The GPU machine's 16 cores are assumed 75% busy, but a
# build takes at least its longest compile and the links (BUILD_MIN_S, guess).
BUILD_BENCH_CPU_S = 322.0
BUILD_TESTS_CPU_S = 187.0
BUILD_CORES, BUILD_EFFICIENCY, BUILD_MIN_S = 16, 0.75, 45.0
CORE_LIMIT_S = (
    420  # part 1's core, (a)-(c) with preflight, build and report, must fit one command's 420 s
)

ANALYSIS_S = 20  # guess: the report and the tarball, kept at the end of every part
SWEEPS = sweeps.load(profile="gpu", environ=os.environ)  # what the run will pass
EPOCHS, WARMUP = SWEEPS["item_sync"]["epochs"], 100
ITEM_INTERVALS, PRINT100 = SWEEPS["item_sync"]["intervals"], SWEEPS["item_sync"]["print100"]
ITEM_REPS = SWEEPS["item_sync"]["repetitions"]
SWEEP = SWEEPS["batch_sweep"]
SWEEP_BATCHES, SWEEP_INTERVALS, SWEEP_EPOCHS = SWEEP["batches"], SWEEP["intervals"], SWEEP["epochs"]
SWEEP_WARMUP = 10
PRIM_REPS = SWEEPS["primitives"]["repetitions"]
EAGER, RUNGS = SWEEPS["python_eager"], SWEEPS["rung_sweep"]


def rung_epochs(rows):  # bench's RungSweep rule (benchmarks/rung_sweep.cpp)
    e = RUNGS["epochs"]
    return min(20000, max(e, int(e * 1e4 / rows)))


MEMCPY_ROWS_CORE = 16  # 8 kinds x {4 B, 1 MiB}: the copies the loop does and one large one
MEMCPY_ROWS_ALL = 48  # 8 kinds x 6 sizes (benchmarks/memcpy.cpp)
KERNEL_LAUNCH_ROWS, SYNC_ROWS = 3, 14


def item_calls(interval, print100, epochs=EPOCHS):
    records = epochs // interval if interval else 0
    return records * (2 if interval >= 2 else 1) + (epochs // 100 if print100 else 0)


def build_seconds(cpu_s):
    return max(BUILD_MIN_S, cpu_s / BUILD_CORES / BUILD_EFFICIENCY)


@dataclass
class Step:
    name: str
    group: str  # a-e as in issue 19's order; "-" for the preflight, builds and analysis; "rest"
    part: int
    seconds: float
    how: str


def _setup():
    """The preflight and bench's build."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    add("preflight", "-", 1, 15, "tools, python3 imports, nvidia-smi, carried libraries (guess)")
    add(
        "build_bench",
        "-",
        1,
        build_seconds(BUILD_BENCH_CPU_S),
        f"configure + bench: {BUILD_BENCH_CPU_S:.0f} CPU-s (measured in the rehearsal) / {BUILD_CORES} cores x "
        f"{BUILD_EFFICIENCY}, at least {BUILD_MIN_S:.0f} s",
    )
    return s


def _article_table():
    """(a) The article's table on the GPU and on this machine's CPU; the replay's check."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    rows = len(ITEM_INTERVALS) * len(PRINT100)
    items = sum(item_calls(i, p) for i in ITEM_INTERVALS for p in PRINT100)
    add(
        "probe",
        "a",
        1,
        2 * (200 + 10) * GPU_US / 1e6
        + 2 * (100 * GPU_US * TRACE_SLOWDOWN / 1e6 + TRACE_FIXED_S)
        + PROCESS_S,
        "2 ItemSync cuda rows x 210 epochs x 518 us + 2 traced passes of 100 epochs: sizes the traced passes",
    )
    add(
        "item_sync_cuda",
        "a",
        1,
        ITEM_REPS * (rows * (EPOCHS + WARMUP) * GPU_US / 1e6 + items * ITEM_US / 1e6)
        + TRACED_BUDGET_S
        + PROCESS_S,
        f"{rows} rows x {EPOCHS + WARMUP} epochs x {GPU_US:.0f} us + {items} .item() x {ITEM_US:.0f} us "
        f"+ traced passes {TRACED_BUDGET_S} s, {ITEM_REPS} repetition(s)",
    )
    add(
        "item_sync_cpu",
        "a",
        1,
        ITEM_REPS * rows * ((EPOCHS + WARMUP) * CPU_US / 1e6 + 200 * CPU_US * 2 / 1e6) + PROCESS_S,
        f"{rows} rows x {EPOCHS + WARMUP} epochs x {CPU_US:.0f} us + traced passes of 200 epochs, "
        f"{ITEM_REPS} repetition(s)",
    )
    add(
        "replay_validation",
        "a",
        1,
        12,
        "./attribute built (the trace library is bench's), then the ItemSync "
        "interval-1 traced passes replayed with the log phase kept every 100, 1000 epochs or never (guess)",
    )
    return s


def _primitives():
    """(b) The primitives: Dispatch alone in its process, then launch, sync and copies."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    add(
        "dispatch",
        "b",
        1,
        6 * PRIM_REPS * PRIMITIVE_ROW_S
        + 2 * (10 * GPU_US * TRACE_SLOWDOWN / 1e6 + TRACE_FIXED_S)
        + PROCESS_S,
        f"Dispatch cpu/cuda add, backward, train_step x {PRIM_REPS} repetitions; its CUPTI kernel count, "
        "alone in its process",
    )
    prim_rows = KERNEL_LAUNCH_ROWS + SYNC_ROWS + MEMCPY_ROWS_CORE
    add(
        "primitives",
        "b",
        1,
        prim_rows * PRIM_REPS * PRIMITIVE_ROW_S + PROCESS_S,
        f"KernelLaunch (graph node too), Sync (.item() idle), Memcpy 4 B + 1 MiB: {prim_rows} rows x {PRIM_REPS} repetitions "
        "x 0.3 s; no CUPTI in this process",
    )
    return s


def _ladder():
    """(c) The ladder's CUDA rungs."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    eager_like = (
        4  # the eager baseline + LibtorchEager, DeviceLog, PinnedEvent run at about eager's cost
    )
    add(
        "ladder_cuda",
        "c",
        1,
        eager_like * EPOCHS * GPU_US / 1e6
        + 3 * EPOCHS * 50 / 1e6
        + EPOCHS * CPU_US * 1.2 / 1e6
        + PROCESS_S,
        f"6 CUDA rungs x {EPOCHS} epochs: 4 runs at ~{GPU_US:.0f} us, graph + 2 kernels at ~50 us (guess), "
        "the float64 reference on the CPU; errors checked against it",
    )
    return s


def _crossover():
    """(d) The batch crossover and the Paired rows."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    sweep = sum(
        (SWEEP_EPOCHS + SWEEP_WARMUP) * (CPU_US / 1e6 + b * CPU_NS_PER_ROW / 1e9)
        for b in SWEEP_BATCHES
    ) + sum(
        (SWEEP_EPOCHS + SWEEP_WARMUP) * (GPU_US / 1e6 + b * GPU_NS_PER_ROW / 1e9)
        for b in SWEEP_BATCHES
    )
    add(
        "batch_sweep",
        "d",
        2,
        sweep * len(SWEEP_INTERVALS) * SWEEP["repetitions"] + PROCESS_S,
        f"BatchSweep cpu+cuda, {len(SWEEP_BATCHES)} batches to 10^6 rows x {SWEEP_EPOCHS + SWEEP_WARMUP} epochs "
        f"x {len(SWEEP_INTERVALS)} intervals x {SWEEP['repetitions']} repetitions "
        f"({CPU_NS_PER_ROW:.0f} ns/row on the CPU)",
    )
    paired = SWEEPS["paired"]
    add(
        "paired_cuda",
        "d",
        2,
        4 * paired["max_s"] + PROCESS_S,
        f"Paired cuda: item, replay, held_out, batch, each until its targets or {paired['max_s']:g} s",
    )
    return s


def _tests():
    """(e) The tests with CUDA rows live, and compute-sanitizer."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    add(
        "build_tests",
        "e",
        2,
        build_seconds(BUILD_TESTS_CPU_S),
        f"the tests: {BUILD_TESTS_CPU_S:.0f} CPU-s / {BUILD_CORES} cores x {BUILD_EFFICIENCY}, at least {BUILD_MIN_S:.0f} s",
    )
    add(
        "cuda_tests",
        "e",
        2,
        3 * EPOCHS * GPU_US / 1e6 + EPOCHS * CPU_US * 1.2 / 1e6 + 60,
        "LadderCuda float64 tests (3 eager-cost rungs x 20000 epochs) + the smoke tests with CUDA rows live "
        "(60 s, guess: they took 74 s on the rehearsal's 2 shared cores with the CUDA rows skipped)",
    )
    add(
        "compute_sanitizer",
        "e",
        2,
        70,
        "memcheck, racecheck, synccheck on the hand-written kernels (cap)",
    )
    return s


def _rest():
    """The rest."""
    s = []
    add = lambda *a: s.append(Step(*a))  # noqa: E731
    add(
        "ladder_cpu",
        "rest",
        2,
        3 * EPOCHS * CPU_US / 1e6 * 2 + EPOCHS * CPU_US * 1.2 / 1e6 + 5 + PROCESS_S,
        "Ladder CPU rungs + Peak, 1 repetition",
    )
    add(
        "cupti_detach",
        "rest",
        2,
        25,
        "KernelLaunch/Sync alone and after a CUPTI pass, 2 rounds (its own estimate)",
    )
    add(
        "python_eager",
        "rest",
        2,
        EAGER["repetitions"] * EAGER["epochs"] * (GPU_US + CPU_US) / 1e6 + 10,
        f"the article's Python loop, cpu + cuda, {EAGER['repetitions']} repetitions, + a profiler kernel count",
    )
    add(
        "rung_sweep_cuda",
        "rest",
        2,
        RUNGS["repetitions"]
        * sum(4 * (rung_epochs(b) + 10) * GPU_US / 1e6 for b in RUNGS["batches"])
        + PROCESS_S,
        f"RungSweep cuda, 4 rungs at {', '.join(map(str, RUNGS['batches']))} rows, "
        f"{RUNGS['repetitions']} repetitions",
    )
    add(
        "nsys",
        "rest",
        2,
        120,
        "scripts/gpu_nsys.sh: an ItemSync cuda row under nsys -t cuda,nvtx,osrt, its export, "
        "./attribute on it, one report per epoch (guess: it took 99 s in its CPU rehearsal on 2 shared cores)",
    )
    add(
        "memcpy_sweep",
        "rest",
        2,
        (MEMCPY_ROWS_ALL - MEMCPY_ROWS_CORE) * PRIM_REPS * PRIMITIVE_ROW_S + PROCESS_S,
        "the other Memcpy sizes",
    )
    add(
        "torch_compile",
        "rest",
        2,
        90,
        "torch.compile mode=reduce-overhead on cuda (compiling: its cap)",
    )
    return s


def steps():
    """Every step, in the order the run takes them."""
    return [
        *_setup(),
        *_article_table(),
        *_primitives(),
        *_ladder(),
        *_crossover(),
        *_tests(),
        *_rest(),
    ]


def chosen(part):
    return [
        x for x in steps() if part == "all" or x.part == int(part) or (part == "1" and x.part == 2)
    ]


def core_seconds():
    return sum(x.seconds for x in steps() if x.part == 1) + ANALYSIS_S


def table(part, budget_s):
    rows = chosen(part)
    out = [
        f"plan (part {part}): estimated seconds on the GPU machine, from the article's 518 us/epoch (GPU), "
        f"{ITEM_US:.0f} us/.item() and {CPU_US:.0f} us/epoch (CPU); budget {budget_s:.0f} s, "
        f"{ANALYSIS_S} s of it kept for the report",
        f"  {'step':<18} {'grp':<4} {'est s':>6} {'cum s':>6}  how",
    ]
    cum = 0.0
    for x in rows:
        cum += x.seconds
        mark = (
            ""
            if cum + ANALYSIS_S <= budget_s
            else "  (past the budget: runs only if earlier steps are faster)"
        )
        out.append(f"  {x.name:<18} {x.group:<4} {x.seconds:6.0f} {cum:6.0f}  {x.how}{mark}")
    core = core_seconds()
    out.append(
        f"  core (a)-(c) with preflight, build and report: {core:.0f} s of {CORE_LIMIT_S} s"
        + ("" if core <= CORE_LIMIT_S else "  OVER")
    )
    return "\n".join(out)


def default_budget_s(part):
    """A call's seconds unless BUDGET_S says otherwise (gpu_check.sh's header lists them)."""
    return {"1": 420, "2": 210, "custom": 210}.get(part, 900)


def table_of(names, budget_s):
    """The plan's table for named steps only (a --steps run)."""
    full = table("all", budget_s).splitlines()
    return "\n".join(full[:2] + [x for x in full[2:-1] if x.split()[0] in names])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="1", choices=["1", "2", "all"])
    ap.add_argument("--budget_s", type=float, default=None)
    ap.add_argument("--names", action="store_true")
    ap.add_argument("--estimate", metavar="STEP")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.estimate:
        match = [x for x in steps() if x.name == args.estimate]
        if not match:
            print(
                f"gpu_plan: --estimate: no step '{args.estimate}'; expected one of "
                f"{', '.join(x.name for x in steps())}",
                file=sys.stderr,
            )
            return 2
        print(round(match[0].seconds))
        return 0
    if args.names:
        print("\n".join(x.name for x in chosen(args.part)))
        return 0
    if args.check:
        core = core_seconds()
        print(
            f"gpu_plan: part 1's core (a)-(c) with preflight, build and report: {core:.0f} s "
            f"({'within' if core <= CORE_LIMIT_S else 'OVER'} {CORE_LIMIT_S} s)"
        )
        return 0 if core <= CORE_LIMIT_S else 1
    print(table(args.part, args.budget_s or CORE_LIMIT_S))
    return 0


if __name__ == "__main__":
    sys.exit(main())
