"""The article's loop in Python eager PyTorch: the top rung of the overhead ladder.

Trains the same problem as bench's Ladder family (20000 full-batch epochs on the article's
Iris split, MinMax-scaled on the training rows, seed 42, the loss kept every 100 epochs
with the article's append + print, 2 .item() calls), checks every kept loss and the final
weights against the same loop in float64 on the CPU (max_loss_error, max_weight_error: the C++
ladder's definitions), records the threads torch ran on (cpu_threads), and writes Google
Benchmark-shaped JSON, so analysis.report reads it beside bench's rows:

    .venv/bin/python -m experiments.python_eager --out results/<machine>/python_eager.json

Cost: ~5-10 s per repetition on a CPU, about the same on a GPU (launch-bound).
--profile-kernels also counts CUDA kernels per epoch with torch.profiler (an independent
check of CUPTI's count in bench's traced pass), after the timed runs and in a process of its
own (--count-kernels): no profiler session ever runs in the process that times the loop, whose
hooks might outlive it. A failed count leaves the rows without it and exits 1.
"""

import argparse
import csv
import os
import subprocess
import sys
import time

import torch
from torch import nn

from experiments import result_json, sweeps  # sweeps.toml: the defaults below

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
RECORD_EVERY = 100


def load_split(data_dir):
    def read(name):
        with open(os.path.join(data_dir, name)) as f:
            rows = list(csv.DictReader(f))
        x = torch.tensor(
            [
                [
                    float(r[k])
                    for k in ("sepal_length", "sepal_width", "petal_length", "petal_width")
                ]
                for r in rows
            ],
            dtype=torch.float64,
        )
        y = torch.tensor([int(r["label"]) for r in rows], dtype=torch.int64)
        return x, y

    x_train, y_train = read("iris_train.csv")
    lo, hi = x_train.min(0).values, x_train.max(0).values
    scale = torch.where(hi > lo, hi - lo, torch.ones_like(hi))  # MinMaxScaler, fitted on train only
    return ((x_train - lo) / scale).float(), y_train


def train(x, y, device, epochs, seed, dtype=torch.float32):
    """Returns (seconds, kept losses, final parameters)."""
    torch.manual_seed(seed)  # before building the model, as bench's Trainer does
    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(
        device=device, dtype=dtype
    )
    x, y = x.to(device=device, dtype=dtype), y.to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    start = time.perf_counter()
    for epoch in range(epochs):
        outputs = model(x)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % RECORD_EVERY == 0:
            losses.append(loss.item())
            _ = f"Epoch [{epoch + 1}/{epochs}], Loss: {loss.item():.4f}"  # the article's print, not written
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, losses, [p.detach().clone() for p in model.parameters()]


def loss_error(losses, ref):
    """Worst relative difference of the kept losses from the reference's (bench's definition)."""
    if len(losses) != len(ref):
        return float("inf")
    return max((abs(a - b) / max(abs(b), 1e-3) for a, b in zip(losses, ref)), default=0.0)


def weight_error(params, ref):
    """Worst relative difference of the final weights from the reference's."""
    return max(
        float(((p.detach().double().cpu() - r).abs() / r.abs().clamp(min=1e-2)).max())
        for p, r in zip(params, ref)
    )


def kernels_per_epoch(x, y, epochs=20):
    from torch.profiler import ProfilerActivity, profile

    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).cuda()
    x, y = x.cuda(), y.cuda()
    # foreach=False: one update per parameter, as LibTorch's C++ SGD does, so the count is
    # comparable with CUPTI's in bench (Python's default fuses the four updates into one
    # multi-tensor kernel on CUDA).
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=False)
    crit = nn.CrossEntropyLoss()
    for _ in range(5):  # warm-up outside the profile
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(epochs):
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.cuda.synchronize()
    kernels = [
        e
        for e in prof.events()
        if e.device_type == torch.autograd.DeviceType.CUDA
        and "memcpy" not in e.name.lower()
        and "memset" not in e.name.lower()
    ]
    return len(kernels) / epochs


def context():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    # A commit the caller states wins over the copy's .git (bench's run_context.cpp says why).
    commit = os.environ.get("IRIS_GIT_COMMIT", "")
    if commit:
        commit += " (IRIS_GIT_COMMIT)"
    else:
        try:
            commit = (
                subprocess.run(
                    ["git", "-C", HERE, "rev-parse", "--short=12", "HEAD"],
                    capture_output=True,
                    text=True,
                ).stdout.strip()
                or "unknown"
            )
        except OSError:
            commit = "unknown"
    cuda = torch.cuda.is_available()
    # Google Benchmark's names for the machine's load, so the report says how busy it was.
    load = (
        {"load_avg": list(os.getloadavg()), "num_cpus": os.cpu_count()}
        if hasattr(os, "getloadavg")
        else {}
    )
    return {
        **load,
        "torch_version": torch.__version__.split("+")[0],
        "cuda_runtime": torch.version.cuda or "none",
        "cuda_driver": "unknown",
        "gpu_name": torch.cuda.get_device_name(0) if cuda else "none",
        "cpu_model": model,
        "cpu_threads_torch": str(torch.get_num_threads()),
        "git_commit": commit,
        "epochs": "n/a",
        "ladder_epochs": "",
        "tracing": "off",
        "producer": "experiments/python_eager.py",
    }


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON file to write (atomically)")
    ap.add_argument(
        "--devices", default="cpu,cuda", help="cpu and/or cuda; cuda is skipped without a GPU"
    )
    sweep = sweeps.load()["python_eager"]
    ap.add_argument("--epochs", type=int, default=sweep["epochs"])
    ap.add_argument("--repetitions", type=int, default=sweep["repetitions"])
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument(
        "--profile-kernels",
        action="store_true",
        help="after the timed runs, count CUDA kernels per epoch in a process of its own",
    )
    ap.add_argument(
        "--count-kernels",
        action="store_true",
        help="only print CUDA kernels per epoch under torch.profiler (what --profile-kernels runs)",
    )
    args = ap.parse_args(argv)
    if not args.count_kernels and not args.out:
        ap.error("--out is required (unless --count-kernels)")
    if args.epochs < RECORD_EVERY or args.repetitions < 1:
        ap.error(f"--epochs must be >= {RECORD_EVERY} and --repetitions >= 1")
    devices = args.devices.split(",")
    for d in devices:
        if d not in ("cpu", "cuda"):
            ap.error(f"--devices: expected cpu and/or cuda, got {d!r}")
    return args, devices


def timed_rows(x, y, device, args, ref):
    """The device's timed runs after an untimed warm-up, each checked against the float64 ref."""
    name = f"Ladder/{device}-python_eager/iterations:1/manual_time"
    train(x, y, device, min(100, args.epochs), args.seed + 1)  # warm-up
    rows = []
    for rep in range(args.repetitions):
        seconds, losses, params = train(x, y, device, args.epochs, args.seed)
        row = {
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "repetitions": args.repetitions,
            "repetition_index": rep,
            "threads": 1,
            "iterations": 1,
            "real_time": seconds * 1e3,
            "cpu_time": seconds * 1e3,
            "time_unit": "ms",
            "epochs": float(args.epochs),
            "us_per_epoch": seconds * 1e6 / args.epochs,
            "records": float(len(losses)),
            "final_loss": losses[-1],
            "host_syncs": float(2 * len(losses)),
            "cuda": float(device == "cuda"),
            "max_loss_error": loss_error(losses, ref[0]),
            "max_weight_error": weight_error(params, ref[1]),
            **({"cpu_threads": float(torch.get_num_threads())} if device == "cpu" else {}),
            "label": f"{device} python_eager",
        }
        rows.append(row)
        print(
            f"{name} rep {rep + 1}/{args.repetitions}: {seconds:.3f} s "
            f"({row['us_per_epoch']:.1f} us/epoch, final loss {losses[-1]:.4f})",
            flush=True,
        )
    return rows


def kernels_in_own_process():
    """CUDA kernels per epoch from a process of its own, so that no profiler session ever ran
    in the process that times the loop (a profiler's hooks may outlive its session); None,
    with the reason printed, when that process fails."""
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.python_eager", "--count-kernels"],
        cwd=os.path.dirname(HERE),
        capture_output=True,
        text=True,
    )
    try:
        return float(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        print(
            f"python_eager: the kernel count's process exited {proc.returncode}: "
            f"{proc.stderr.strip()[-2000:]}",
            file=sys.stderr,
        )
        return None


def main(argv=None):
    args, devices = parse_args(argv)
    x, y = load_split(DATA)
    if args.count_kernels:
        if not torch.cuda.is_available():
            print("python_eager: --count-kernels needs a GPU (no CUDA device)", file=sys.stderr)
            return 2
        print(kernels_per_epoch(x, y))
        return 0
    ctx = context()
    # The same loop in float64 on the CPU from the same seeded weights: what every rung is checked against.
    _, ref_losses, ref_params = train(x, y, "cpu", args.epochs, args.seed, torch.float64)
    ctx["ladder_epochs"] = str(args.epochs)
    rows = []
    for device in devices:
        if device == "cuda" and not torch.cuda.is_available():
            name = f"Ladder/{device}-python_eager/iterations:1/manual_time"
            why = "skipped: torch.cuda.is_available() is false (no GPU)"
            rows.append(
                {
                    "name": name,
                    "run_type": "iteration",
                    "error_occurred": True,
                    "error_message": why,
                }
            )
            print(f"{name}: skipped (no GPU)", flush=True)
            continue
        rows += timed_rows(x, y, device, args, (ref_losses, ref_params))
    counted = True
    if args.profile_kernels and any(r.get("cuda") for r in rows):
        kernels = kernels_in_own_process()
        counted = kernels is not None
        for r in rows:
            if r.get("cuda") and counted:
                r["torch_profiler_kernels_per_epoch"] = kernels
    result_json.write_results(args.out, ctx, rows, "python_eager")
    print("wrote", args.out)
    return 0 if counted else 1


if __name__ == "__main__":
    sys.exit(main())
