"""Build a large (default ~1 GB uncompressed) Kineto trace for the speed check by
repeating the ProfilerSteps of a real trace, never committed itself (out/ is ignored).

    python3 -m experiments.make_big_trace                        # -> out/a100-cuda-graphs-6streams-1GB.json
    python3 -m experiments.make_big_trace --size-mb 200 --out out/t200.json

What it writes: the source trace unchanged (copy 0), then copies 1..N of all of its events
(every complete event and flow event; metadata and instant events are written once). A copy
repeats the source's ProfilerSteps with everything around them: the CPU events, the GPU events
and the ac2g flows, including the GPU events whose launch precedes the profiled window (their
correlation matches no call in the source, and matches none in a copy either). So step n of
every copy has the same figures as step n of the source, which makes a wrong import visible.
Copy k is shifted by k * period (period = the source's span, first start to last end, plus
1 ms, so no copy overlaps another on any stream), its ProfilerStep#n becomes
ProfilerStep#(n + k * steps), and its ids are moved out of the way so they stay unique and
consistent: correlation, External id and the flow id (equal to the correlation in Kineto) by
k * (largest of them + 1); Ev Idx and Sequence number by k * (their largest + 1). The
whole-trace "Trace" span is written once, its duration extended to cover every copy. Copies
are added until the file reaches --size-mb.

Format: the top-level keys in the source's order with traceEvents last, `"key": value` with a
space (HTA finds a file's rank with the regex "rank":\\s+(\\d+) line by line), one event per line.

Memory: only the source's events are held (~108k dicts, about 0.3 GB of Python objects); each
copy is serialised and written on its own, so peak RSS does not grow with --size-mb.
Cost, measured with /usr/bin/time -v on the 2-core 24 GiB development machine (shared with
other jobs, so the wall time is noisy): the default run wrote 1079.1 MB (source + 46 copies of
108887 events, 235 ProfilerSteps, 5.1 million events) in 55 s wall, 31 s user + 3 s system CPU,
peak RSS 179 MiB.
The script prints the same figures for each run.

--stacks adds Python frames (python_function events, as torch.profiler with_stack=True writes
them) to the source before it is repeated: a <module> frame and one frame per step around each
thread's ops, and around every outermost cpu_op FRAMES_PER_OP frames of the kinds a real stack
holds (a user's function, torch's module call, a module's forward, a builtin), with their
Python ids and parent ids; the real stacks of tests/data/traces_stacks hold 1 to 12 frames per
op.

Exit status 2, with a message, when the source cannot be read or holds no ProfilerStep; the
output is written through analysis.atomic_write: it appears only when complete.
"""

import argparse
import gzip
import json
import re
import resource
import sys
import time
from pathlib import Path

from analysis.atomic_write import open_atomic

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SRC = REPO / "tests" / "data" / "traces" / "a100-cuda-graphs-6streams.json.gz"
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
GAP_US = 1000


def fail(msg):
    print(f"make_big_trace: {msg}", file=sys.stderr)
    sys.exit(2)


def load(src):
    try:
        opener = gzip.open if str(src).endswith(".gz") else open
        with opener(src, "rb") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError, EOFError) as e:
        fail(f"{src}: cannot read a JSON trace: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail(f"{src}: expected a JSON object with a traceEvents list")
    return doc


def plan(events, src):
    """The events each copy repeats, and the numbers that shift a copy's times, ids and steps."""
    steps = [e for e in events if e.get("ph") == "X" and STEP_RE.match(str(e.get("name", "")))]
    if not steps:
        fail(f"{src}: no ProfilerStep#N events: nothing to repeat")
    step_nums = [int(STEP_RE.match(e["name"]).group(1)) for e in steps]

    # Every complete event and flow event repeats; metadata ('M'), instants and the
    # whole-trace span are written once.
    repeated = [
        e
        for e in events
        if e.get("ph") in ("X", "s", "f", "t")
        and e.get("cat") != "Trace"
        and isinstance(e.get("ts"), (int, float))
    ]

    def max_of(key, in_args=True):
        vals = [((e.get("args") or {}) if in_args else e).get(key) for e in events]
        return max([v for v in vals if isinstance(v, int)] or [0])

    ends = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float))]
    nums = {
        "period": int(max(ends) - min(e["ts"] for e in repeated)) + GAP_US,
        "id_step": max(max_of("correlation"), max_of("External id"), max_of("id", False)) + 1,
        "evidx_step": max_of("Ev Idx") + 1,
        "seq_step": max_of("Sequence number") + 1,
        "step_count": max(step_nums) - min(step_nums) + 1,
    }
    return repeated, nums


STACK_FRAMES = (
    "train.py(40): train_step",
    "torch/nn/modules/module.py(1732): _call_impl",
    "nn.Module: Block_0",
    "model.py(88): forward",
    "<built-in method linear of PyTorch object at 0x7f2a1c>",
)


def add_stacks(events, per_op):
    """Python frames around the source's ops (see the module's doc); returns the new events."""
    ops = sorted(
        (e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"),
        key=lambda e: (e.get("tid"), e["ts"], -e.get("dur", 0)),
    )
    frames, next_id = [], [1]

    def frame(name, like, ts, dur, parent):
        pid = next_id[0]
        next_id[0] += 1
        frames.append(
            {"ph": "X", "cat": "python_function", "name": name, "pid": like.get("pid"),
             "tid": like.get("tid"), "ts": ts, "dur": dur,
             "args": {"Python id": pid, "Python parent id": parent}}
        )  # fmt: skip
        return pid

    by_tid = {}
    for e in ops:
        by_tid.setdefault(e.get("tid"), []).append(e)
    for mine in by_tid.values():
        lo = min(e["ts"] for e in mine)
        hi = max(e["ts"] + e["dur"] for e in mine)
        root = frame("train.py(1): <module>", mine[0], lo - 2, hi - lo + 4, None)
        end = -1
        for e in mine:
            if e["ts"] + e["dur"] <= end:
                continue  # inside an outer op
            end = e["ts"] + e["dur"]
            parent, ts, dur = root, e["ts"], e["dur"]
            # Nested frames share the op's span, outer first: the profiler's resolution often
            # gives a frame and the op it calls the same start.
            for name in STACK_FRAMES[: max(0, per_op)]:
                parent = frame(name, e, ts, dur, parent)
    return frames


def shifted(e, k, n):
    """Copy k of event e (shallow copies; the source event is left as it was)."""
    c = dict(e)
    c["ts"] = e["ts"] + k * n["period"]
    if isinstance(e.get("id"), int) and e.get("ph") in ("s", "f", "t"):
        c["id"] = e["id"] + k * n["id_step"]
    m = STEP_RE.match(str(e.get("name", "")))
    if m:
        c["name"] = f"ProfilerStep#{int(m.group(1)) + k * n['step_count']}"
    a = e.get("args")
    if a:
        a = dict(a)
        for key, step in (
            ("correlation", "id_step"),
            ("External id", "id_step"),
            ("Ev Idx", "evidx_step"),
            ("Sequence number", "seq_step"),
        ):
            if isinstance(a.get(key), int) and a[key] >= 0:
                a[key] += k * n[step]
        c["args"] = a
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=str(DEFAULT_SRC), help="source trace (.json or .json.gz)")
    ap.add_argument("--size-mb", type=float, default=1024, help="target size, MiB (default 1024)")
    ap.add_argument("--out", help="output .json (default out/<source stem>-<size>MB.json)")
    ap.add_argument(
        "--stacks",
        type=int,
        default=0,
        metavar="FRAMES_PER_OP",
        help="add Python frames: this many around each outermost op (0: none; up to 5)",
    )
    args = ap.parse_args()
    t0 = time.monotonic()

    doc = load(args.src)
    events = doc["traceEvents"]
    if args.stacks:
        events = events + add_stacks(events, args.stacks)
        doc["traceEvents"] = events
    repeated, n = plan(events, args.src)
    target = int(args.size_mb * 1024 * 1024)
    stem = Path(args.src).name.split(".json")[0]
    out = Path(args.out or REPO / "out" / f"{stem}-{int(args.size_mb)}MB.json")
    out.parent.mkdir(parents=True, exist_ok=True)

    span = [e for e in events if e.get("cat") == "Trace"]
    once = [e for e in events if e.get("cat") != "Trace"]
    copies = 0
    with open_atomic(out) as f:
        f.write("{\n")
        for key, val in doc.items():
            if key != "traceEvents":
                f.write(f"  {json.dumps(key)}: {json.dumps(val)},\n")
        f.write('  "traceEvents": [\n')
        f.write(",\n".join(json.dumps(e) for e in once))
        while f.tell() < target:
            copies += 1
            f.write(",\n")
            f.write(",\n".join(json.dumps(shifted(e, copies, n)) for e in repeated))
        for e in span:  # the whole-trace span, stretched over every copy
            c = dict(e)
            c["dur"] = e["dur"] + copies * n["period"]
            f.write(",\n" + json.dumps(c))
        f.write("\n  ]\n}\n")
        size = f.tell()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{out}: {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB), source + {copies} copies of "
        f"{len(repeated)} events ({n['step_count']} steps each), period {n['period']} us; "
        f"{time.monotonic() - t0:.1f} s, peak RSS {rss_mb:.0f} MiB"
    )


if __name__ == "__main__":
    main()
