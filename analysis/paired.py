"""The Paired rows (benchmarks/paired.cpp): the fitted quantities from short runs of the
configurations they compare, back to back in rounds, and the verdicts they allow.

Each row holds, per configuration k, the 20 % trimmed mean of its per-epoch time over the rounds
with Yuen's 95 % interval (c{k}_us_per_epoch, c{k}_lo, c{k}_hi), and per pair a < b the same for
the per-round difference b - a (d{a}_{b}_us, _lo, _hi): a paired interval, in which the machine's
drift, common to both runs of a round, cancels. docs/experiment.md, "Measurements that
conclude", says why and how they stop.
"""

from dataclasses import dataclass, field

from analysis import noise


@dataclass
class Config:
    interval: int
    print100: int
    batch: int
    calls_per_epoch: float
    us: float  # per epoch, trimmed mean over the rounds
    lo: float
    hi: float


@dataclass
class PairedRow:
    device: str
    group: str  # item, replay, held_out, batch
    configs: list
    diffs: dict  # (a, b) -> (mean, lo, hi) of b - a, us per epoch
    rounds: int
    target_met: bool
    elapsed_s: float
    disturbed: bool
    probe_ratio: float
    steal_share: float
    load: tuple  # 1-minute load before, after
    rel_target: float
    diff_target_us: float
    extra: dict = field(default_factory=dict)

    def diff(self, a, b):
        """b - a, us per epoch: (mean, lo, hi)."""
        if (a, b) in self.diffs:
            return self.diffs[(a, b)]
        m, lo, hi = self.diffs[(b, a)]
        return (-m, -hi, -lo)


def rows_of(rows):
    """Every Paired row of a folder's bench rows, as PairedRow."""
    out = []
    for r in rows:
        if r.family != "Paired" or "configs" not in r.counters:
            continue
        c = r.counters
        device, _, group = r.variant.partition("-")
        k = int(c["configs"])
        configs = [
            Config(
                int(c[f"c{i}_interval"]),
                int(c[f"c{i}_print100"]),
                int(c[f"c{i}_batch"]),
                c[f"c{i}_item_calls_per_epoch"],
                c[f"c{i}_us_per_epoch"],
                c[f"c{i}_lo"],
                c[f"c{i}_hi"],
            )
            for i in range(k)
        ]
        diffs = {
            (a, b): (c[f"d{a}_{b}_us"], c[f"d{a}_{b}_lo"], c[f"d{a}_{b}_hi"])
            for a in range(k)
            for b in range(a + 1, k)
        }
        out.append(
            PairedRow(
                device,
                group,
                configs,
                diffs,
                int(c["rounds"]),
                bool(c["target_met"]),
                c["elapsed_s"],
                bool(c.get("disturbed", 0)),
                c.get("probe_ratio", float("nan")),
                c.get("steal_share", float("nan")),
                (c.get("load1_before", -1), c.get("load1_after", -1)),
                c.get("rel_target", 0),
                c.get("diff_target_us", 0),
            )
        )
    return out


def find(paired, device, group):
    return next((p for p in paired if p.device == device and p.group == group), None)


@dataclass
class Quantity:
    value: float
    lo: float
    hi: float

    def text(self, fmt=".2f"):
        return f"{self.value:{fmt}} us [95% CI {self.lo:{fmt}}, {self.hi:{fmt}}]"

    def half_width(self):
        return (self.hi - self.lo) / 2


def per_item(p):
    """The cost of one .item(): (every-epoch row - never row) / the calls between them."""
    calls = p.configs[0].calls_per_epoch - p.configs[1].calls_per_epoch
    m, lo, hi = p.diff(1, 0)
    return Quantity(m / calls, lo / calls, hi / calls)


def per_epoch(p):
    """An epoch's cost without logging: the never row of Paired/item."""
    c = p.configs[1]
    return Quantity(c.us, c.lo, c.hi)


def held_out_interval(p, s):
    """The held-out interval's row (config 0) predicted from the never row run beside it
    (config 1) and the per-.item() cost s: (predicted, predicted range, measured Config)."""
    a, b = p.configs
    dcalls = a.calls_per_epoch - b.calls_per_epoch
    pred = b.us + s.value * dcalls
    return pred, (b.lo + s.lo * dcalls, b.hi + s.hi * dcalls), a


def held_out_batch(p, batch):
    """The held-out batch's epoch predicted by the straight line through its neighbours run
    beside it (an epoch's cost affine in the rows): (predicted, range, measured Config)."""
    by = {c.batch: c for c in p.configs}
    lower = max((b for b in by if b < batch), default=None)
    upper = min((b for b in by if b > batch), default=None)
    if batch not in by or lower is None or upper is None:
        return None
    w = (batch - lower) / (upper - lower)
    lo_c, up_c = by[lower], by[upper]
    pred = lo_c.us + w * (up_c.us - lo_c.us)
    rng = (lo_c.lo + w * (up_c.lo - lo_c.lo), lo_c.hi + w * (up_c.hi - lo_c.hi))
    return pred, rng, by[batch]


def concluded_held_out(paired):
    """{(device, "interval", interval, print100) or (device, "batch", batch, None)}: the
    held-out configurations the paired rows give a verdict on."""
    out = set()
    for p in paired:
        if p.group == "held_out" and find(paired, p.device, "item"):
            out.add((p.device, "interval", p.configs[0].interval, p.configs[0].print100))
        if p.group == "batch":
            out |= {(p.device, "batch", c.batch, None) for c in p.configs}
    return out


def verdict(pred, pred_range, measured):
    """noise.prediction_verdict on a configuration's per-epoch time and its interval."""
    return noise.prediction_verdict(
        pred, pred_range, measured.us, (measured.lo, measured.hi), "the paired 95% CI"
    )
