"""The Python package's sides of experiments/attribute_speed.py (its --python PY): in the same
interleaved run as ./attribute and HTA, each in a child process of its own:

  python_attribute: `attribute(TRACE)` then `.json` (what ./attribute --json /dev/null makes),
      timed around the call inside the child (the interpreter's start and `import iris_trace`,
      with pandas, are not: ./attribute has neither), and the child's whole wall time beside it;
  python_hta: `iris_trace.hta.TraceAnalysis(trace_dir=...)` and its three calls
      (get_temporal_breakdown, get_idle_time_breakdown with show_idle_interval_stats,
      get_cuda_kernel_launch_stats), visualize=False, timed the same way;
  HTA's side (HTA_CHILD3, in HTA's venv): HTA's TraceAnalysis and the same three calls, timed
      the same way (its import not counted either), for the ratio to python_hta.
"""

import json

PY_ATTRIBUTE = r"""
import json, sys, time
from iris_trace import attribute
t0 = time.perf_counter()
r = attribute(sys.argv[1])
n = len(r.json)
t1 = time.perf_counter()
print("PY_SPEED " + json.dumps({"call_s": t1 - t0, "json_chars": n}))
"""

# The same three calls through our package and through HTA itself (in HTA's venv): one child
# program, the import told apart.
THREE_CALLS = r"""
import json, os, sys, tempfile, time
from {module} import TraceAnalysis
trace = sys.argv[1]
with tempfile.TemporaryDirectory(prefix="three-calls-speed-") as d:
    os.symlink(os.path.abspath(trace), os.path.join(d, os.path.basename(trace)))
    t0 = time.perf_counter()
    a = TraceAnalysis(trace_dir=d)
    t1 = time.perf_counter()
    a.get_temporal_breakdown(visualize=False)
    a.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True)
    a.get_cuda_kernel_launch_stats(visualize=False)
    t2 = time.perf_counter()
print("PY_SPEED " + json.dumps({{"call_s": t2 - t0, "load_s": t1 - t0, "calls_s": t2 - t1}}))
"""
PY_HTA = THREE_CALLS.format(module="iris_trace.hta")
HTA_CHILD3 = THREE_CALLS.format(module="hta.trace_analysis")

SIDES = {"python_attribute": PY_ATTRIBUTE, "python_hta": PY_HTA, "hta3": HTA_CHILD3}


def measure(side, python, trace, run_child, timeout_s, env=None, mem_limit_bytes=None):
    """One run of a side: {"rc", "process_wall_s", "wall_s" (the timed call), "peak_rss_bytes"}."""
    rc, wall, rss, text = run_child(
        [str(python), "-c", SIDES[side], str(trace)],
        timeout_s,
        env=env,
        mem_limit_bytes=mem_limit_bytes,
    )
    run = {"rc": rc, "process_wall_s": wall, "peak_rss_bytes": rss}
    for line in text.splitlines():
        if line.startswith("PY_SPEED "):
            got = json.loads(line[len("PY_SPEED ") :])
            run.update(got)
            run["wall_s"] = got["call_s"]
    if rc == 0 and "wall_s" not in run:
        run["rc"] = "no timing printed"
    if run["rc"] != 0:
        run["error"] = text.strip()[-2000:]
    return run
