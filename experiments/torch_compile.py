"""The article's training step under torch.compile: the rung a PyTorch user would reach for.

The step (forward, cross-entropy, zero_grad, backward, SGD step) is one Python function
passed to torch.compile: inductor on the CPU; on CUDA mode="reduce-overhead" (CUDA graphs).
Dynamo breaks the graph at loss.backward(), so it compiles the forward+loss (with its
backward, through AOTAutograd) and the optimizer step as separate graphs; that is what a
user gets. Compilation (the first calls, until no more recompiles) is timed separately as
compile_s (cold: a fresh cache per configuration); the timed run then starts from the seeded weights, as every ladder rung does:

    .venv/bin/python -m experiments.torch_compile --out results/<machine>/torch_compile.json

Every row records the mode that ran (compile_mode) and what torch.compile did, from torch's own
counters (experiments/compile_counters.py): the frames, graphs, graph breaks and recompiles while
compiling and warming up, the recompiles during the timed run (0 when the graphs hold), the CUDA
graph captures, replays per epoch and Inductor's CUDA-graph skips with their reasons.
Ladder rows (`Ladder/<device>-torch_compile` with torch's default threads and, on the CPU,
`-torch_compile_1thread`): the article's 20000 epochs, the loss kept
every 100 epochs (.item(), as python_eager.py), checked against the same step in eager
float64 from the same weights (max_loss_error, max_weight_error: the C++ ladder's
definitions). --batches adds `RungSweep/<device>-torch_compile/batch:N` rows (the real
rows tiled to N; epochs as bench's RungSweep: sweep_epochs x 10^4 / N within
[sweep_epochs, 20000]). Same JSON shape as python_eager.py; a device without a GPU gets a
row marked skipped. Cost on a 2-core CPU: ~1 min of compiling, then ~1-5 s per repetition.
Inductor needs a C++ compiler and Python's headers (g++ and python3.X-dev on Debian, both
installed by scripts/setup.sh); both are checked first, and a missing one is one error line.
"""

import argparse
import atexit
import os
import shutil
import signal
import sys
import sysconfig
import tempfile
import time

# Every configuration compiles cold, in its own inductor cache under this process's temp
# folder (cold_caches): a warm cache would make compile_s look free, and inductor's cache
# key does not include the thread count it writes into its kernels, so a kernel compiled
# for 2 threads was seen reused for the 1-thread variant. Removed at exit, also on SIGTERM
# (scripts/gpu_check.sh stops steps with `timeout`).
CACHE_ROOT = tempfile.mkdtemp(prefix="iris-inductor-")
atexit.register(shutil.rmtree, CACHE_ROOT, True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from experiments import compile_counters, result_json, sweeps  # noqa: E402  sweeps: defaults
from experiments.python_eager import (  # noqa: E402
    DATA,
    RECORD_EVERY,
    context,
    load_split,
    loss_error,
    weight_error,
)

SWEEP = sweeps.load()["torch_compile"]

# Ladder variants: torch's default intra-op threads (as a user gets it) and 1 thread. Inductor
# writes the thread count into its C++ kernels (`omp parallel num_threads(N)`), and on a small
# problem a busy machine's OpenMP wake-ups can cost more than the arithmetic.
VARIANTS = {"torch_compile": None, "torch_compile_1thread": 1}


def build(seed, device, dtype=torch.float32):
    torch.manual_seed(seed)  # before building the model, as python_eager.py and bench's Trainer do
    return nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(
        device=device, dtype=dtype
    )


def make_step(model, x, y, compile_mode):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return step if compile_mode is None else torch.compile(step, mode=compile_mode)


def train(step, model, initial, epochs, record_every, device):
    """Runs `epochs` steps from the `initial` weights (copied in place, so compiled graphs
    stay valid) and returns (seconds, losses)."""
    with torch.no_grad():
        for p, p0 in zip(model.parameters(), initial):
            p.copy_(p0)
    mark = torch.compiler.cudagraph_mark_step_begin if device == "cuda" else (lambda: None)
    losses = []
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for epoch in range(epochs):
        mark()  # reduce-overhead: a new step, the previous step's outputs may be overwritten
        loss = step()
        if record_every and (epoch + 1) % record_every == 0:
            losses.append(loss.item())
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, losses


def reference(x, y, seed, epochs, record_every):
    """The same step in eager float64 on the CPU from the same initial weights."""
    model = build(seed, "cpu", torch.float64)
    step = make_step(model, x.double().cpu(), y.cpu(), None)
    _, losses = train(
        step, model, [p.detach().clone() for p in model.parameters()], epochs, record_every, "cpu"
    )
    return losses, [p.detach().clone() for p in model.parameters()]


def sweep_epochs(sweep_epochs_flag, rows):
    """bench's RungSweep rule (benchmarks/rung_sweep.cpp)."""
    return min(20000, max(sweep_epochs_flag, int(sweep_epochs_flag * 1e4 / rows)))


def cold_caches():
    """Forgets every compiled graph and kernel: Dynamo's, inductor's in memory, and (through a
    new TORCHINDUCTOR_CACHE_DIR, which inductor reads on each use) its on-disk cache."""
    import torch._inductor.codecache as codecache

    torch._dynamo.reset()
    for cache in (
        codecache.PyCodeCache,
        codecache.CppCodeCache,
        codecache.CppPythonBindingsCodeCache,
    ):
        cache.cache_clear()
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(dir=CACHE_ROOT)


def run_config(x, y, device, epochs, record_every, seed, repetitions, mode, check):
    """Compiles, warms up, times `repetitions` runs; returns (compile_s, what compiling and the
    warm-up did, [(seconds, losses, errors, what the timed run did)]), what each did from
    torch's counters (experiments/compile_counters.py)."""
    cold_caches()  # each configuration compiles on its own (shapes are static)
    x, y = x.to(device), y.to(device)
    model = build(seed, device)
    initial = [p.detach().clone() for p in model.parameters()]
    step = make_step(model, x, y, mode)
    before = compile_counters.snapshot()
    start = time.perf_counter()
    # The first calls compile (and recompile once the gradients exist); 3 reach the steady graph.
    train(step, model, initial, 3, 0, device)
    compile_s = time.perf_counter() - start
    train(step, model, initial, min(100, epochs), 0, device)  # warm-up, untimed
    compiled = compile_counters.difference(before, compile_counters.snapshot())
    ref = reference(x, y, seed, epochs, record_every) if check else None
    out = []
    for _ in range(repetitions):
        before = compile_counters.snapshot()
        seconds, losses = train(step, model, initial, epochs, record_every, device)
        timed = compile_counters.difference(before, compile_counters.snapshot())
        errors = {}
        if ref is not None:
            errors = {
                "max_loss_error": loss_error(losses, ref[0]),
                "max_weight_error": weight_error(list(model.parameters()), ref[1]),
            }
        out.append((seconds, losses, errors, timed))
    return compile_s, compiled, out


def counted(compiled, timed, epochs):
    """A row's record of what torch.compile did: while compiling and warming up (compiled_*,
    with the graph breaks and the CUDA graphs captured) and in the timed run (recompiles there
    should be 0, and with CUDA graphs every epoch replays them)."""
    return {
        "dynamo_frames": compiled["dynamo_frames"],
        "compiled_graphs": compiled["unique_graphs"],
        "compiled_recompiles": compiled["recompiles"],
        "graph_breaks": compiled["graph_breaks"],
        "graph_break_reasons": compiled["graph_break_reasons"],
        "cuda_graph_captures": compiled["cuda_graph_captures"] + timed["cuda_graph_captures"],
        "cudagraph_skips": compiled["cudagraph_skips"] + timed["cudagraph_skips"],
        "cudagraph_skip_reasons": sorted(
            set(compiled["cudagraph_skip_reasons"] + timed["cudagraph_skip_reasons"])
        ),
        "recompile_reasons": sorted(
            set(compiled["recompile_reasons"] + timed["recompile_reasons"])
        ),
        "timed_dynamo_frames": timed["dynamo_frames"],
        "timed_recompiles": timed["recompiles"],
        "cuda_graph_replays": timed["cuda_graph_replays"],
        "cuda_graph_replays_per_epoch": timed["cuda_graph_replays"] / epochs,
    }


def toolchain_problem():
    """What inductor lacks to compile on this machine, as one line naming the Debian packages,
    or None. Its CPU kernels are C++ built with $CXX (else g++) that includes Python.h from
    sysconfig's include folder (torch/_inductor/cpp_builder.py: cpp_compiler_search,
    _get_python_include_dirs); without them the first compiled call fails deep inside
    inductor with a traceback of thousands of characters, after minutes on a busy machine."""
    missing = []
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        missing.append((f"a C++ compiler ('{cxx}', from $CXX or else g++, is not on PATH)", "g++"))
    include = sysconfig.get_path("include")
    if not os.path.isfile(os.path.join(include, "Python.h")):
        version = "%d.%d" % sys.version_info[:2]
        missing.append(
            (f"Python {version}'s C headers (no Python.h in {include})", f"python{version}-dev")
        )
    if not missing:
        return None
    packages = " ".join(p for _, p in missing)
    return (
        f"torch.compile cannot compile here: it needs {' and '.join(w for w, _ in missing)}; "
        f"install {packages} (sudo apt-get install {packages}; scripts/setup.sh does)"
    )


def row(name, rep, repetitions, seconds, epochs, device, extra):
    return {
        "name": name,
        "run_name": name,
        "run_type": "iteration",
        "repetitions": repetitions,
        "repetition_index": rep,
        "threads": 1,
        "iterations": 1,
        "real_time": seconds * 1e3,
        "cpu_time": seconds * 1e3,
        "time_unit": "ms",
        "epochs": float(epochs),
        "us_per_epoch": seconds * 1e6 / epochs,
        "cuda": float(device == "cuda"),
        **extra,
    }


def parse_args(argv):
    """The flags, checked: (args, devices, batches); a bad one exits 2 naming it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write (atomically)")
    ap.add_argument(
        "--devices", default="cpu,cuda", help="cpu and/or cuda; cuda is skipped without a GPU"
    )
    ap.add_argument(
        "--epochs",
        type=int,
        default=SWEEP["epochs"],
        help="Ladder rows: epochs per run [%(default)s]",
    )
    ap.add_argument("--repetitions", type=int, default=SWEEP["repetitions"])
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument(
        "--batches", default="", help="comma-separated rows for RungSweep rows (none by default)"
    )
    ap.add_argument(
        "--sweep-epochs",
        type=int,
        default=SWEEP["sweep_epochs"],
        help="RungSweep epochs rule, as bench's --rung_sweep_epochs [%(default)s]",
    )
    ap.add_argument("--no-ladder", action="store_true", help="only the RungSweep rows")
    args = ap.parse_args(argv)
    if args.epochs < RECORD_EVERY or args.repetitions < 1 or args.sweep_epochs < 1:
        ap.error(f"--epochs must be >= {RECORD_EVERY}, --repetitions and --sweep-epochs >= 1")
    devices = args.devices.split(",")
    for d in devices:
        if d not in ("cpu", "cuda"):
            ap.error(f"--devices: expected cpu and/or cuda, got {d!r}")
    try:
        batches = [int(b) for b in args.batches.split(",") if b]
    except ValueError:
        ap.error(f"--batches: expected comma-separated positive integers, got {args.batches!r}")
    if any(b < 1 for b in batches):
        ap.error(f"--batches: expected positive integers, got {args.batches!r}")
    return args, devices, batches


def configurations(device, batches, no_ladder):
    """The rows one device runs: (name, batch or None for a Ladder row, threads or None)."""
    variants = [v for v in VARIANTS if device == "cpu" or VARIANTS[v] is None]
    ladder = (
        []
        if no_ladder
        else [
            (f"Ladder/{device}-{v}/iterations:1/manual_time", None, VARIANTS[v]) for v in variants
        ]
    )
    return ladder + [
        (f"RungSweep/{device}-torch_compile/batch:{b}/iterations:1/manual_time", b, None)
        for b in batches
    ]


def skipped_rows(names, why):
    return [
        {"name": name, "run_type": "iteration", "error_occurred": True, "error_message": why}
        for name, _, _ in names
    ]


def measure(x, y, device, name, batch, args):
    """One configuration compiled and timed: its rows, one per repetition."""
    mode = "reduce-overhead" if device == "cuda" else None  # CUDA graphs on the GPU
    mode_label = mode or "default"
    if batch is None:
        xb, yb, epochs, every = x, y, args.epochs, RECORD_EVERY
    else:
        reps = -(-batch // x.shape[0])
        xb, yb = x.repeat(reps, 1)[:batch].contiguous(), y.repeat(reps)[:batch].contiguous()
        epochs = sweep_epochs(args.sweep_epochs, batch)
        every = epochs  # one loss, at the end, as bench's RungSweep
    compile_s, compiled, runs = run_config(
        xb, yb, device, epochs, every, args.seed, args.repetitions, mode_label, batch is None
    )
    rows = []
    for rep, (seconds, losses, errors, timed) in enumerate(runs):
        extra = {
            "compile_s": compile_s,
            "compile_mode": mode_label,
            **counted(compiled, timed, epochs),
            "records": float(len(losses)),
            "final_loss": losses[-1],
            "host_syncs": float(len(losses)),
            "cpu_threads": float(torch.get_num_threads()),
            "label": f"{device} torch_compile mode={mode_label} threads={torch.get_num_threads()}",
            **errors,
        }
        if batch is not None:
            extra["rows"] = float(batch)
        rows.append(row(name, rep, args.repetitions, seconds, epochs, device, extra))
        print(
            f"{name} rep {rep + 1}/{args.repetitions}: {seconds:.3f} s ({seconds * 1e6 / epochs:.1f} "
            f"us/epoch, compile {compile_s:.1f} s, final loss {losses[-1]:.4f}"
            + (f", loss error {errors['max_loss_error']:.1e}" if errors else "")
            + f"; mode={mode_label}: {extra['compiled_graphs']:.0f} graphs, "
            f"{extra['graph_breaks']:.0f} breaks, {extra['compiled_recompiles']:.0f}+"
            f"{extra['timed_recompiles']:.0f} recompiles, {extra['cudagraph_skips']:.0f} CUDA graph "
            f"skips, {extra['cuda_graph_replays_per_epoch']:.2f} replays/epoch)",
            flush=True,
        )
    return rows


def main(argv=None):
    args, devices, batches = parse_args(argv)
    # Checked before anything runs, whenever something will compile (the CUDA rows without a
    # GPU are only marked skipped): the one line is the whole error, and no JSON is written.
    if "cpu" in devices or torch.cuda.is_available():
        problem = toolchain_problem()
        if problem:
            print(f"experiments/torch_compile.py: error: {problem}", file=sys.stderr)
            return 1
    compile_counters.install()
    x, y = load_split(DATA)
    ctx = context()
    ctx.update(ladder_epochs=str(args.epochs), producer="experiments/torch_compile.py")
    rows = []
    default_threads = torch.get_num_threads()
    for device in devices:
        names = configurations(device, batches, args.no_ladder)
        if device == "cuda" and not torch.cuda.is_available():
            rows += skipped_rows(names, "skipped: torch.cuda.is_available() is false (no GPU)")
            print(f"{device}-torch_compile: skipped (no GPU)", flush=True)
            continue
        for name, batch, threads in names:
            torch.set_num_threads(threads or default_threads)
            rows += measure(x, y, device, name, batch, args)
    result_json.write_results(args.out, ctx, rows, "torch_compile")
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
