"""The GPU run's scheduler: the plan's steps in order, within a budget, each recorded and packed.

    python -m scripts.gpu_run OUT_DIR --part 1|2|all | --steps A,B [--preflight DIR] [--budget_s S]

scripts/gpu_check.sh checks the machine (the preflight, its findings in DIR) and hands over to
this, from the repository root. It prints the plan (scripts/gpu_plan.py), then runs each step
(scripts/gpu_steps.py) only if the budget left covers it, stopped at CAP_FACTOR x its estimate,
records each in steps-<part>.tsv (step, status, seconds, estimate, note: status ran | not-run |
cut | failed), and packs results/<machine>/ into OUT_DIR after every step, so a run cut at the
device tool's limit still returns everything done before the cut. The last lines name the steps
left out, as the rerun slot's command.
"""

import argparse
import copy
import os
import pathlib
import subprocess
import sys
import tarfile
import time

from experiments import sweeps
from scripts import gpu_plan, gpu_steps
from scripts.gpu_steps import CUT, NOT_RUN, RAN, REPO, run_cmd, say


class Run:
    """One gpu_check.sh call: where things are, the budget, the record of the steps."""

    def __init__(self, env, part, out_dir):
        self.env = env
        self.out_dir = pathlib.Path(out_dir)
        self.py = env.get("PYTHON", "python3")
        self.build_dir = pathlib.Path(env.get("GPU_BUILD_DIR", REPO / "build-gpu"))
        self.bench = self.build_dir / "bench"
        self.machine = env["MACHINE"]
        self.results = REPO / "results" / self.machine
        self.results.mkdir(parents=True, exist_ok=True)
        self.budget_s = int(env.get("BUDGET_S") or gpu_plan.default_budget_s(part))
        self.cap_factor = int(env.get("CAP_FACTOR") or 3)
        self.grace_s = int(env.get("GRACE_S") or 30)
        self.t0 = float(env.get("GPU_CHECK_T0") or time.time())
        self.no_gpu_ok = env.get("ALLOW_NO_GPU", "0") == "1"
        self.sanitizer = env.get("SANITIZER", "")
        self.ctest_j = env.get("CTEST_J", "8")
        self.deps = REPO / ".deps" / "root" / "usr"
        self.label = "custom" if part == "custom" else f"part{part}"
        self.tsv = self.results / f"steps-{self.label}.tsv"
        self.tsv.write_text("step\tstatus\tseconds\testimate_s\tnote\n")
        # The GPU run's sizes: sweeps.toml with its [gpu] changes (then the [env] variables).
        self.sweeps = sweeps.load(profile="gpu", environ=env)

    def elapsed(self):
        return int(time.time() - self.t0)

    def step(self, msg):
        say(f"\033[1m[gpu_check]\033[0m [{self.elapsed()}s] {msg}")

    def left(self, analysis_s):
        return self.budget_s - analysis_s - self.elapsed()

    def record(self, name, status, seconds, estimate, note):
        note = " ".join(str(note).split())  # one line, no tabs
        with open(self.tsv, "a") as f:
            f.write(f"{name}\t{status}\t{seconds}\t{estimate}\t{note}\n")

    def tried(self, name):
        return any(line.split("\t")[0] == name for line in self.tsv.read_text().splitlines()[1:])

    def pack(self):
        """results/<machine>/ into OUT_DIR, atomically: a cut run returns all done before it."""
        final = self.out_dir / f"results-{self.machine}.tar.gz"
        tmp = self.out_dir / f".results-{self.machine}.tar.gz.tmp"
        with tarfile.open(tmp, "w:gz") as tar:
            tar.add(self.results, arcname=f"results/{self.machine}")
        os.replace(tmp, final)
        mb = final.stat().st_size // 1048576
        if mb >= 16:
            self.step(
                f"WARNING: {final.name} is {mb} MiB: over the 16 MiB a file may have to come back"
            )

    def flags(self, family, **changes):
        s = copy.deepcopy(self.sweeps)
        s[family].update(changes)
        return sweeps.flags(s, family)

    def bench_json(self, name, limit, flags, folder=None):
        """bench with a budget; its JSON lands under its name (in folder, under the results)
        only if bench finished."""
        results = self.results / folder if folder else self.results
        results.mkdir(exist_ok=True)
        partial = results / f".{name}.json.partial"
        rc = run_cmd(
            [self.bench, *flags, f"--budget_s={limit}", f"--benchmark_out={partial}"]
            + ["--benchmark_out_format=json"],
            timeout=limit + self.grace_s,
            env=self.env,
        )
        if rc == 0:
            os.replace(partial, results / f"{name}.json")
            return rc, ""
        if partial.exists():  # not *.json, so the analysis reads only complete files
            os.replace(partial, results / f"{name}.json.partial")
        return rc, f"bench exit {rc}: what it wrote is kept as {name}.json.partial"


def run_step(r, plan, name):
    est = round(plan[name].seconds)
    left = r.left(gpu_plan.ANALYSIS_S)
    need = 20 if name in gpu_steps.BUDGETED else est
    if left < need:
        r.step(f"{name} NOT RUN: needs ~{est} s, {left} s of the {r.budget_s} s budget left")
        r.record(name, "not-run", 0, est, f"budget: needs ~{est} s, {left} s left")
        return
    limit = min(max(r.cap_factor * est, 60), left)
    r.step(f"{name} (estimate {est} s, stopped at {limit} s)")
    t = time.time()
    rc, note = gpu_steps.STEPS[name](r, limit)
    secs = int(time.time() - t)
    if rc == RAN:
        r.record(name, "ran", secs, est, note)
    elif rc == NOT_RUN:
        r.record(name, "not-run", secs, est, note)
        r.step(f"{name} NOT RUN: {note}")
    elif rc in (CUT, 137):
        r.record(name, "cut", secs, est, f"stopped at {limit} s; {note}")
        r.step(f"{name} CUT at {limit} s")
    else:
        r.record(name, "failed", secs, est, f"exit {rc}; {note}")
        r.step(f"{name} FAILED (exit {rc}) {note}")
    r.pack()


def analysis(r):
    r.step("analysis")
    t = time.time()
    est = gpu_plan.ANALYSIS_S
    if not list(r.results.glob("item_sync_*.json")):
        # The report is built around the article's table: a part 2 or --steps run without it
        # leaves the report to the union of both parts' results, made after unpacking them.
        why = "no ItemSync results in this run: the report is made from both parts' results once unpacked"
        r.record("analysis", "not-run", 0, est, why)
        r.step(f"analysis NOT RUN: {why}")
        return
    table = r.results / "table.txt"
    with open(table, "w") as f:
        rc = subprocess.run(
            [r.py, "-m", "analysis.report", r.results, "--machine", r.machine],
            cwd=REPO,
            stdout=f,
            stderr=subprocess.STDOUT,
            env=r.env,
        ).returncode
    text = table.read_text(errors="replace")
    last = (text.strip().splitlines() or [""])[-1]
    r.record(
        "analysis",
        "ran" if rc == 0 else "failed",
        int(time.time() - t),
        est,
        "REPORT.md" if rc == 0 else last,
    )
    say(text)


def build_missing(r, plan, name):
    """A step whose binaries are missing (part 2 or --steps on a fresh machine) builds them
    first; False when bench is still missing."""
    if name in ("build_bench", "build_tests"):
        return True
    if not r.bench.exists() and not r.tried("build_bench"):
        run_step(r, plan, "build_bench")
    unit_tests = r.build_dir / "tests" / "unit_tests"
    tests = name in ("cuda_tests", "compute_sanitizer")
    if tests and not unit_tests.exists() and not r.tried("build_tests"):
        run_step(r, plan, "build_tests")
    return r.bench.exists()


def summary(r, out_dir):
    """The steps' table, the rerun slot's command for what was left out; the exit code."""
    rows = [x.split("\t") for x in r.tsv.read_text().splitlines()]
    say("")
    r.step("steps (seconds here; estimate for the GPU machine from scripts/gpu_plan.py):")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        say("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    rest = [
        x[0] for x in rows[1:] if x[1] == "cut" or (x[1] == "not-run" and x[4].startswith("budget"))
    ]
    if rest:
        r.step(
            f"left out; the rerun slot's command: scripts/gpu_check.sh $OUT --steps {','.join(rest)}"
        )
    r.step(
        f"done: unpack {out_dir}/results-{r.machine}.tar.gz at the repository root (docs/gpu-run.md)"
    )
    return 1 if any(x[1] == "failed" for x in rows[1:]) else 0


def run_plan(env, part, names, plan, out_dir, preflight):
    """preflight: (problems, warnings, seconds) from gpu_check.sh. Returns the exit code."""
    r = Run(env, part, out_dir)
    problems, warnings, secs = preflight
    for w in warnings:
        r.step(f"warning: {w}")
    if problems:
        for p in problems:
            r.step(f"PREFLIGHT FAILED: {p}")
        r.record("preflight", "failed", secs, 15, "; ".join(problems))
        r.pack()
        return 1
    r.record("preflight", "ran", secs, 15, "; ".join(warnings))
    for name in names:
        if not build_missing(r, plan, name):
            r.record(name, "not-run", 0, round(plan[name].seconds), "bench did not build")
            continue
        run_step(r, plan, name)
    analysis(r)
    r.pack()
    return summary(r, out_dir)


def read_lines(path):
    try:
        return [x for x in pathlib.Path(path).read_text().splitlines() if x.strip()]
    except OSError:
        return []


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", metavar="OUT_DIR", help="where the results' tarball goes")
    ap.add_argument("--part", default="1", choices=["1", "2", "all"])
    ap.add_argument("--steps", metavar="A,B", help="these steps instead of a part")
    ap.add_argument("--preflight", metavar="DIR", help="gpu_check.sh's preflight findings")
    ap.add_argument("--budget_s", type=float, default=None)
    args = ap.parse_args(argv)
    by_name = {x.name: x for x in gpu_plan.steps()}
    if args.steps:
        names = [n for n in args.steps.split(",") if n]
        problems = [f"--steps: no step '{n}'" for n in names if n not in by_name]
        names = [n for n in names if n in by_name]
        part = "custom"
    else:
        names = [x.name for x in gpu_plan.chosen(args.part) if x.name != "preflight"]
        problems, part = [], args.part
    # The budget is gpu_check.sh's (BUDGET_S), as the runner reads it.
    budget = args.budget_s or float(os.environ.get("BUDGET_S") or gpu_plan.default_budget_s(part))
    shown = gpu_plan.table_of(names, budget) if part == "custom" else gpu_plan.table(part, budget)
    print(shown, flush=True)
    pre = pathlib.Path(args.preflight) if args.preflight else None
    problems = (read_lines(pre / "problems") if pre else []) + problems
    warnings = read_lines(pre / "warnings") if pre else []
    secs = int((read_lines(pre / "seconds") or ["0"])[0]) if pre else 0
    return run_plan(os.environ, part, names, by_name, args.out_dir, (problems, warnings, secs))


if __name__ == "__main__":
    sys.exit(main())
