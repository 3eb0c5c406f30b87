"""Record a torch.profiler trace of a torch.compile'd step with graph breaks, on the CPU.

The test data of ./attribute's graph-break report (docs/trace-tool.md, "Graph breaks"):

    .venv/bin/python -m experiments.record_graph_break_trace \\
        --out tests/data/traces_compiled/cpu-compiled-item.json.gz

Each step calls two compiled functions. The first reads a value with `.item()` in its middle:
Dynamo breaks the graph there, runs the `.item()` eagerly and resumes in a second compiled
region (`Torch-Compiled Region: 1/0`, nested in the first's `0/0`). Between the two functions
the step reads a value again (`.item()` between two regions). With_stack=True, so the breaks
have call sites; 4 profiled steps (ProfilerStep#N) after 3 warm-up calls that compile. On a CPU
nothing blocks: `.item()` is an op that would block on a GPU (aten::_local_scalar_dense).
Cost: about a minute of compiling on 2 shared cores. Written gzipped with no name or time in
the header, through a temporary file and a rename.
"""

import argparse
import gzip
import pathlib
import sys
import tempfile

from analysis.atomic_write import open_atomic


def scaled(x, w1, w2):
    h = torch.relu(x @ w1)
    scale = h.mean().item()  # a graph break: Dynamo resumes after it in a region of its own
    return torch.tanh(h @ w2) * scale


def head(y, w3):
    return torch.sigmoid(y @ w3)


def step(f, g, x, w1, w2, w3):
    y = f(x, w1, w2)
    norm = y.abs().max().item()  # read between two compiled regions
    return g(y / norm, w3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the .json.gz to write")
    ap.add_argument("--steps", type=int, default=4, help="profiled steps (default 4)")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error(f"--steps: expected a whole number >= 1, got {args.steps}")
    out = pathlib.Path(args.out)
    if not out.parent.is_dir():
        print(f"record_graph_break_trace: {out.parent}: no such folder", file=sys.stderr)
        return 2

    global torch
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    torch.manual_seed(0)
    f, g = torch.compile(scaled), torch.compile(head)
    x, w1, w2, w3 = (
        torch.randn(32, 64),
        torch.randn(64, 64),
        torch.randn(64, 8),
        torch.randn(8, 4),
    )
    for _ in range(3):  # compile (and recompile) before the profiled steps
        step(f, g, x, w1, w2, w3)
    with tempfile.TemporaryDirectory() as tmp:
        plain = pathlib.Path(tmp) / "trace.json"
        with profile(
            activities=[ProfilerActivity.CPU],
            with_stack=True,
            schedule=schedule(wait=0, warmup=1, active=args.steps, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(str(plain)),
        ) as prof:
            for _ in range(args.steps + 1):
                step(f, g, x, w1, w2, w3)
                prof.step()
        with (
            open_atomic(out, "wb") as raw,
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as z,
        ):
            z.write(plain.read_bytes())
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
