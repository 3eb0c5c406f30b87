"""From repetition rows to the numbers the report states: per-configuration medians and
spread, the fitted model per device, held-out predictions, the batch crossover."""

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from analysis import article, noise
from analysis.fit import fit_batch_cost, fit_loop_time
from analysis.fmt import fmt_ratio
from experiments import sweeps

# Run by the main job, left out of the fit, then predicted (experiments/sweeps.toml).
_HELD_OUT = sweeps.load()["held_out"]
HELD_OUT_INTERVAL = _HELD_OUT["interval"]
HELD_OUT_BATCH = _HELD_OUT["batch"]
FIT_BATCH = 120  # the article's batch: the ItemSync rows the loop model is fitted on


@dataclass
class ConfigStats:
    device: str
    interval: int
    print100: int
    batch: int
    epochs: int
    item_calls: int
    records: int
    n: int
    median_s: float
    min_s: float
    max_s: float
    samples: tuple = ()  # seconds of every repetition, for the noise intervals
    final_losses: tuple = ()  # the final_loss counter of every repetition that has one

    @property
    def spread_pct(self):
        """(max - min) / median over the repetitions, in percent."""
        return 100.0 * (self.max_s - self.min_s) / self.median_s if self.median_s > 0 else 0.0

    @property
    def us_per_epoch(self):
        return self.median_s * 1e6 / self.epochs


def summarize(rows, family):
    by = {}
    for r in rows:
        if r.family != family:
            continue
        key = (
            r.device,
            r.args.get("interval", 0),
            r.args.get("print100", 0),
            r.args.get("batch", 120),
            int(r.counters["epochs"]),
        )
        by.setdefault(key, []).append(r)
    out = []
    for (device, interval, print100, batch, epochs), rs in sorted(
        by.items(), key=lambda kv: _order(kv[0])
    ):
        s = np.array([r.seconds for r in rs])
        out.append(
            ConfigStats(
                device,
                interval,
                print100,
                batch,
                epochs,
                int(rs[0].counters["item_calls"]),
                int(rs[0].counters.get("records", 0)),
                len(rs),
                float(np.median(s)),
                float(s.min()),
                float(s.max()),
                tuple(float(x) for x in s),
                tuple(r.counters["final_loss"] for r in rs if "final_loss" in r.counters),
            )
        )
    return out


def _order(key):
    device, interval, print100, batch, epochs = key
    return ({"cpu": 0, "cuda": 1}.get(device, 2), -print100, batch, interval == 0, interval, epochs)


def zero_call_seconds(models, c):
    """The reference every ItemSync row is compared with: the device's fitted loop time at
    0 `.item()` calls for the row's epochs, as (seconds, variance of that estimate, dof), or
    None without a fit for the row's device and batch.

    Why not the never-logging row: it is one configuration's 3 repetitions, and one slow
    repetition moves it (on the 2-core VM the print100=0 one spread 36% and sat above every
    row it was the reference of). The fit at 0 calls is built from every repetition of every
    fitted configuration, so no one row's outliers move it much, and it is what the model
    says not logging costs."""
    m = next((m for m in models if m.device == c.device), None)
    if m is None or c.batch != FIT_BATCH:
        return None
    cols = {"fixed": [1.0], "per_epoch": [float(c.epochs)], "per_item": [0.0]}
    return float(m.fit.predict(cols)[0]), float(m.fit.predict_var(cols)[0]), m.fit.dof


def above_zero_calls(models, c):
    """(this row's mean - the fit at 0 calls, its 95% CI or None) in seconds, or None without
    a fit: the same statistic for the point and the interval (Welch-Satterthwaite over the
    row's repetitions and the fit's dof; the row is also one of the fit's rows, which makes
    the interval, if anything, conservative)."""
    ref = zero_call_seconds(models, c)
    if ref is None:
        return None
    s = np.asarray(c.samples, float)
    point = float(s.mean()) - ref[0]
    if len(s) < 2:
        return point, None
    return point, noise.difference_ci(
        ref[0], ref[1], ref[2], float(s.mean()), float(s.var(ddof=1)) / len(s), len(s) - 1
    )


@dataclass
class RunOrder:
    """Whether a fit's residuals follow the order its runs ran in (Spearman's rank correlation
    of residual against position): runs that drift together are not independent, and an
    interval that takes them to be is too narrow."""

    rho: float
    p: float
    n: int

    @property
    def correlated(self):
        return self.p < 0.05

    def text(self):
        return f"Spearman rho = {self.rho:+.2f}, p = {self.p:.2g}, {self.n} runs in run order"


def run_order(fit, rows):
    """RunOrder of `fit`'s residuals over `rows`, taken in the order they ran (the JSON's)."""
    cols = {
        "fixed": [1.0] * len(rows),
        "per_epoch": [r.counters["epochs"] for r in rows],
        "per_item": [r.counters["item_calls"] for r in rows],
    }
    resid = np.array([r.seconds for r in rows]) - fit.predict(cols)
    rho, p = spearmanr(np.arange(len(rows)), resid)
    return RunOrder(float(rho), float(p), len(rows))


def slow_period(rows, device):
    """(ItemSync batch-120 rows of `device` in run order, how many lead a slow period): the
    leading runs each over TIGHT_PCT slower per epoch than the median of the runs after them."""
    rs = [
        r
        for r in rows
        if r.family == "ItemSync" and r.device == device and r.args.get("batch") == FIT_BATCH
    ]
    us = [r.seconds * 1e6 / r.counters["epochs"] for r in rs]
    k = 0
    while k < len(us) - 2 and us[k] > (1 + noise.TIGHT_PCT / 100) * np.median(us[k + 1 :]):
        k += 1
    # the rest must be over the bound too, or the prefix is only a first outlier run
    while k and min(us[:k]) <= (1 + noise.TIGHT_PCT / 100) * np.median(us[k:]):
        k -= 1
    return rs, k


@dataclass
class DeviceModel:
    device: str
    fit: object  # analysis.fit.Fit over the fitted rows
    held_out: list  # (ConfigStats, predicted seconds)
    order: object = None  # RunOrder of the fit's residuals

    @property
    def has_ci(self):
        """An interval only over runs whose residuals do not follow their order."""
        return self.order is None or not self.order.correlated


def fit_devices(rows):
    """Per device, fits the loop model on ItemSync batch-120 rows except interval 500 and
    predicts the interval-500 rows."""
    models = []
    for device in sorted({r.device for r in rows if r.family == "ItemSync"}):
        rs = [
            r
            for r in rows
            if r.family == "ItemSync" and r.device == device and r.args.get("batch") == FIT_BATCH
        ]
        train = [r for r in rs if r.args.get("interval") != HELD_OUT_INTERVAL]
        if len({r.counters["item_calls"] for r in train}) < 2:
            continue
        try:
            fit = fit_loop_time(
                [r.counters["epochs"] for r in train],
                [r.counters["item_calls"] for r in train],
                [r.seconds for r in train],
            )
        except ValueError:  # too few rows for the model: the report shows the table without a fit
            continue
        held = [c for c in summarize(rs, "ItemSync") if c.interval == HELD_OUT_INTERVAL]
        preds = [
            (
                c,
                float(
                    fit.predict(
                        {"fixed": [1.0], "per_epoch": [c.epochs], "per_item": [c.item_calls]}
                    )[0]
                ),
            )
            for c in held
        ]
        models.append(DeviceModel(device, fit, preds, run_order(fit, train)))
    return models


@dataclass
class BatchPoint:
    device: str
    batch: int
    us_per_epoch_never: float  # median of the repetitions
    us_per_epoch_every: float  # median of the repetitions
    sync_cost_us: float  # extra time per .item() when logging every epoch: difference of the means
    sync_cost_ci: object = None  # 95% CI (us) of that same difference (Welch), None if n<2
    never_mean_us: float = float("nan")  # mean us/epoch never logging: the share's denominator
    n: int = 3  # the fewer repetitions of the two rows

    @property
    def sync_cost_pct(self):
        """The extra time per .item() as a share of a never-logging epoch (means), percent."""
        return 100.0 * self.sync_cost_us / self.never_mean_us

    @property
    def sync_cost_pct_ci(self):
        return (
            None
            if self.sync_cost_ci is None
            else tuple(100.0 * v / self.never_mean_us for v in self.sync_cost_ci)
        )


@dataclass
class BatchAnalysis:
    points: list
    fits: dict  # device -> Fit of c(B), held-out batch excluded
    held_out: list  # (device, batch, measured us, predicted us, measured us of every repetition)
    crossover: object  # smallest swept batch where cuda beats cpu (never logging), or None
    bracket: object = None  # Bracket: where the GPU starts to win, as far as the data says


@dataclass
class Bracket:
    """The GPU's never-logging epoch is faster than the CPU's from somewhere in (lo, hi]:
    lo the last batch where it is not (None: the smallest swept), hi the first from which it is
    at every larger batch and the CPU's curve does not fall after it."""

    lo: object
    hi: int
    backwards: list  # (batch, next batch, cpu us, cpu us) where the CPU's epoch falls
    n: int  # repetitions behind each point (the fewest)


def crossover_bracket(points, stats=()):
    """Bracket of the swept batches, or None when the GPU is not faster at the largest."""
    cpu = {p.batch: p.us_per_epoch_never for p in points if p.device == "cpu"}
    gpu = {p.batch: p.us_per_epoch_never for p in points if p.device == "cuda"}
    bs = sorted(set(cpu) & set(gpu))
    i = len(bs)
    while i > 0 and gpu[bs[i - 1]] < cpu[bs[i - 1]]:
        i -= 1
    if i == len(bs):
        return None
    lo = bs[i - 1] if i > 0 else None
    falls = [(a, b, cpu[a], cpu[b]) for a, b in itertools.pairwise(bs) if cpu[b] < cpu[a]]
    # a CPU point above a larger batch's cannot settle where the curves cross
    while i < len(bs) - 1 and any(a == bs[i] for a, *_ in falls):
        i += 1
    n = min((c.n for c in stats if c.interval == 0), default=0)
    return Bracket(lo, bs[i], [f for f in falls if lo is None or f[0] >= lo], n)


def batch_analysis(rows):
    stats = summarize(rows, "BatchSweep")
    points = []
    for c in stats:
        if c.interval != 0:
            continue
        every = next(
            (s for s in stats if s.device == c.device and s.batch == c.batch and s.interval == 1),
            None,
        )
        if every is None:
            continue
        calls = max(every.item_calls, 1)
        diff, ci = noise.mean_difference(c.samples, every.samples)
        ci = None if ci is None else (ci[0] * 1e6 / calls, ci[1] * 1e6 / calls)
        points.append(
            BatchPoint(
                c.device,
                c.batch,
                c.us_per_epoch,
                every.us_per_epoch,
                diff * 1e6 / calls,
                ci,
                float(np.mean(c.samples)) * 1e6 / c.epochs,
                min(c.n, every.n),
            )
        )
    fits, held = {}, []
    for device in sorted({p.device for p in points}):
        ps = [p for p in points if p.device == device]
        train = [p for p in ps if p.batch != HELD_OUT_BATCH]
        if len(train) < 3:
            continue
        fit = fit_batch_cost([p.batch for p in train], [p.us_per_epoch_never for p in train])
        fits[device] = fit
        for p in ps:
            if p.batch == HELD_OUT_BATCH:
                pred = float(fit.predict({"base_us": [1.0], "per_row_us": [p.batch]})[0])
                never = next(
                    c
                    for c in stats
                    if c.device == device and c.batch == p.batch and c.interval == 0
                )
                held.append(
                    (
                        device,
                        p.batch,
                        p.us_per_epoch_never,
                        pred,
                        tuple(t * 1e6 / never.epochs for t in never.samples),
                    )
                )
    crossover = None
    cpu = {p.batch: p for p in points if p.device == "cpu"}
    for p in sorted((p for p in points if p.device == "cuda"), key=lambda p: p.batch):
        if p.batch in cpu and p.us_per_epoch_never < cpu[p.batch].us_per_epoch_never:
            crossover = p.batch
            break
    return BatchAnalysis(points, fits, held, crossover, crossover_bracket(points, stats))


def article_checks():
    """What ARTICLE.md derives from the post's own numbers."""
    per_call = article.per_call_cost_from_gpu_runs()
    calls = [c for _, _, c in article.table_item_calls()]
    spread_calls = max(calls) - min(calls)
    table_spread = max(t for *_, t in article.TABLE) - min(t for *_, t in article.TABLE)
    gpu = next(r for r in article.RUNS if r.label == "GPU")
    return {
        "per_call_us": per_call * 1e6,
        "table_item_calls": article.table_item_calls(),
        "sync_spread_calls": spread_calls,
        "sync_spread_s": spread_calls * per_call,
        "table_spread_s": table_spread,
        "gpu_us_per_epoch": gpu.seconds / article.EPOCHS * 1e6,
        "cpu_us_per_epoch": next(r for r in article.RUNS if r.label == "CPU").seconds
        / article.EPOCHS
        * 1e6,
    }


PHASES = ("forward", "loss", "zero_grad", "backward", "step", "log")
GPU_FIELDS = (
    "attr_launches",
    "attr_launch_api_us",
    "attr_kernels",
    "attr_gpu_busy_us",
    "attr_blocked_us",
    "attr_idle_host_wait_us",
    "attr_idle_kernel_wait_us",
    "attr_idle_other_us",
    "attr_launch_delay_p50_us",
)


@dataclass
class AttributionRow:
    device: str
    interval: int
    print100: int
    n: int
    values: dict  # counter -> median over repetitions
    untraced_us: tuple = ()  # us per epoch of every timed (untraced) repetition
    traced_us: tuple = ()  # us per epoch of every traced pass

    @property
    def overhead(self):
        """median traced / median untraced us per epoch (what the table's caption says)."""
        if not self.untraced_us or not self.traced_us:
            return float("nan")
        return float(np.median(self.traced_us) / np.median(self.untraced_us))

    @property
    def overhead_ci(self):
        """95% CI of traced - untraced (us per epoch, means), None with fewer than 2 of each."""
        return noise.welch_ci(self.untraced_us, self.traced_us)


def attribution_rows(rows):
    """Median attribution counters per ItemSync configuration that had a traced pass."""
    by = {}
    for r in rows:
        if r.family == "ItemSync" and r.counters.get("attr_epochs", 0) > 0:
            by.setdefault(
                (r.device, r.args.get("interval", 0), r.args.get("print100", 0)), []
            ).append(r)
    out = []
    for (device, interval, print100), rs in sorted(
        by.items(), key=lambda kv: _order(kv[0] + (120, 0))
    ):
        keys = set.intersection(*(set(r.counters) for r in rs))
        values = {
            k: float(np.median([r.counters[k] for r in rs]))
            for k in keys
            if k.startswith(("phase_", "attr_", "trace"))
            or k in ("us_per_epoch", "item_us_per_call", "traced_us_per_epoch")
        }
        untraced = tuple(
            r.seconds * 1e6 / r.counters["epochs"] for r in rs if r.counters.get("epochs")
        )
        traced = tuple(
            r.counters["traced_us_per_epoch"] for r in rs if "traced_us_per_epoch" in r.counters
        )
        out.append(AttributionRow(device, interval, print100, len(rs), values, untraced, traced))
    return out


@dataclass
class Rung:
    device: str
    rung: str
    n: int
    us_per_epoch: float  # median
    speedup: float  # LibTorch eager (same device, this folder) / this, medians
    max_loss_error: float  # vs float64 reference, worst repetition (nan: not checked)
    max_weight_error: float
    final_loss: float
    host_syncs: float
    epochs: float = float("nan")  # epochs of each timed run (median over the repetitions)
    records: float = float("nan")  # losses kept in that run
    threads: float = float("nan")  # CPU threads (bench_json.Row.cpu_threads)
    samples_us: tuple = ()  # us per epoch of every repetition


LADDER_ORDER = (
    "python_eager",
    "torch_compile",
    "torch_compile_1thread",
    "libtorch_eager",
    "libtorch_eager_1thread",
    "libtorch_eager_allthreads",
    "device_log",
    "pinned_event",
    "cuda_graph",
    "fused_step_kernel",
    "persistent_kernel",
    "fused_cpu",
    "fused_cpu_allthreads",
)


def ladder(rows):
    """One Rung per (device, rung) of the Ladder rows. The speed-up is the ratio of this
    folder's medians; bench's own speedup_vs_eager counter (one untimed, cold eager run per
    device, dropped since) is never read."""
    by = {}
    for r in rows:
        if r.family == "Ladder":
            device, _, rung = r.variant.partition("-")
            by.setdefault((device, rung), []).append(r)
    med = {k: float(np.median([r.counters["us_per_epoch"] for r in rs])) for k, rs in by.items()}
    out = []
    for (device, rung), rs in by.items():
        base = med.get((device, "libtorch_eager"))
        worst = lambda key, rs=rs: max(
            (r.counters[key] for r in rs if key in r.counters), default=float("nan")
        )
        median = lambda key, rs=rs: float(
            np.median([r.counters.get(key, float("nan")) for r in rs])
        )
        out.append(
            Rung(
                device,
                rung,
                len(rs),
                med[(device, rung)],
                base / med[(device, rung)] if base else float("nan"),
                worst("max_loss_error"),
                worst("max_weight_error"),
                median("final_loss"),
                median("host_syncs"),
                median("epochs"),
                median("records"),
                float(np.median([r.cpu_threads for r in rs])) if device == "cpu" else float("nan"),
                tuple(r.counters["us_per_epoch"] for r in rs),
            )
        )
    rank = {n: i for i, n in enumerate(LADDER_ORDER)}
    return sorted(out, key=lambda x: ({"cpu": 0, "cuda": 1}.get(x.device, 2), rank.get(x.rung, 99)))


def suspect_rungs(rungs, rows):
    """{(device, rung): why} for the CUDA rungs whose figures their own run contradicts, to
    be marked until a run fixes them."""
    get = {(r.device, r.rung): r for r in rungs}
    out = {}
    py, lt = get.get(("cuda", "python_eager")), get.get(("cuda", "libtorch_eager"))
    py_c, lt_c = get.get(("cpu", "python_eager")), get.get(("cpu", "libtorch_eager"))
    if py and lt and py_c and lt_c:
        extra, extra_cpu = py.us_per_epoch - lt.us_per_epoch, py_c.us_per_epoch - lt_c.us_per_epoch
        if extra > 2 * extra_cpu:
            out[("cuda", "python_eager")] = (
                f"Python adds {extra:.0f} us an epoch over LibTorch on the GPU against "
                f"{extra_cpu:.0f} us on its CPU, for the same Python; the run timed these rows "
                "in the process that had just run a torch.profiler session for the kernel count "
                "(a likely reason: a profiler hook still installed)"
            )
    tc, graph = get.get(("cuda", "torch_compile")), get.get(("cuda", "cuda_graph"))
    if tc and lt and tc.us_per_epoch > lt.us_per_epoch:
        counted = any(
            "compile_mode" in r.counters for r in rows if r.variant == "cuda-torch_compile"
        )
        out[("cuda", "torch_compile")] = (
            "mode=reduce-overhead should replay one captured step"
            + (f", as cuda_graph does here in {graph.us_per_epoch:.0f} us" if graph else "")
            + ", yet it ran slower than LibTorch eager"
            + (
                ""
                if counted
                else "; this run recorded no compile counters (graph breaks, captures, "
                "replays) to say why"
            )
        )
    return out


def same_configuration_pairs(rungs):
    """CPU rungs that differ only in their thread setting but ran on as many threads as each
    other here (torch's default is every hardware thread on a machine like the 2-core VM):
    [(a, b)], one measurement of one configuration taken twice."""
    get = {r.rung: r for r in rungs if r.device == "cpu"}
    out = []
    for family in ("libtorch_eager", "torch_compile", "fused_cpu"):
        variants = [
            get[k] for k in (family, family + "_1thread", family + "_allthreads") if k in get
        ]
        for i, a in enumerate(variants):
            for b in variants[i + 1 :]:
                if a.threads == b.threads:
                    out.append((a, b))
    return out


def runs_behind(rungs, rung):
    """The repetitions a rung's speed-up rests on: the fewer of its own and its eager base's."""
    base = next((r for r in rungs if r.device == rung.device and r.rung == "libtorch_eager"), None)
    return min(rung.n, base.n) if base else rung.n


def ladder_targets(rungs):
    """The issue's targets, each (text, verdict or None when its rows are missing)."""
    get = {(r.device, r.rung): r for r in rungs}

    def speedup(device, rung):
        r = get.get((device, rung))
        return r.speedup if r else None

    def ratio(device, rung):
        return fmt_ratio(get[(device, rung)].speedup, runs_behind(rungs, get[(device, rung)]))

    out = []
    s = speedup("cpu", "fused_cpu")
    out.append(
        (
            "fused CPU >= 10x LibTorch CPU eager",
            None if s is None else (s >= 10, ratio("cpu", "fused_cpu")),
        )
    )
    s = speedup("cuda", "cuda_graph")
    out.append(
        (
            "CUDA graph >= 3x LibTorch CUDA eager",
            None if s is None else (s >= 3, ratio("cuda", "cuda_graph")),
        )
    )
    s = speedup("cuda", "persistent_kernel")
    out.append(
        (
            "persistent kernel >= 30x LibTorch CUDA eager",
            None if s is None else (s >= 30, ratio("cuda", "persistent_kernel")),
        )
    )
    p, f = get.get(("cuda", "persistent_kernel")), get.get(("cpu", "fused_cpu"))
    out.append(
        (
            "persistent kernel faster than the fused CPU loop",
            None
            if not (p and f)
            else (
                p.us_per_epoch < f.us_per_epoch,
                f"{p.us_per_epoch:.2f} vs {f.us_per_epoch:.2f} us/epoch",
            ),
        )
    )
    return out


PRIMITIVE_FAMILIES = ("KernelLaunch", "Sync", "Memcpy", "Dispatch")


def primitives(rows):
    """Median microseconds per operation of each primitive row, keyed by its name."""
    by = {}
    for r in rows:
        if r.family in PRIMITIVE_FAMILIES:
            by.setdefault(r.name, []).append(r)
    # us_per_op: the per-operation price (bench's manual time is the whole batch of ops);
    # results written before that counter existed timed one op per iteration.
    out = {}
    for k, rs in sorted(by.items()):
        us = [r.counters.get("us_per_op", r.seconds * 1e6) for r in rs]
        out[k] = {
            "us": float(np.median(us)),
            "samples": tuple(us),
            "n": len(us),
            "spread_pct": noise.spread_pct(us),
            "counters": {
                c: float(np.median([r.counters[c] for r in rs if c in r.counters]))
                for c in rs[0].counters
            },
        }
    return out


def predict_loop(prims, stats, models, attr=()):
    """Per device: the loop predicted from the primitives next to what ItemSync measured.
    per epoch ~ ATen ops per step x host cost of one tiny op (Dispatch/<d>-add);
    per .item() ~ Sync/item_idle (CUDA) or one tiny op (CPU)."""
    out = []
    for device in ("cpu", "cuda"):
        add, step = prims.get(f"Dispatch/{device}-add"), prims.get(f"Dispatch/{device}-train_step")
        if not add or not step or "aten_ops_per_step" not in step["counters"]:
            continue
        ops = step["counters"]["aten_ops_per_step"]
        never = next(
            (s for s in stats if s.device == device and s.interval == 0 and s.print100 == 0), None
        )
        item = prims.get("Sync/item_idle") if device == "cuda" else add
        model = next((m for m in models if m.device == device), None)
        traced = [
            a.values["item_us_per_call"]
            for a in attr
            if a.device == device and "item_us_per_call" in a.values
        ]
        never_us = [t * 1e6 / never.epochs for t in never.samples] if never else []
        out.append(
            {
                "device": device,
                "ops": ops,
                "op_us": add["us"],
                "predicted_epoch_us": ops * add["us"],
                "op_spread_pct": add.get("spread_pct", float("nan")),
                "op_n": add.get("n", 1),
                "predicted_epoch_range_us": tuple(
                    ops * u for u in add.get("samples", (add["us"],))
                ),
                "step_us": step["us"],
                "step_samples_us": step.get("samples", ()),
                "measured_epoch_us": never.us_per_epoch if never else float("nan"),
                "measured_epoch_samples_us": tuple(never_us),
                "fitted_item_ci_us": tuple(v * 1e6 for v in model.fit.interval("per_item"))
                if model
                else None,
                "predicted_item_us": item["us"] if item else float("nan"),
                "predicted_item_samples_us": tuple(item.get("samples", ())) if item else (),
                "fitted_item_us": model.fit.value("per_item") * 1e6 if model else float("nan"),
                "fit_has_ci": bool(model and model.has_ci),
                "traced_item_us": float(np.median(traced)) if traced else float("nan"),
                "traced_item_samples_us": tuple(traced),
                "kernels_per_step": step["counters"].get("kernels_per_step", float("nan")),
            }
        )
    return out


# Published prices of the CUDA primitives (the ranges commonly quoted: host launch on
# Linux, a sync on an idle stream before any wake-up, a CUDA graph node) beside what this
# machine measured: (primitive row, what it is, low us, high us).
PUBLISHED_PRICES = (
    ("KernelLaunch/host_launch", "host time of one kernel launch (Linux)", 2.5, 4.0),
    ("Sync/stream_idle", "cudaStreamSynchronize on an idle stream", 0.0, 1.0),
    ("KernelLaunch/graph_node", "one kernel node inside a replayed CUDA graph", 0.5, 1.3),
)


def published_comparison(prims):
    """(primitive, description, measured us, low, high, verdict) for each published price
    whose row exists; verdict is 'inside', 'below' or 'above' the published range."""
    out = []
    for key, what, low, high in PUBLISHED_PRICES:
        if key not in prims:
            continue
        us = prims[key]["us"]
        verdict = "below" if us < low else "above" if us > high else "inside"
        out.append((key, what, us, low, high, verdict))
    return out
