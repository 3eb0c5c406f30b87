"""Random PyTorch profiler (Kineto) traces that stress Holistic Trace Analysis 0.5.0's rules, for
experiments/hta_differential.py. Seeded: the same seed gives the same trace, byte for
byte. Standard library only (no torch, no HTA).

What a trace holds, each drawn at random per trace so that every rule of
src/trace/analyze/hta_breakdown.h meets its edge cases:
- timestamps as whole microseconds (ints), as Kineto's nanosecond decimals, or with digits past
  the nanosecond near a whole microsecond (12.9999999, 13.0000001); small or epoch-sized bases;
- kernels, copies and memsets on one to three streams, overlapping, abutting, or separated by
  gaps just under and over 30 us; durations that become zero or negative after rounding (a
  0.3 us kernel starting at x.6 rounds to [x+1, x]);
- runtime calls that start before or after the previous GPU event on their stream ends;
  runtime + driver calls that share a correlation id; GPU events whose correlation is missing,
  shared or matches no call; launches whose GPU work never appears;
- cuda_sync rows (Stream Sync on a stream, Event Sync and Context Sync on stream -1, some without
  a correlation); cudaGraphLaunch with several kernels under one correlation; NCCL, Memcpy- and
  Sync-named kernels (HTA's kernel typing);
- ProfilerStep#N ranges (cpu_op or user_annotation; none, one, or several, so that HTA's
  default drops the last one), several ranks in a folder, older category names (Kernel,
  Memcpy, Runtime, ...) in some ranks, and the events HTA drops (no dur: flows, metadata,
  instants; no cat; cat "Trace"), in Kineto's order or shuffled;
- with ties=True (--ties), the equal timestamps real traces have: launches at the start or the
  end of work already queued on a stream, and kernels on several streams ending together. The
  ties draw from their own generator, so a seed without them is the trace it always was.
- with stragglers=True (--stragglers), what HTA's get_potential_stragglers needs to get past
  its errors: two to four ranks, two to five steps, and in each step one or two launches of
  long ncclKernel kernels on streams > 0, the same plan on every rank (durations equal across
  ranks or not, so that the pick among kernels meets ties), each rank launching late by its
  own draw. Its own generator too: a seed without it is unchanged.

    python3 -m experiments.hta_trace_gen --seed 7 --out /tmp/t7     # writes /tmp/t7/rank-*.json
"""

import argparse
import json
import random
from pathlib import Path

from analysis.atomic_write import write_atomic

KERNEL_NAMES = [
    "void at::native::vectorized_elementwise_kernel<4>(int)",
    "sgemm_128x64_nn",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclDevKernel_AllGather_RING_LL(ncclDevComm*)",
    "void cub::DeviceMemcpyKernel<int>(int)",  # contains "Memcpy": HTA says not compute
    "volta_SyncBatchNorm_kernel",  # contains "Sync": not compute
    "dma_transfer_kernel",  # starts with "dma": memory
    "Memset_like_kernel",  # starts with "Memset": memory
]
COPY_NAMES = {
    ("HtoD", "Pageable"): "Memcpy HtoD (Pageable -> Device)",
    ("HtoD", "Pinned"): "Memcpy HtoD (Pinned -> Device)",
    ("DtoH", "Pageable"): "Memcpy DtoH (Device -> Pageable)",
    ("DtoH", "Pinned"): "Memcpy DtoH (Device -> Pinned)",
    ("DtoD", "Device"): "Memcpy DtoD (Device -> Device)",
}


class Rank:
    """One rank's events, built on an integer-nanosecond timeline and written as us at the end."""

    def __init__(self, rng, rank, ts_style, base_ns, streams, ties=None):
        self.rng, self.rank, self.ts_style = rng, rank, ts_style
        self.ties = ties  # a random.Random of its own, or None: no ties made
        self.events = []
        self.t = base_ns  # the host thread's clock
        self.streams = streams
        self.free = {s: base_ns for s in streams}  # when each stream's last work ends
        self.last = {s: base_ns for s in streams}  # when it started
        self.corr = rng.randint(1, 50) * 1000  # correlation ids: per rank, like Kineto
        self.pid, self.tids = 1000 + rank, [1000 + rank, 2000 + rank]
        # Older profilers' category names, which HTA and ./attribute both accept.
        self.old_cats = (
            {
                "kernel": "Kernel",
                "gpu_memcpy": "Memcpy",
                "gpu_memset": "Memset",
                "cuda_runtime": "Runtime",
                "cpu_op": "Operator",
            }
            if rng.random() < 0.1
            else {}
        )

    # --- numbers -------------------------------------------------------------------------
    def q(self, ns):
        """A time as it will be written: whole us in the 'int' style, else ns."""
        return (ns // 1000) * 1000 if self.ts_style == "int" else ns

    def us(self, ns, is_dur=False):
        """The JSON number for a time in ns."""
        if self.ts_style == "int":
            return ns // 1000
        v = ns / 1000.0
        if self.ts_style == "fine" and self.rng.random() < 0.15:
            # Digits past the nanosecond, next to a whole microsecond (the rounding edges).
            v = round(v) + self.rng.choice([-1e-7, 1e-7, -4e-4, 4e-4, 0.0])
            if v < 0 or (is_dur and v < 0):
                v = abs(v)
        return v

    def dur_ns(self):
        """A GPU duration: zero, sub-us (negative after rounding when placed right), or longer."""
        r = self.rng.random()
        if r < 0.08:
            return 0
        if r < 0.3:
            return self.rng.choice([100, 300, 400, 700, 999, 1001])
        if r < 0.85:
            return self.rng.randint(1000, 12000)
        return self.rng.randint(20000, 90000)

    def gap_ns(self):
        """Space after the previous work on a stream: overlap, abut, or near 30 us."""
        return self.rng.choice(
            [
                -self.rng.randint(1, 3000),
                0,
                0,
                1,
                400,
                999,
                1000,
                self.rng.randint(1000, 8000),
                29000,
                29999,
                29999,
                30000,
                30000,
                30001,
                30500,
                29400,
                self.rng.randint(31000, 90000),
            ]
        )

    # --- events --------------------------------------------------------------------------
    def add(self, cat, name, ts_ns, dur_ns, tid, args=None, pid=None):
        cat = self.old_cats.get(cat, cat)
        e = {
            "ph": "X",
            "cat": cat,
            "name": name,
            "pid": self.pid if pid is None else pid,
            "tid": tid,
            "ts": self.us(self.q(ts_ns)),
            "dur": self.us(self.q(ts_ns + dur_ns) - self.q(ts_ns), True),
        }
        if self.ts_style != "int":
            e["dur"] = self.us(dur_ns, True)
        if args is not None:
            e["args"] = args
        self.events.append(e)
        return e

    def next_corr(self):
        r = self.rng.random()
        if r < 0.04 and self.corr > 1:
            return self.corr  # shared with the previous call
        self.corr += self.rng.choice([1, 1, 1, 2, 7])
        return self.corr

    def call(self, name, dur_ns, corr, cat="cuda_runtime"):
        tid = self.tids[0] if self.rng.random() < 0.85 else self.tids[1]
        args = {"cbid": 211}
        if corr is not None:
            args["correlation"] = corr
        e = self.add(cat, name, self.t, dur_ns, tid, args)
        if cat == "cuda_runtime" and self.rng.random() < 0.08:
            # The driver call inside it, same correlation (cuLaunchKernel under cudaLaunchKernel).
            inner = dict(args)
            self.add(
                "cuda_driver",
                "cuLaunchKernel" if "Launch" in name else "cuMemcpyAsync",
                self.t + min(100, dur_ns // 3),
                max(0, dur_ns - 200),
                tid,
                inner,
            )
        return e

    def gpu(self, cat, name, stream, start_ns, dur_ns, corr, extra=None):
        args = {"device": 0, "stream": stream}
        r = self.rng.random()
        if corr is not None and r > 0.04:
            args["correlation"] = corr
        elif r < 0.02:
            args["correlation"] = corr + 100000 if corr else 999999  # matches no call
        if self.rng.random() < 0.03:
            args["stream"] = str(stream)  # HTA: int("7") == 7
        if extra:
            args.update(extra)
        self.add(cat, name, start_ns, dur_ns, stream, args, pid=0)

    def place(self, stream, call_end_ns):
        """Start of new work on a stream: after the queue and after the call that queued it; now
        and then at the same start as the previous work there, or within the same microsecond
        (equal ts, at once or after rounding: the order HTA's unstable sort leaves open)."""
        r = self.rng.random()
        if r < 0.05:
            start = self.last[stream]
        elif r < 0.10:
            start = self.last[stream] + self.rng.choice([100, 300, 500])
        else:
            after_queue = self.free[stream] + self.gap_ns()
            after_call = call_end_ns + self.rng.choice([-500, 0, 300, 1500, 4000, 20000])
            start = max(after_queue, after_call) if self.rng.random() < 0.8 else after_queue
        start = max(start, 0)
        self.last[stream] = start
        return start

    # --- host actions --------------------------------------------------------------------
    def tie_launch(self):
        """With ties: the host's clock moved to the start or end of work queued on a stream, so
        that a launch and a GPU row share a timestamp."""
        if self.ties and self.ties.random() < 0.3:
            s = self.ties.choice(self.streams)
            self.t = max(self.t, self.ties.choice([self.last[s], self.free[s]]))

    def tie_end(self, start, d):
        """With ties: a duration that ends the kernel with the latest work on any stream."""
        latest = max(self.free.values())
        if self.ties and self.ties.random() < 0.2 and latest > start:
            return latest - start
        return d

    def launch(self):
        name = self.rng.choice(["cudaLaunchKernel"] * 6 + ["cudaLaunchKernelExC", "cuLaunchKernel"])
        if self.ties and self.ties.random() < 0.15:
            name = "cuLaunchKernelEx"  # a launch for HTA 0.6.1's queue, not for 0.5.0's
        corr = None if self.rng.random() < 0.03 else self.next_corr()
        dur = self.rng.choice([0, 300, 2000, 4000, 9000, 40000])
        self.tie_launch()
        self.call(name, dur, corr, "cuda_driver" if name.startswith("cuL") else "cuda_runtime")
        if self.rng.random() < 0.04:
            self.t += dur + 500
            return  # a launch whose kernel is not in the trace
        s = self.rng.choice(self.streams)
        start, d = self.place(s, self.t + dur), self.dur_ns()
        d = self.tie_end(start, d)
        self.gpu("kernel", self.rng.choice(KERNEL_NAMES[:2] * 4 + KERNEL_NAMES), s, start, d, corr)
        self.free[s] = max(self.free[s], start + d)
        self.t += dur + self.rng.choice([0, 200, 1000, 5000])

    def graph(self):
        corr = self.next_corr()
        dur = self.rng.choice([3000, 8000])
        self.call("cudaGraphLaunch", dur, corr)
        for _ in range(self.rng.randint(2, 4)):
            s = self.rng.choice(self.streams)
            start, d = self.place(s, self.t + dur), self.dur_ns()
            self.gpu("kernel", self.rng.choice(KERNEL_NAMES[:2]), s, start, d, corr)
            self.free[s] = max(self.free[s], start + d)
        self.t += dur + 1000

    def copy(self, asynchronous):
        direction, mem = self.rng.choice(list(COPY_NAMES))
        corr = self.next_corr()
        s = self.rng.choice(self.streams)
        d = self.dur_ns()
        if asynchronous:
            dur = self.rng.choice([2000, 5000, 15000])
            start = self.place(s, self.t + dur)
            self.call("cudaMemcpyAsync", dur, corr)
        else:
            start = max(self.free[s] + self.rng.choice([0, 1000]), self.t + 3000)
            dur = start + d - self.t + self.rng.choice([0, 1000, 4000])
            self.call("cudaMemcpy", dur, corr)
        self.gpu("gpu_memcpy", COPY_NAMES[(direction, mem)], s, start, d, corr, {"bytes": 4096})
        self.free[s] = max(self.free[s], start + d)
        self.t += dur + 500

    def memset(self):
        corr = self.next_corr()
        dur = self.rng.choice([1000, 3000])
        self.call("cudaMemsetAsync", dur, corr)
        s = self.rng.choice(self.streams)
        start, d = self.place(s, self.t + dur), self.dur_ns()
        self.gpu("gpu_memset", "Memset (Device)", s, start, d, corr, {"bytes": 512})
        self.free[s] = max(self.free[s], start + d)
        self.t += dur + 500

    def sync(self):
        kind = self.rng.choice(["stream", "stream", "event", "device"])
        corr = self.next_corr()
        s = self.rng.choice(self.streams)
        until = max(self.free.values()) if kind == "device" else self.free[s]
        wait_from = self.t + self.rng.choice([500, 1000])
        end = max(
            wait_from + self.rng.choice([0, 1000, 2000]), until + self.rng.choice([0, 500, 1000])
        )
        name = {
            "stream": "cudaStreamSynchronize",
            "event": "cudaEventSynchronize",
            "device": "cudaDeviceSynchronize",
        }[kind]
        self.call(name, end - self.t + 500, corr)
        gpu_name = {"stream": "Stream Sync", "event": "Event Sync", "device": "Context Sync"}[kind]
        args = {"device": 0, "stream": s if kind == "stream" else -1}
        if self.rng.random() < 0.85:
            args["correlation"] = corr
        self.add(
            "cuda_sync",
            gpu_name,
            wait_from,
            end - wait_from,
            s if kind == "stream" else -1,
            args,
            pid=0,
        )
        self.t = end + 500 + self.rng.choice([0, 2000])

    def op(self, name, body):
        """A cpu_op around a host action (what ./attribute's sync causes read)."""
        start = self.t
        self.t += 300
        body()
        self.t += 200
        self.add("cpu_op", name, start, self.t - start, self.tids[0], {"External id": self.corr})

    def step_body(self, n_actions):
        for _ in range(n_actions):
            r = self.rng.random()
            if r < 0.45:
                self.op("aten::add", self.launch) if self.rng.random() < 0.5 else self.launch()
            elif r < 0.52:
                self.graph()
            elif r < 0.64:
                self.op("aten::copy_", lambda: self.copy(self.rng.random() < 0.6))
            elif r < 0.70:
                self.memset()
            elif r < 0.82:
                self.op("aten::item", self.sync) if self.rng.random() < 0.5 else self.sync()
            else:
                self.t += self.rng.choice([100, 1000, 29500, 30500, 60000])  # host work, no calls


# The communication kernels of --stragglers: names HTA's straggler analysis counts (ncclKernel*).
COMM_NAMES = [
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
]


def comm_plan(srng, n_steps):
    """Per step, the (name, stream, duration ns) of each communication launch, for every rank."""
    return [
        [
            (srng.choice(COMM_NAMES), srng.choice([7, 21]), srng.randint(20, 120) * 1000)
            for _ in range(srng.randint(1, 2))
        ]
        for _ in range(max(n_steps, 1))
    ]


def comm_launches(r, srng, launches):
    """One step's communication launches on rank r: late by the rank's own draw, each kernel
    as long as planned or a little off."""
    for name, stream, dur in launches:
        r.t += srng.choice([0, 0, 1000, 5000, 20000])
        corr = r.next_corr()
        r.call("cudaLaunchKernel", 2000, corr)
        r.free.setdefault(stream, r.t), r.last.setdefault(stream, r.t)
        start = r.place(stream, r.t + 2000)
        d = dur if srng.random() < 0.5 else dur + srng.randint(-3, 3) * 1000
        r.gpu("kernel", name, stream, start, d, corr)
        r.free[stream] = max(r.free[stream], start + d)
        r.t += 2500


def make_rank(rng, rank, ts_style, n_steps, step_cat, ties=None, strag=None):
    base_us = rng.choice([0, 10, 1000, 1707417525512000, 4203669604595])
    if strag:  # the ranks of one job: one clock, the same step numbers
        base_us = strag[2]
    base_ns = base_us * 1000 + (0 if ts_style == "int" else rng.choice([0, 407, 999, 600]))
    streams = rng.sample([7, 13, 20, 0, 3], rng.choice([1, 1, 2, 3]))
    r = Rank(rng, rank, ts_style, base_ns, streams, ties)
    r.t += rng.randint(0, 50) * 1000
    steps = max(n_steps, 1)
    first_step = rng.randint(1, 30) if not strag else strag[3]
    for i in range(steps):
        start = r.t
        r.step_body(rng.randint(1, 7))
        if strag:
            comm_launches(r, strag[0], strag[1][i])
        r.t += rng.choice([0, 1000])
        if n_steps:
            r.add(
                step_cat,
                f"ProfilerStep#{first_step + i}",
                start,
                r.t - start,
                r.tids[0],
                {"External id": 1},
            )
        r.t += rng.choice([0, 0, 2000])
    if not r.events:
        r.launch()  # a rank file without one complete event makes HTA's parser raise
    return r


def noise(rng, r, first_ts):
    """Events HTA drops (no dur, cat Trace) or keeps without using (python_function); the
    generator's draws in a fixed order, so a seed gives the same trace."""
    out = [
        {
            "ph": "M",
            "name": "process_name",
            "pid": r.pid,
            "tid": 0,
            "ts": first_ts,
            "args": {"name": "python"},
        }
        for _ in range(rng.randint(0, 3))
    ]
    return out + _flows(rng, r) + _unused_events(rng, r, first_ts)


def _flows(rng, r):
    """Flow start/end pairs (ac2g) on some runtime calls."""
    out = []
    for e in list(r.events):
        if e["cat"] == "cuda_runtime" and rng.random() < 0.3:
            c = e.get("args", {}).get("correlation", 0)
            out.append(
                {
                    "ph": "s",
                    "id": c,
                    "pid": e["pid"],
                    "tid": e["tid"],
                    "ts": e["ts"],
                    "cat": "ac2g",
                    "name": "ac2g",
                }
            )
            out.append(
                {
                    "ph": "f",
                    "id": c,
                    "pid": 0,
                    "tid": 7,
                    "ts": e["ts"],
                    "cat": "ac2g",
                    "name": "ac2g",
                    "bp": "e",
                }
            )
    return out


def _unused_events(rng, r, first_ts):
    """The profiler's span, a Python function, an event without "cat", an instant event."""
    out = []
    if rng.random() < 0.5:
        out.append(
            {
                "ph": "X",
                "cat": "Trace",
                "name": "PyTorch Profiler (0)",
                "pid": "Spans",
                "tid": "PyTorch Profiler",
                "ts": first_ts,
                "dur": 1,
            }
        )
    if rng.random() < 0.3:
        out.append(
            {
                "ph": "X",
                "cat": "python_function",
                "name": "train.py(12): step",
                "pid": r.pid,
                "tid": r.tids[0],
                "ts": first_ts,
                "dur": 5,
            }
        )
    if rng.random() < 0.1:  # a complete event without "cat": HTA drops it (dropna)
        out.append(
            {
                "ph": "X",
                "name": "no category",
                "pid": r.pid,
                "tid": r.tids[0],
                "ts": first_ts,
                "dur": 3,
            }
        )
    if rng.random() < 0.2:
        out.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "name": "[memory]",
                "pid": r.pid,
                "tid": r.tids[0],
                "ts": first_ts,
                "s": "t",
            }
        )
    return out


def generate(seed, ties=False, stragglers=False):
    """{file name: trace document} for one seed (ties, stragglers: see the module's docstring)."""
    rng = random.Random(seed)
    tie_rng = random.Random(seed * 7919 + 1) if ties else None
    n_ranks = rng.choice([1, 1, 1, 1, 2, 3])
    ts_style = rng.choice(["int", "int", "ns", "ns", "fine"])
    n_steps = rng.choice([0, 1, 2, 3, 4, 2])
    step_cat = rng.choice(["cpu_op", "user_annotation"])
    strag = None
    if stragglers:
        srng = random.Random(seed * 104729 + 5)
        n_ranks, n_steps = srng.randint(2, 4), srng.randint(2, 5)
        base_us, first_step = srng.choice([0, 1000, 1707417525512000]), srng.randint(1, 30)
        strag = (srng, comm_plan(srng, n_steps), base_us, first_step)
    files = {}
    for rank in range(n_ranks):
        style = ts_style if rng.random() < 0.8 else rng.choice(["int", "ns"])
        r = make_rank(
            rng,
            rank,
            style,
            n_steps if rng.random() < 0.9 else rng.choice([0, 1]),
            step_cat,
            tie_rng,
            strag,
        )
        events = r.events
        first_ts = min(e["ts"] for e in events) if events else 0
        extra = noise(rng, r, first_ts)
        order = rng.random()
        if order < 0.4:
            events = events + extra  # as built: host call, then its GPU work
        elif order < 0.7:
            events = extra + sorted(
                events,
                key=lambda e: (
                    e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync"),
                    e["ts"],
                ),
            )
        else:
            events = events + extra
            rng.shuffle(events)
        doc = {
            "schemaVersion": 1,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": n_ranks},
            "traceEvents": events,
            "traceName": f"hta-gen-{seed}-rank-{rank}",
        }
        files[f"rank-{rank}.json"] = doc
    return files


def write(files, out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        write_atomic(out / name, json.dumps(doc) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="folder for rank-N.json")
    ap.add_argument("--ties", action="store_true", help="make the ties real traces have")
    ap.add_argument(
        "--stragglers", action="store_true", help="several ranks and steps, long ncclKernels"
    )
    a = ap.parse_args()
    write(generate(a.seed, a.ties, a.stragglers), a.out)


if __name__ == "__main__":
    main()
