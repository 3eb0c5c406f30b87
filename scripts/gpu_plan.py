"""The GPU run's plan: every step, most needed first, with an ESTIMATE of its seconds on the GPU
machine, so that one device command does what matters most inside its budget.

Each estimate is rows x epochs x a per-epoch cost, plus fixed costs. The costs are the H200
machine's own, from its run of 2026-12-04 (results/nvidia-h200: ItemSync, the primitives, the
Python rungs, each step's measured seconds in steps-part*.tsv); they replaced the article's (518 us
an epoch and 46 us a .item() on its RTX 3080 Ti, 145 us an epoch on its CPU). Costs nothing has
measured are marked "guess".

    python -m scripts.gpu_plan --part 1|2|all [--budget_s S]    the plan as a table (the run prints it)
    python -m scripts.gpu_plan --names --part 1|2|all           the step names, one a line, in order
    python -m scripts.gpu_plan --estimate STEP                  one step's estimate in whole seconds
    python -m scripts.gpu_plan --check                          exit 1 unless part 1 with its report
                                                                fits CORE_LIMIT_S

From the repository root. scripts/gpu_run.py runs the plan (scripts/gpu_check.sh calls it after its
preflight); the steps' commands are scripts/gpu_steps.py's. This module knows neither.

The sizes (epochs, rows, repetitions) are experiments/sweeps.toml's with its [gpu] changes, and the
few below that only this run has (the Paired CUDA row's targets and caps, the whole runs' rows).
Part 1 is the first device call: the preflight, bench's build and the probe, a wait for the host to
settle, then the Paired CUDA rows first (the per-.item() and per-epoch costs from short interleaved
runs, then the primitives, the held-out and replay rows, and the per-.item() row again in a second
time window); then, while its budget lasts, part 2's steps in order. Part 2 is the second call (the
rerun slot): the article's table rows as whole runs, 3 repetitions interleaved, then the rest by
value (the what-if pairs of the article's loop, the Python rungs, the other ItemSync rows with
their traced passes, the CPU, the ladder, the crossover, the tests)."""

import argparse
import os
import sys
from dataclasses import dataclass

from experiments import sweeps

# The H200 machine's figures (results/nvidia-h200, 2026-12-04).
GPU_US = 560.0  # ItemSync cuda, us per epoch: 528-573 in the nine rows after the slow period
ITEM_US = 10.0  # one .item(): Sync/item_idle, 9.3-9.5 us on an idle GPU
CPU_US = 165.0  # ItemSync cpu on its host, us per epoch: 145-178
PY_CUDA_US, PY_CPU_US = 1120.0, 350.0  # python_eager, us per epoch: cuda 1068-1174, cpu 290-405
TC_CUDA_US = 1150.0  # torch_compile's Ladder row on cuda, us per epoch: 1128-1166
COMPILE_S = 15.0  # one torch.compile configuration: compile_s 7.7-9.4, the step 41 s for two
PRIMITIVE_ROW_S = 0.45  # a primitive row and repetition: 34 s for 33 rows x 2, with the process
CPU_NS_PER_ROW = 130.0  # LibTorch eager per extra row on the CPU: measured here (2-core Xeon,
# results/cpu-intel-xeon-processor-2c, 10^6 rows); more cores run it faster
GPU_NS_PER_ROW = 0.5  # guess: 10^6 rows are ~0.4 GFLOP and ~0.3 GB of traffic per epoch on an H200
PROCESS_S = 5.0  # guess: one bench/python process loading LibTorch and making a CUDA context
TRACE_FIXED_S = 1.0  # guess: one CUPTI session's start + stop (the probe measures it)
TRACE_SLOWDOWN = 3.0  # guess: a traced epoch against an untraced one
TRACED_BUDGET_S = 20  # what the ItemSync cuda traced passes get (the probe sizes them to it)
# Seconds of compiler time (user + sys) the builds took, as scripts/gpu_check.sh measured them in
# the device rehearsal (scripts/device_rehearsal.sh, commit 7033d53, 2 shared cores): bench 322 s
# (304 s at 98fc877), the tests 187 s more. The GPU machine's 16 cores are assumed 75% busy, but a
# build takes at least its longest compile and the links: BUILD_MIN_S, bench's 50 s on the H200.
BUILD_BENCH_CPU_S = 322.0
BUILD_TESTS_CPU_S = 187.0
BUILD_CORES, BUILD_EFFICIENCY, BUILD_MIN_S = 16, 0.75, 50.0
CORE_LIMIT_S = 420  # part 1 with its report must fit one command's 420 s
ANALYSIS_S = 20  # guess: the report and the tarball, kept at the end of every part

# Only this run's: the wait for a quiet host after the build, at most SETTLE_MAX_S; Paired/cuda-item
# to +-2 us per .item() and the file's +-1 % per epoch (the CPU's round-to-round spread, about 1.8 %
# of an epoch, puts +-2 us at about 280 rounds, 65 s), capped at 90 s; its second time window, to
# see the per-epoch cost hold, at 60 s.
SETTLE_MAX_S = 30
PAIRED_ITEM_DIFF_US = 2.0
PAIRED_ITEM_MAX_S, PAIRED_AGAIN_MAX_S = 90, 60
PAIRS_S = 25  # guess: 6 short profiled runs of the loop, a CUDA graph capture, 6 trace exports

SWEEPS = sweeps.load(profile="gpu", environ=os.environ)  # what the run will pass
BASE = sweeps.load(environ=os.environ)  # the file without its [gpu] changes
EPOCHS, WARMUP = SWEEPS["item_sync"]["epochs"], 100
ITEM_INTERVALS, PRINT100 = SWEEPS["item_sync"]["intervals"], SWEEPS["item_sync"]["print100"]
ITEM_REPS = SWEEPS["item_sync"]["repetitions"]
HELD_OUT = SWEEPS["held_out"]
# The whole runs: the article's table rows (every interval but never and the held-out one, all
# with the every-100 print, as the article's table kept it) and its every-epoch run, at the file's
# own repetitions, interleaved; untraced. The other rows, with their traced passes, come later.
WHOLE_INTERVALS = [i for i in ITEM_INTERVALS if i not in (0, HELD_OUT["interval"])]
WHOLE_REPS = BASE["item_sync"]["repetitions"]
SWEEP = SWEEPS["batch_sweep"]
SWEEP_BATCHES, SWEEP_INTERVALS, SWEEP_EPOCHS = SWEEP["batches"], SWEEP["intervals"], SWEEP["epochs"]
SWEEP_WARMUP = 10
PRIM_REPS = SWEEPS["primitives"]["repetitions"]
EAGER, RUNGS, COMPILED = SWEEPS["python_eager"], SWEEPS["rung_sweep"], SWEEPS["torch_compile"]
PAIRED = SWEEPS["paired"]


def rung_epochs(rows, epochs=RUNGS["epochs"]):  # bench's RungSweep rule (benchmarks/rung_sweep.cpp)
    return min(20000, max(epochs, int(epochs * 1e4 / rows)))


MEMCPY_ROWS_CORE = 8  # 8 kinds x 4 B: the copies the loop does
MEMCPY_ROWS_ALL = 48  # 8 kinds x 6 sizes (benchmarks/memcpy.cpp)
KERNEL_LAUNCH_ROWS, SYNC_ROWS = 3, 14


def item_calls(interval, print100, epochs=EPOCHS):
    records = epochs // interval if interval else 0
    return records * (2 if interval >= 2 else 1) + (epochs // 100 if print100 else 0)


def build_seconds(cpu_s):
    return max(BUILD_MIN_S, cpu_s / BUILD_CORES / BUILD_EFFICIENCY)


def item_sync_seconds(rows, reps, device_us, traced_s):
    """ItemSync rows (interval, print100) x reps whole runs of EPOCHS + WARMUP epochs."""
    items = sum(item_calls(i, p) for i, p in rows)
    return reps * (len(rows) * (EPOCHS + WARMUP) * device_us / 1e6 + items * ITEM_US / 1e6) + (
        traced_s + PROCESS_S
    )


def whole_rows():
    return [(i, 1) for i in WHOLE_INTERVALS]


def rest_rows():
    return [(i, p) for i in ITEM_INTERVALS for p in PRINT100 if (i, p) not in whole_rows()]


@dataclass
class Step:
    name: str
    group: str  # what it answers: setup, item, prices, table, what-if, python, ...
    part: int
    seconds: float
    how: str


def _setup():
    """The preflight, bench's build, the traced passes' probe, the wait for a quiet host."""
    return [
        Step(
            "preflight",
            "setup",
            1,
            15,
            "tools, python3 imports, nvidia-smi, carried libraries (guess)",
        ),
        Step(
            "build_bench",
            "setup",
            1,
            build_seconds(BUILD_BENCH_CPU_S),
            f"configure + bench: {BUILD_BENCH_CPU_S:.0f} CPU-s (measured in the rehearsal) / {BUILD_CORES} "
            f"cores x {BUILD_EFFICIENCY}, at least {BUILD_MIN_S:.0f} s (the H200's)",
        ),
        Step(
            "probe",
            "setup",
            1,
            2 * (200 + 10) * GPU_US / 1e6
            + 2 * (100 * GPU_US * TRACE_SLOWDOWN / 1e6 + TRACE_FIXED_S)
            + PROCESS_S,
            "2 ItemSync cuda rows x 210 epochs + 2 traced passes of 100: sizes the traced passes",
        ),
        Step(
            "settle",
            "setup",
            1,
            SETTLE_MAX_S,
            f"sync, then wait until the host reads quiet 3 s in a row, at most {SETTLE_MAX_S} s "
            "(scripts/host_settle.py)",
        ),
    ]


def _paired_item(name, max_s, why):
    return Step(
        name,
        "item",
        1,
        max_s + PROCESS_S,
        f"Paired/cuda-item: interval 1 against never in rounds of {PAIRED['epochs']} epochs, to "
        f"+-{PAIRED_ITEM_DIFF_US:g} us per .item() and +-{100 * PAIRED['rel_target']:g} % per epoch, "
        f"or {max_s} s; {why}",
    )


def _paired_first():
    """The article's question first: one .item()'s cost and an epoch's, paired, then the prices
    they are predicted from, the held-out and replay rows, and the first row again."""
    prim_rows = KERNEL_LAUNCH_ROWS + SYNC_ROWS + MEMCPY_ROWS_CORE
    return [
        _paired_item("paired_cuda_item", PAIRED_ITEM_MAX_S, "about 280 rounds (65 s)"),
        Step(
            "primitives",
            "prices",
            1,
            prim_rows * PRIM_REPS * PRIMITIVE_ROW_S + PROCESS_S,
            f"KernelLaunch (graph node too), Sync (.item() idle), Memcpy 4 B: {prim_rows} rows x "
            f"{PRIM_REPS} repetitions x {PRIMITIVE_ROW_S} s; no CUPTI in this process",
        ),
        Step(
            "dispatch",
            "prices",
            1,
            6 * PRIM_REPS * PRIMITIVE_ROW_S
            + 2 * (10 * GPU_US * TRACE_SLOWDOWN / 1e6 + TRACE_FIXED_S)
            + PROCESS_S,
            f"Dispatch cpu/cuda add, backward, train_step x {PRIM_REPS} repetitions; its CUPTI "
            "kernel count, alone in its process",
        ),
        Step(
            "paired_cuda",
            "item",
            1,
            2 * PAIRED["max_s"] + PROCESS_S,
            f"Paired/cuda-held_out and -replay, each until its targets or {PAIRED['max_s']:g} s",
        ),
        _paired_item(
            "paired_cuda_item_again", PAIRED_AGAIN_MAX_S, "a second time window (second_window/)"
        ),
    ]


def _whole_runs():
    """The article's table rows and its every-epoch run as whole runs, interleaved."""
    rows = whole_rows()
    return [
        Step(
            "item_sync_cuda",
            "table",
            2,
            item_sync_seconds(rows, WHOLE_REPS, GPU_US, 0),
            f"ItemSync cuda, intervals {','.join(map(str, WHOLE_INTERVALS))} with the print: "
            f"{len(rows)} rows x {WHOLE_REPS} repetitions interleaved x {EPOCHS + WARMUP} epochs "
            f"x {GPU_US:.0f} us, untraced",
        ),
    ]


def _python_rungs():
    """The what-if pairs of the article's loop and the Python rungs, each in its own process."""
    ladder = 2 * COMPILED["repetitions"] * COMPILED["epochs"] * TC_CUDA_US / 1e6
    configs = 1 + len(COMPILED["batches"])
    return [
        Step(
            "what_if_pairs",
            "what-if",
            2,
            PAIRS_S,
            "experiments/record_loop_pairs.py: .item() every epoch vs never, eager vs a CUDA graph, "
            "pageable vs pinned copies; into what_if_pairs/ with its README",
        ),
        Step(
            "python_eager",
            "python",
            2,
            (1 + EAGER["repetitions"]) * EAGER["epochs"] * PY_CPU_US / 1e6
            + EAGER["repetitions"] * EAGER["epochs"] * PY_CUDA_US / 1e6
            + 2 * PROCESS_S
            + 5,
            f"the article's Python loop, float64 reference + cpu + cuda x {EAGER['repetitions']} "
            "repetitions, then the kernel count in a process of its own",
        ),
        Step(
            "torch_compile",
            "python",
            2,
            configs * COMPILE_S + ladder + PROCESS_S,
            f"torch.compile reduce-overhead on cuda: {configs} configurations compiled cold "
            f"({COMPILE_S:.0f} s each), the mode and torch's counters recorded",
        ),
    ]


def _traced_rows():
    """The other ItemSync rows with their traced passes, the replay's check, the CPU's rows."""
    rest = rest_rows()
    every = [(i, p) for i in ITEM_INTERVALS for p in PRINT100]
    return [
        Step(
            "item_sync_cuda_rest",
            "table",
            2,
            item_sync_seconds(rest, ITEM_REPS, GPU_US, TRACED_BUDGET_S),
            f"ItemSync cuda, the other {len(rest)} rows x {ITEM_REPS} repetition(s), traced "
            f"passes {TRACED_BUDGET_S} s",
        ),
        Step(
            "replay_validation",
            "table",
            2,
            12,
            "./attribute built (the trace library is bench's), then the ItemSync interval-1 "
            "traced pass replayed with the log phase kept every 100, 1000 epochs or never (guess)",
        ),
        Step(
            "item_sync_cpu",
            "table",
            2,
            ITEM_REPS * len(every) * ((EPOCHS + WARMUP) * CPU_US / 1e6 + 200 * CPU_US * 2 / 1e6)
            + PROCESS_S,
            f"{len(every)} rows x {EPOCHS + WARMUP} epochs x {CPU_US:.0f} us + traced passes of "
            f"200 epochs, {ITEM_REPS} repetition(s)",
        ),
    ]


def _ladder_and_crossover():
    sweep = sum(
        (SWEEP_EPOCHS + SWEEP_WARMUP) * (CPU_US / 1e6 + b * CPU_NS_PER_ROW / 1e9)
        for b in SWEEP_BATCHES
    ) + sum(
        (SWEEP_EPOCHS + SWEEP_WARMUP) * (GPU_US / 1e6 + b * GPU_NS_PER_ROW / 1e9)
        for b in SWEEP_BATCHES
    )
    eager_like = 4  # the eager baseline + LibtorchEager, DeviceLog, PinnedEvent at about its cost
    return [
        Step(
            "ladder_cuda",
            "ladder",
            2,
            eager_like * EPOCHS * GPU_US / 1e6
            + 3 * EPOCHS * 50 / 1e6
            + EPOCHS * CPU_US * 1.2 / 1e6
            + PROCESS_S,
            f"6 CUDA rungs x {EPOCHS} epochs: 4 runs at ~{GPU_US:.0f} us, graph + 2 kernels at "
            "~50 us (guess), the float64 reference on the CPU; errors checked against it",
        ),
        Step(
            "batch_sweep",
            "crossover",
            2,
            sweep * len(SWEEP_INTERVALS) * SWEEP["repetitions"] + PROCESS_S,
            f"BatchSweep cpu+cuda, {len(SWEEP_BATCHES)} batches to 10^6 rows x "
            f"{SWEEP_EPOCHS + SWEEP_WARMUP} epochs x {len(SWEEP_INTERVALS)} intervals x "
            f"{SWEEP['repetitions']} repetitions ({CPU_NS_PER_ROW:.0f} ns/row on the CPU)",
        ),
        Step(
            "paired_cuda_batch",
            "crossover",
            2,
            PAIRED["max_s"] + PROCESS_S,
            f"Paired/cuda-batch: the held-out batch and its neighbours, until {PAIRED['max_s']:g} s",
        ),
    ]


def _tests():
    """The tests with CUDA rows live, and compute-sanitizer."""
    return [
        Step(
            "build_tests",
            "tests",
            2,
            build_seconds(BUILD_TESTS_CPU_S),
            f"the tests: {BUILD_TESTS_CPU_S:.0f} CPU-s / {BUILD_CORES} cores x {BUILD_EFFICIENCY}, "
            f"at least {BUILD_MIN_S:.0f} s",
        ),
        Step(
            "cuda_tests",
            "tests",
            2,
            3 * EPOCHS * GPU_US / 1e6 + EPOCHS * CPU_US * 1.2 / 1e6 + 60,
            "LadderCuda float64 tests (3 eager-cost rungs x 20000 epochs) + the smoke tests with "
            "CUDA rows live (60 s, guess: they took 74 s on the rehearsal's 2 shared cores with "
            "the CUDA rows skipped)",
        ),
        Step(
            "compute_sanitizer",
            "tests",
            2,
            70,
            "memcheck, racecheck, synccheck on the hand-written kernels (cap)",
        ),
    ]


def _rest():
    return [
        Step(
            "ladder_cpu",
            "rest",
            2,
            3 * EPOCHS * CPU_US / 1e6 * 2 + EPOCHS * CPU_US * 1.2 / 1e6 + 5 + PROCESS_S,
            "Ladder CPU rungs + Peak, 1 repetition",
        ),
        Step(
            "cupti_detach",
            "rest",
            2,
            25,
            "KernelLaunch/Sync alone and after a CUPTI pass, 2 rounds (its own estimate)",
        ),
        Step(
            "rung_sweep_cuda",
            "rest",
            2,
            RUNGS["repetitions"]
            * sum(4 * (rung_epochs(b) + 10) * GPU_US / 1e6 for b in RUNGS["batches"])
            + PROCESS_S,
            f"RungSweep cuda, 4 rungs at {', '.join(map(str, RUNGS['batches']))} rows, "
            f"{RUNGS['repetitions']} repetitions",
        ),
        Step(
            "memcpy_sweep",
            "rest",
            2,
            (MEMCPY_ROWS_ALL - MEMCPY_ROWS_CORE) * PRIM_REPS * PRIMITIVE_ROW_S + PROCESS_S,
            "the other Memcpy sizes, 1 KiB to 256 MiB",
        ),
        Step(
            "nsys",
            "rest",
            2,
            120,
            "scripts/gpu_nsys.sh: an ItemSync cuda row under nsys -t cuda,nvtx,osrt, its export, "
            "./attribute on it, one report per epoch (guess: 99 s in its CPU rehearsal)",
        ),
    ]


def steps():
    """Every step, in the order the run takes them."""
    return [
        *_setup(),
        *_paired_first(),
        *_whole_runs(),
        *_python_rungs(),
        *_traced_rows(),
        *_ladder_and_crossover(),
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
        f"plan (part {part}): estimated seconds on the GPU machine, from the H200's {GPU_US:.0f} "
        f"us/epoch (GPU), {ITEM_US:.0f} us/.item() and {CPU_US:.0f} us/epoch (CPU); budget "
        f"{budget_s:.0f} s, {ANALYSIS_S} s of it kept for the report",
        f"  {'step':<22} {'group':<9} {'est s':>6} {'cum s':>6}  how",
    ]
    cum = 0.0
    for x in rows:
        cum += x.seconds
        mark = (
            ""
            if cum + ANALYSIS_S <= budget_s
            else "  (past the budget: runs only if earlier steps are faster)"
        )
        out.append(f"  {x.name:<22} {x.group:<9} {x.seconds:6.0f} {cum:6.0f}  {x.how}{mark}")
    core = core_seconds()
    out.append(
        f"  part 1 with its report: {core:.0f} s of {CORE_LIMIT_S} s"
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
            f"gpu_plan: part 1 (the Paired CUDA rows and the primitives, with the preflight, build, "
            f"probe, settle) and its report: {core:.0f} s "
            f"({'within' if core <= CORE_LIMIT_S else 'OVER'} {CORE_LIMIT_S} s)"
        )
        return 0 if core <= CORE_LIMIT_S else 1
    print(table(args.part, args.budget_s or CORE_LIMIT_S))
    return 0


if __name__ == "__main__":
    sys.exit(main())
