"""The call sites of a Kineto trace's blocking calls, computed from the raw events in plain
Python, independently of ./attribute's C++ (src/trace/analyze/call_sites.h): a reference the
tests hold the tool to (test_reference_sites.py).

Independent where it can be: the stack is rebuilt from the profiler's own `Python id` /
`Python parent id` links (the C++ nests frames by time), the standard library is Python's own
`sys.stdlib_module_names`, and every event is read with `json`. The rules are the documented ones
(docs/trace-tool.md, "Where in the code"): a call blocks when it is a synchronisation, a copy
without Async (but device to device), or an Async copy to or from pageable host memory; its
caller frame is the innermost frame neither builtin, nor a module's forward, nor PyTorch's
(`torch/...`), nor the standard library's, nor code without a file; a site is (caller, callee,
outermost op, order of the callee's occurrence in its ProfilerStep).

    python tests/sites/reference_sites.py TRACE.json[.gz]   prints the sites as JSON
"""

import gzip
import json
import re
import sys
from collections import defaultdict

STDLIB = set(sys.stdlib_module_names)
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>$")


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def frame_name(name):
    return ADDRESS.sub(">", name) if name.startswith("<") else name


def frame_kind(name):
    if name.startswith("<built-in "):
        return "builtin"
    if name.startswith("nn.Module: "):
        return "module"
    if name.startswith("<frozen "):
        return "stdlib"
    m = re.match(r"^(.*)\((\d*)\): ", name)
    if not m or not m.group(1) or m.group(1).startswith("<"):
        return "nofile"
    path = m.group(1)
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            path = path[path.rindex(marker) + len(marker) :]
    if path.startswith("/"):
        if "/lib/python3" in path:
            rest = path[path.index("/lib/python3") + len("/lib/python3") :]
            rest = rest.split("/", 1)[1] if "/" in rest else ""
            top = rest.split("/")[0].removesuffix(".py")
            return "stdlib" if top in STDLIB else "code"
        return "code"
    top = path.split("/")[0].removesuffix(".py")
    if top == "torch":
        return "torch"
    return "stdlib" if top in STDLIB else "code"


def blocking(call, copy):
    """As src/trace/analyze/blocking_calls.h: whether the runtime call holds the host."""
    name = call["name"]
    if "Synchronize" in name:
        return True
    if "Memcpy" not in name and "memcpy" not in name:
        return False
    kind = copy["name"] if copy else ""
    if "Async" not in name:
        return "DtoD" not in kind
    return "Pageable" in kind


def sites(events):
    x = [e for e in events if e.get("ph") == "X" and "ts" in e and "dur" in e]
    copies = {}
    for e in x:
        if e.get("cat") == "gpu_memcpy":
            copies.setdefault(e.get("args", {}).get("correlation"), e)
    frames = [e for e in x if e.get("cat") == "python_function"]
    by_id = {e["args"]["Python id"]: e for e in frames if "Python id" in e.get("args", {})}
    ops = defaultdict(list)
    for e in x:
        if e.get("cat") == "cpu_op":
            ops[e.get("tid")].append(e)
    steps = sorted(
        (e["ts"], e["ts"] + e["dur"])
        for e in x
        if str(e.get("name", "")).startswith("ProfilerStep#")
    )
    frames_by_tid = defaultdict(list)
    for e in frames:
        frames_by_tid[e.get("tid")].append(e)
    for v in frames_by_tid.values():
        v.sort(key=lambda e: (e["ts"], -e["dur"]))

    def holds(e, a, b):
        return e["ts"] <= a and b <= e["ts"] + e["dur"]

    rows = {}
    occurrences = defaultdict(dict)  # (step, caller, callee, op) -> {occurrence: order}
    calls = [
        e
        for e in x
        if e.get("cat") == "cuda_runtime"
        and blocking(e, copies.get(e.get("args", {}).get("correlation")))
    ]
    for c in sorted(calls, key=lambda e: e["ts"]):
        a, b = c["ts"], c["ts"] + c["dur"]
        tid = c.get("tid")
        # The innermost frame around the call: the latest-starting one that holds it.
        cand = [f for f in frames_by_tid[tid] if holds(f, a, b)]
        stack = []
        if cand:
            f = max(cand, key=lambda f: (f["ts"], -f["dur"]))
            while f is not None:  # out through the parent links
                stack.append(f)
                f = by_id.get(f.get("args", {}).get("Python parent id"))
            stack.reverse()
        names = [frame_name(f["name"]) for f in stack]
        caller = next(
            (i for i in range(len(names) - 1, -1, -1) if frame_kind(names[i]) == "code"), None
        )
        callee = caller + 1 if caller is not None and caller + 1 < len(names) else None
        around = [o for o in ops[tid] if holds(o, a, b)]
        op = min(around, key=lambda o: (o["ts"], -o["dur"]))["name"] if around else c["name"]
        step = next((i for i, (s, e) in enumerate(steps) if s <= a <= e), None)
        if callee is not None:
            occurrence = ("frame", stack[callee]["args"]["Python id"])
        else:
            inner = max(around, key=lambda o: (o["ts"], -o["dur"])) if around else None
            occurrence = ("op", id(inner)) if inner else ("call", id(c))
        key = (
            names[caller] if caller is not None else None,
            names[callee] if callee is not None else None,
            op,
        )
        order = 1
        if steps:
            seen = occurrences[(step,) + key]
            order = seen.setdefault(occurrence, len(seen) + 1)
        row = rows.setdefault(
            key + (order,), {"calls": 0, "blocked_us": 0.0, "steps": set(), "occ": set()}
        )
        row["calls"] += 1
        row["blocked_us"] += c["dur"]
        if step is not None:
            row["steps"].add(step)
        row["occ"].add(occurrence)
    rows = fold(rows)
    return [
        {"caller": k[0], "callee": k[1], "op": k[2], "order": k[3], **v}
        for k, v in sorted(rows.items(), key=lambda kv: -kv[1]["blocked_us"])
    ]


def fold(rows):
    """The k-th occurrences of one (caller, callee, op) stay apart only where they differ: blocked
    time per occurrence at least twice the lower median of the key's rows and 50 us more, or in
    fewer steps than the most frequent; the rest become one row, order 0, or order 1 when none
    differs."""
    by_key = defaultdict(list)
    for k in rows:
        by_key[k[:3]].append(k)
    out = {}
    for key, ks in by_key.items():
        per = {k: rows[k]["blocked_us"] / max(1, len(rows[k]["occ"])) for k in ks}
        costs = sorted(per.values())
        mid = costs[(len(costs) - 1) // 2]
        usual = max(len(rows[k]["steps"]) for k in ks)
        alike = [
            k
            for k in ks
            if (per[k] < 2 * mid or per[k] < mid + 50) and len(rows[k]["steps"]) == usual
        ]
        if len(alike) < 2:
            alike = []
        for k in ks:
            if k not in alike:
                out[k] = {"calls": rows[k]["calls"], "blocked_us": rows[k]["blocked_us"]}
        if alike:
            order = 1 if len(alike) == len(ks) else 0
            out[key + (order,)] = {
                "calls": sum(rows[k]["calls"] for k in alike),
                "blocked_us": sum(rows[k]["blocked_us"] for k in alike),
            }
    return out


if __name__ == "__main__":
    json.dump(sites(load(sys.argv[1])), sys.stdout, indent=1)
    print()
