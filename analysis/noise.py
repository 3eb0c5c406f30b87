"""The report's words for "is this real?", one meaning each.

*within noise* means one thing everywhere: the 95% confidence interval of a figure holds 0.
The figure is an effect: a difference between two measured things (a row minus the report's
reference, traced minus untraced, logging every epoch minus never, run B minus run A) or a
cost fitted as a slope. A difference's interval is Welch's t interval (no equal-variance
assumption; honest with 2-3 repetitions, where it is simply wide), and the point shown beside
it is the same statistic, the difference of the means, never a difference of medians.

A prediction set beside a measurement is not "within noise" or not; it gets one of three
verdicts (prediction_verdict), each with its reason in its text:

- *agrees*: the prediction's range [from the repetitions it was built on] and the
  measurement's range [its repetitions, or its 95% CI] meet, and both are narrower than
  TIGHT_PCT of their centre, so the agreement tests something;
- *inconclusive*: they meet only because one of them is wide (spread over TIGHT_PCT, or a
  measured CI that holds 0, against which no % error means anything); the text says which;
- *off by x%*: they do not meet; x is the prediction's error against the measurement.

Two figures of different kinds get no verdict at all (kinds_verdict): a `.item()` on an idle GPU
against one in the loop, which also waits out the queue, or a traced figure against an untraced
one (tracing slows each launch), differ by what they measure before any noise.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

# A range wider than this share of its centre cannot test a prediction to this precision:
# the report's predictions aim at 10%, so a 49%-spread primitive, or repetitions that spread
# 29%, make a verdict inconclusive rather than an agreement.
TIGHT_PCT = 10.0


def difference_ci(mean_a, var_a, dof_a, mean_b, var_b, dof_b, level=0.95):
    """(low, high) of mean_b - mean_a, from two independent estimates with their variances
    (of the estimate, not of the samples) and degrees of freedom: Welch-Satterthwaite."""
    diff = mean_b - mean_a
    se = math.sqrt(var_a + var_b)
    if se == 0:
        return (diff, diff)
    dof = (var_a + var_b) ** 2 / ((var_a**2) / dof_a + (var_b**2) / dof_b)
    t = stats.t.ppf(0.5 + level / 2, dof)
    return (diff - t * se, diff + t * se)


def welch_ci(a, b, level=0.95):
    """(low, high) of mean(b) - mean(a), Welch's t interval; None when either side has
    fewer than 2 repetitions (no spread, so no interval)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or len(b) < 2:
        return None
    return difference_ci(
        a.mean(),
        a.var(ddof=1) / len(a),
        len(a) - 1,
        b.mean(),
        b.var(ddof=1) / len(b),
        len(b) - 1,
        level,
    )


def mean_difference(a, b):
    """(mean(b) - mean(a), its Welch 95% CI or None): the point and the interval of one
    statistic, so that the point always lies inside its interval."""
    return float(np.mean(b) - np.mean(a)), welch_ci(a, b)


def within_noise(ci):
    """The one rule: True when the 95% CI holds 0, None when there is no interval."""
    if ci is None:
        return None
    return ci[0] <= 0 <= ci[1]


def beyond_noise(ci):
    """True when the 95% CI excludes 0 (the figure is real), None without an interval."""
    w = within_noise(ci)
    return None if w is None else not w


def mark(ci, scale=1.0, fmt="+.1f", unit=""):
    """Text for a difference's interval: '[95% CI lo, hi]' plus 'within noise' when it holds
    0, or 'n<2: noise unknown' without one. `scale` converts the interval's unit."""
    if ci is None:
        return "(n<2: noise unknown)"
    lo, hi = ci[0] * scale, ci[1] * scale
    text = f"[95% CI {lo:{fmt}}, {hi:{fmt}}{unit}]"
    return text + (" within noise" if within_noise(ci) else "")


FEW_REPS = 3  # fewer back-to-back repetitions than this carry an interval but no verdict


def mark_reps(ci, n, scale=1.0, fmt="+.1f", unit=""):
    """mark() for a difference of rows whose repetitions ran back to back: with fewer than
    FEW_REPS of them the interval is shown but judges nothing (it takes them as independent,
    and two such repetitions can give an interval that excludes 0 in an impossible direction)."""
    if ci is None or n >= FEW_REPS:
        return mark(ci, scale, fmt, unit)
    lo, hi = ci[0] * scale, ci[1] * scale
    return f"[95% CI {lo:{fmt}}, {hi:{fmt}}{unit}] (n={n} back to back: no verdict)"


def spread_pct(values):
    """(max - min) / median, percent: the spread the tables quote for repetitions."""
    v = np.asarray(values, float)
    med = float(np.median(v))
    return 100.0 * (v.max() - v.min()) / med if med > 0 else 0.0


@dataclass
class Verdict:
    text: str  # what the table shows: the verdict, the error, the reason
    kind: str  # "agrees", "inconclusive", "off" or "unknown" (n<2)
    err_pct: float  # prediction vs measurement, percent of the measurement; nan when meaningless

    @property
    def agrees(self):
        return self.kind == "agrees"


def _width_pct(rng, centre):
    return 100.0 * (max(rng) - min(rng)) / abs(centre) if centre else float("inf")


def prediction_verdict(
    pred, pred_range, measured, measured_range, measured_what="the measured range"
):
    """A prediction against a measurement, as the module's docstring defines the verdicts.

    pred_range: (low, high) of the prediction from the repetitions it was built on, or None
    for an exact figure; measured_range: the measurement's repetitions' (min, max) or its
    95% CI, None with fewer than 2 repetitions. measured_what names that range in the text."""
    pr = tuple(pred_range) if pred_range else (pred, pred)
    if not measured_range or any(v != v for v in (*pr, *measured_range)):  # noqa: PLR0124  NaN
        err = 100.0 * (pred - measured) / measured if measured else float("nan")
        return Verdict(f"{err:+.1f}% (one run: no verdict)", "unknown", err)
    lo, hi = min(measured_range), max(measured_range)
    tol = 1e-9 * max(abs(pred), abs(measured))  # exact agreement must not fail on rounding
    meet = min(pr) <= hi + tol and lo <= max(pr) + tol
    if lo <= 0 <= hi:
        # A measurement within noise of 0: a % error against it (a divisor that may be
        # negative, or nearly 0) says nothing, so none is computed.
        where = f"{measured_what} [{lo:.3g}, {hi:.3g}] holds 0"
        if meet:
            return Verdict(
                f"inconclusive ({where}: it can neither confirm nor refute {pred:.3g})",
                "inconclusive",
                float("nan"),
            )
        return Verdict(f"off (outside {where})", "off", float("nan"))
    err = 100.0 * (pred - measured) / measured
    if not meet:
        return Verdict(f"off by {err:+.1f}% (the ranges do not meet)", "off", err)
    wide = []
    pw = _width_pct(pr, pred)
    if pw > TIGHT_PCT:
        wide.append(f"the prediction's own spread is {pw:.0f}%")
    mw = _width_pct((lo, hi), measured)
    if mw > TIGHT_PCT:
        wide.append(f"{measured_what} spans {mw:.0f}%")
    if wide:
        return Verdict(
            f"inconclusive ({err:+.1f}%; the ranges meet, but "
            + " and ".join(wide)
            + f", over {TIGHT_PCT:g}%)",
            "inconclusive",
            err,
        )
    return Verdict(
        f"agrees ({err:+.1f}%; the ranges meet, both narrower than {TIGHT_PCT:g}%)", "agrees", err
    )


@dataclass(frozen=True)
class Kind:
    """What a figure measured: `where` is "idle" (alone, nothing queued), "in-loop" or None
    (no queue to tell them apart: a CPU figure); `traced` whether a tracer ran meanwhile."""

    where: object = None
    traced: bool = False

    def words(self):
        return " ".join(w for w in (self.where, "traced" if self.traced else "untraced") if w)


def kinds_verdict(pred_kind, measured_kind):
    """None when the two figures are of one kind, else the Verdict that compares nothing."""
    differ = []
    if pred_kind.where and measured_kind.where and pred_kind.where != measured_kind.where:
        differ.append(f"{pred_kind.where} against {measured_kind.where}")
    if pred_kind.traced != measured_kind.traced:
        differ.append(
            "untraced against traced" if measured_kind.traced else "traced against untraced"
        )
    if not differ:
        return None
    return Verdict(
        "not compared (figures of different kinds: " + "; ".join(differ) + ")",
        "kinds",
        float("nan"),
    )
