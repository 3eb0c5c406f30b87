"""When is a difference between repetitions real? One rule for the whole report.

Every figure the report derives from a difference of two measured configurations (a row
minus the never-logging row, traced minus untraced, logging every epoch minus never, run
A minus run B) gets a 95% confidence interval from the repetitions (Welch's t interval of
the difference of the means: no equal-variance assumption, honest with 2-3 repetitions,
where it is simply wide). A difference whose interval contains 0 is "within noise" and the
report says so where the figure stands.
"""
import math

import numpy as np
from scipy import stats


def welch_ci(a, b, level=0.95):
    """(low, high) of mean(b) - mean(a), Welch's t interval; None when either side has
    fewer than 2 repetitions (no spread, so no interval)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    diff = b.mean() - a.mean()
    se = math.sqrt(va + vb)
    if se == 0:
        return (diff, diff)
    dof = (va + vb) ** 2 / ((va ** 2) / (len(a) - 1) + (vb ** 2) / (len(b) - 1))
    t = stats.t.ppf(0.5 + level / 2, dof)
    return (diff - t * se, diff + t * se)


def beyond_noise(ci):
    """True/False, or None when there is no interval."""
    if ci is None:
        return None
    return not (ci[0] <= 0 <= ci[1])


def mark(ci, scale=1.0, fmt="+.1f", unit=""):
    """Text for a difference's interval: '[lo, hi]' plus 'within noise' when it holds 0,
    or 'n<2: noise unknown' without one. `scale` converts the interval's unit."""
    if ci is None:
        return "(n<2: noise unknown)"
    lo, hi = ci[0] * scale, ci[1] * scale
    text = f"[95% CI {lo:{fmt}}, {hi:{fmt}}{unit}]"
    return text + (" within noise" if not beyond_noise(ci) else "")


def spread_pct(values):
    """(max - min) / median, percent: the spread the tables quote for repetitions."""
    v = np.asarray(values, float)
    med = float(np.median(v))
    return 100.0 * (v.max() - v.min()) / med if med > 0 else 0.0


def verdict(predicted, measured_samples):
    """A prediction against repetitions: 'within noise' when it lies inside their range,
    else 'off by +x%' (relative to the median). Returns (text, error %, inside)."""
    m = np.asarray(measured_samples, float)
    if len(m) < 2:
        return verdict_against(predicted, float(m[0]), None, None)
    return verdict_against(predicted, float(np.median(m)), float(m.min()), float(m.max()))


def verdict_against(predicted, measured, lo, hi, what="the repetitions' range"):
    """The same verdict against an explicit interval [lo, hi] (None: no interval, n<2).
    The error is always stated, so a reader sees how far off either way."""
    err = 100.0 * (predicted - measured) / measured if measured else float("inf")
    if lo is None:
        return f"{err:+.1f}% (n<2: noise unknown)", err, False
    inside = lo <= predicted <= hi
    return (f"within noise ({err:+.1f}%, inside {what})" if inside else f"off by {err:+.1f}%"), err, inside
