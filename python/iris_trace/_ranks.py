"""Reading many ranks: in parallel threads within a memory bound, or on a Dask cluster.

Each rank's work (_core.run on one file) reads one file, makes its figures and drops its records, so
a rank's memory is held only while it is read: the bound is on the ranks in flight at once.
The C++ reader releases the GIL, so threads read in parallel; it also uses every core for one
file, so two or three ranks at once already fill a small machine."""

import os
import struct
import threading

from . import _core
from ._errors import trace_error

# Peak memory of one rank's read, per byte of (decompressed) JSON, and a fixed part: measured
# with ./attribute on the 1 GB generated trace (0.38 of its size) with room for smaller traces,
# whose fixed part dominates (1.24 of 26 MB).
MEMORY_PER_BYTE = 0.6
MEMORY_FIXED = 64 << 20


def decompressed_size(path):
    """The bytes the reader will parse: a gzip file's size from its trailer (modulo 4 GiB, as
    gzip records it, so at least that much), else the file's own size."""
    size = os.path.getsize(path)
    try:
        with open(path, "rb") as f:
            if f.read(2) != b"\x1f\x8b" or size < 18:
                return size
            f.seek(-4, os.SEEK_END)
            isize = struct.unpack("<I", f.read(4))[0]
    except OSError:
        return size
    while isize < size:  # wrapped past 4 GiB (gzip stores the size modulo 2**32)
        isize += 1 << 32
    return isize


def memory_estimate(path):
    return int(decompressed_size(path) * MEMORY_PER_BYTE) + MEMORY_FIXED


def available_memory():
    """MemAvailable from /proc/meminfo, or None where there is none."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def default_max_memory():
    avail = available_memory()
    return avail // 2 if avail else 4 << 30


def run_rank(path, options):
    """One rank's figures (a dict of text, JSON and column arrays) under ./attribute's options
    (the dict attribute() builds); TraceError on bad input. Module-level so that a Dask worker
    can run it."""
    return run_files([path], options)["ranks"][0]


def run_files(paths, options):
    """./attribute's run over the files at once (trace/run/run.h): HTA's figures and the page
    need every rank together."""
    try:
        return _core.run([str(p) for p in paths], options)
    except _core.InputError as e:
        raise trace_error(e, str(paths[0]) if len(paths) == 1 else None) from None


def run_parallel(task, files, workers=None, max_memory=None):
    """[task(f) for f in files], at most `workers` at once and, past the first, only while the
    estimated memory of those in flight stays under max_memory (bytes). Raises the first
    error in file order; Ctrl-C stops starting new ranks and raises at once (a rank being read
    finishes in the background: the C++ reader cannot be stopped half-way)."""
    files = list(files)
    if workers is None:
        workers = min(len(files), os.cpu_count() or 1)
    workers = max(1, min(int(workers), len(files) or 1))
    if max_memory is None:
        max_memory = default_max_memory()
    if not files:
        return []
    need = [memory_estimate(f) for f in files]
    results = [None] * len(files)
    errors = [None] * len(files)
    state = {"next": 0, "in_flight": 0, "memory": 0, "stop": False}
    cond = threading.Condition()

    def take():
        with cond:
            while True:
                i = state["next"]
                if state["stop"] or i >= len(files):
                    return None
                fits = state["memory"] + need[i] <= max_memory or state["in_flight"] == 0
                if fits and state["in_flight"] < workers:
                    state["next"] += 1
                    state["in_flight"] += 1
                    state["memory"] += need[i]
                    return i
                cond.wait()

    def worker():
        while (i := take()) is not None:
            try:
                results[i] = task(files[i])
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                errors[i] = e
                with cond:
                    state["stop"] = True
            with cond:
                state["in_flight"] -= 1
                state["memory"] -= need[i]
                cond.notify_all()

    # Not daemons: a thread still inside the C++ reader when the interpreter exits must finish
    # first (Python waits for it), since a daemon thread retaking the GIL then aborts.
    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    # Waiting on the condition, not Thread.join: Ctrl-C in a join marks the thread stopped
    # (Python 3.11's _wait_for_tstate_lock), and the exit would then not wait for it.
    try:
        with cond:
            while state["next"] < len(files) and not state["stop"] or state["in_flight"]:
                cond.wait(0.1)
    except KeyboardInterrupt:
        with cond:
            state["stop"] = True
            cond.notify_all()
        raise
    for t in threads:
        t.join()
    for e in errors:
        if e is not None:
            raise e
    return results


def run_on_client(client, task, files, **kwargs):
    """The same per-rank task on a dask.distributed cluster; the small results come back."""
    futures = client.map(task, [str(f) for f in files], pure=False, **kwargs)
    return client.gather(futures)
