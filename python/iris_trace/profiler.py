"""The torch.profiler hook: on_trace_ready=iris_trace.report(dir) saves each profiling cycle's
trace as torch.profiler.tensorboard_trace_handler(dir) names and writes it, then prints
./attribute's table for it (its steps and the blocking calls by the op that issued them).

    with torch.profiler.profile(schedule=..., on_trace_ready=iris_trace.report("log/run")) as p:
        for batch in data:
            train_step(batch)
            p.step()
"""

import os
import socket
import sys
import time


def report(dir_name, worker_name=None, use_gzip=False, file=None):
    """A callable for torch.profiler.profile(on_trace_ready=...). Each call writes
    DIR/WORKER.TIME_NS.pt.trace.json[.gz] (WORKER: host_pid by default, as
    tensorboard_trace_handler) and prints the attribution of that file to `file` (default
    stdout). The handler's `last` attribute holds the last AttributeResult."""
    from . import attribute

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        if use_gzip:
            path += ".gz"
        prof.export_chrome_trace(path)
        handler.last = attribute(path)
        handler.paths.append(path)
        print(f"iris_trace: {path}", file=file or sys.stdout)
        print(handler.last, file=file or sys.stdout, flush=True)

    handler.last = None
    handler.paths = []
    return handler
