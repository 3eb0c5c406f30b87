"""The article's loop recorded as what-if pairs: the same loop twice, one switch apart, each run
profiled by torch.profiler with Python stacks and one ProfilerStep per epoch, so that a what-if
replayed on the first run can be checked against the second (experiments/what_if_validation.py).

    python -m experiments.record_loop_pairs --out DIR [--device auto|cpu|cuda] [--steps N]
                                            [--copy-batch ROWS]

The loop is the article's: the 4-10-3 MLP with ReLU, cross-entropy, SGD at lr 0.01, on the Iris
training split (120 rows, MinMax-scaled: python_eager.load_split). The pairs, one switch each:
  item    `losses.append(loss.item())` every epoch (the article's first run) -> never;
          what-if `no-syncs:op=aten::item`
  graph   eager -> the training step captured once in a CUDA graph (torch.cuda.graph with static
          inputs: the whole-network capture of PyTorch's CUDA notes) and replayed every epoch;
          neither logs; what-if `graph-steps`
  pinned  the batch (--copy-batch rows, the real ones tiled) copied host -> device every epoch
          with non_blocking=True, from pageable -> from pinned host memory; neither logs;
          what-if `pin-copies`
Each run: WARMUP_EPOCHS untimed epochs, then a profiler schedule of WAIT + WARMUP steps and N
active ones (ProfilerStep#N); on CUDA the last active step ends with a device sync, so that its
GPU work is in the trace. DIR gets each run's trace (.json.gz), manifest.json (the complete pairs,
as experiments/what_if_validation.py reads them) and README.md (the provenance: machine, torch,
commit, date, the command, each pair's switch). Without CUDA, what needs it is said and left out
(graph's captured run, the whole pinned pair) and the rest is written. DIR is written whole or not
at all: built in a folder beside it, then renamed. Bad flags: exit 2.
Cost: a few seconds per run after torch's import, on a GPU or on 2 CPU cores.
"""

import argparse
import datetime
import gzip
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

from experiments.python_eager import DATA, context, load_split

WAIT, WARMUP = 1, 2  # profiler steps before the active ones: its start-up stays out of them
WARMUP_EPOCHS = 20  # untimed, before the profiler: allocations, caches, CUDA and cuBLAS set-up
TOLERANCE = 0.2  # the error a per-step prediction may have and pass (analysis.what_if_pairs' rule)


@dataclass(frozen=True)
class Run:
    name: str  # the trace's stem
    log: bool = False  # losses.append(loss.item()) every epoch
    graph: bool = False  # the step captured once in a CUDA graph, replayed every epoch
    copy: str = ""  # "pageable" or "pinned": the batch copied host -> device every epoch
    needs: str = ""  # why it needs CUDA, when it does


@dataclass(frozen=True)
class Pair:
    key: str
    change: str
    first: Run
    second: Run
    what_ifs: tuple


PAIRS = (
    Pair(
        "item",
        "`losses.append(loss.item())` every epoch -> never (the article's first run against its "
        "loop without the log)",
        Run("item-every", log=True),
        Run("item-never"),
        ("no-syncs:op=aten::item",),
    ),
    Pair(
        "graph",
        "eager -> the training step captured once in a CUDA graph (torch.cuda.graph, static "
        "inputs) and replayed every epoch; neither logs",
        Run("graph-eager"),
        Run("graph-captured", graph=True, needs="torch.cuda.graph"),
        ("graph-steps",),
    ),
    Pair(
        "pinned",
        "the batch copied host -> device every epoch with non_blocking=True: from pageable -> "
        "from pinned host memory; neither logs",
        Run("copy-pageable", copy="pageable", needs="host-to-device copies"),
        Run("copy-pinned", copy="pinned", needs="pinned memory and host-to-device copies"),
        ("pin-copies",),
    ),
)


def model_and_optimizer(device):
    torch.manual_seed(42)  # every run starts from the same weights
    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(device)
    return model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.01)


def captured_step(model, criterion, optimizer, x, y):
    """PyTorch's whole-network capture (CUDA semantics notes): a few steps on a side stream, then
    one step captured with the gradients unset, so that backward allocates them in the graph's
    pool and every replay writes them afresh. The batch is the graph's static input."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            optimizer.zero_grad(set_to_none=True)
            criterion(model(x), y).backward()
            optimizer.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        criterion(model(x), y).backward()
        optimizer.step()
    return graph.replay


def tiled(x, y, rows):
    reps = -(-rows // x.shape[0])
    return x.repeat(reps, 1)[:rows].contiguous(), y.repeat(reps)[:rows].contiguous()


def epoch_of(run, device, x, y, copy_batch):
    """One epoch of the run's loop, as a function."""
    model, criterion, optimizer = model_and_optimizer(device)
    losses = []
    if run.copy:
        x_host, y_host = tiled(x, y, copy_batch)
        if run.copy == "pinned":
            x_host, y_host = x_host.pin_memory(), y_host.pin_memory()

        def copied():
            xb = x_host.to(device, non_blocking=True)
            yb = y_host.to(device, non_blocking=True)
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        return copied
    x, y = x.to(device), y.to(device)
    if run.graph:
        return captured_step(model, criterion, optimizer, x, y)

    def eager():
        outputs = model(x)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if run.log:
            losses.append(loss.item())

    return eager


def record(run, device, steps, path, x, y, copy_batch):
    """The run profiled with stacks: ProfilerStep#N for each of `steps` active epochs, into
    path (gzipped, no name or time in its header)."""
    epoch = epoch_of(run, device, x, y, copy_batch)
    cuda = device.type == "cuda"
    for _ in range(WARMUP_EPOCHS):
        epoch()
    if cuda:
        torch.cuda.synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    total = WAIT + WARMUP + steps
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "trace.json")
        with profile(
            activities=activities,
            with_stack=True,
            schedule=schedule(wait=WAIT, warmup=WARMUP, active=steps, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(plain),
        ) as prof:
            for i in range(total):
                epoch()
                if cuda and i == total - 1:
                    torch.cuda.synchronize()  # the last step's GPU work into the trace
                prof.step()
        with open(plain, "rb") as src, open(path, "wb") as raw:
            with gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as z:
                shutil.copyfileobj(src, z)


def manifest(done, machine):
    pairs = [p for p in PAIRS if p.first.name in done and p.second.name in done]
    return {
        "about": f"The article's loop (4-10-3 MLP, SGD, the Iris training split) recorded on "
        f"{machine} by experiments/record_loop_pairs.py: each pair the same loop twice, one "
        "switch apart, one ProfilerStep per epoch.",
        "tolerance": TOLERANCE,
        "skip_calls": 1,
        "skip_why": "it may carry the profiler's start-up (buffer requests, CUPTI's first records)",
        "traces": {f"{name}.json.gz": {} for name in done},
        "pairs": [
            {
                "first": f"{p.first.name}.json.gz",
                "second": f"{p.second.name}.json.gz",
                "change": p.change,
                "what_ifs": list(p.what_ifs),
                "unit": "step",
            }
            for p in pairs
        ],
    }


def readme(ctx, machine, device, args, done, left_out, argv):
    lines = [
        f"# The article's loop as what-if pairs, on {machine}",
        "",
        "Recorded by `python -m experiments.record_loop_pairs "
        f"{' '.join(argv)}` on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC,",
        "for the what-if validation set: `python -m experiments.what_if_validation FOLDER` "
        "(./attribute built) replays each pair's what-ifs on its first run and sets them against",
        "its second (manifest.json says which). Provenance:",
        "",
        f"- machine: {machine}; GPU: {ctx['gpu_name']}; CPU: {ctx['cpu_model']} "
        f"({os.cpu_count()} cores, torch threads {ctx['cpu_threads_torch']})",
        f"- torch {ctx['torch_version']}, CUDA runtime {ctx['cuda_runtime']}; commit "
        f"{ctx['git_commit']}",
        f"- device: {device}; per run {WARMUP_EPOCHS} untimed epochs, then {WAIT} wait and "
        f"{WARMUP} warm-up profiler steps and {args.steps} profiled ones (ProfilerStep#N, "
        "torch.profiler with_stack=True)"
        + ("; the last profiled step ends with a device sync" if device == "cuda" else ""),
        "- the loop: the article's 4-10-3 MLP with ReLU, cross-entropy, SGD lr 0.01, seed 42, the "
        "Iris training split (120 rows); the pinned pair copies a batch of "
        f"{args.copy_batch} rows (the 120 tiled)",
        "",
        "| pair | first -> second | the one switch | what-ifs |",
        "|---|---|---|---|",
    ]
    for p in PAIRS:
        if p.first.name in done and p.second.name in done:
            lines.append(
                f"| {p.key} | `{p.first.name}` -> `{p.second.name}` | {p.change} | "
                + ", ".join(f"`{w}`" for w in p.what_ifs)
                + " |"
            )
    if left_out:
        lines += ["", "Not recorded here:", ""] + [f"- {why}" for why in left_out]
    return "\n".join(lines) + "\n"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--out", required=True, help="the folder to write (replaced whole)")
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--steps", type=int, default=20, help="profiled epochs per run [20]")
    ap.add_argument(
        "--copy-batch", type=int, default=100000, help="rows the pinned pair copies [100000]"
    )
    args = ap.parse_args(argv)
    if args.steps < 2:
        ap.error(f"--steps: expected a whole number >= 2 (the first is skipped), got {args.steps}")
    if args.copy_batch < 1:
        ap.error(f"--copy-batch: expected a whole number >= 1, got {args.copy_batch}")
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: no CUDA device here (--device auto records what the CPU can)")
    out = os.path.abspath(args.out)
    if not os.path.isdir(os.path.dirname(out)):
        ap.error(f"--out: {os.path.dirname(out)}: no such folder")
    return args, out


def replace_folder(tmp, out):
    """tmp becomes out; an older out goes."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp's 0700 is not what a new folder gets
    if os.path.exists(out):
        old = tempfile.mkdtemp(dir=os.path.dirname(out), prefix=f".{os.path.basename(out)}.old.")
        os.replace(out, os.path.join(old, "x"))
        os.replace(tmp, out)
        shutil.rmtree(old)
    else:
        os.replace(tmp, out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args, out = parse_args(argv)
    cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    device = torch.device("cuda" if cuda else "cpu")
    ctx = context()
    machine = os.environ.get("MACHINE") or (ctx["gpu_name"] if cuda else ctx["cpu_model"])
    x, y = load_split(DATA)
    tmp = tempfile.mkdtemp(dir=os.path.dirname(out), prefix=f".{os.path.basename(out)}.")
    try:
        done, left_out = [], []
        for p in PAIRS:
            for run in (p.first, p.second):
                if run.needs and not cuda:
                    why = f"{p.key}: `{run.name}` needs CUDA ({run.needs}): no CUDA device here"
                    print(f"record_loop_pairs: {why}: not recorded", flush=True)
                    left_out.append(why)
                    continue
                path = os.path.join(tmp, f"{run.name}.json.gz")
                record(run, device, args.steps, path, x, y, args.copy_batch)
                done.append(run.name)
                print(f"record_loop_pairs: {p.key}: {run.name} on {device.type}", flush=True)
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest(done, machine), f, indent=1)
            f.write("\n")
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(readme(ctx, machine, device.type, args, done, left_out, argv))
        replace_folder(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    complete = len(manifest(done, machine)["pairs"])
    print(f"wrote {out}: {len(done)} runs, {complete} of {len(PAIRS)} pairs", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
