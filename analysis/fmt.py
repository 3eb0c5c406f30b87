"""How every page writes a number: one formatter per kind of figure, so that a figure reads the
same on every page that prints it."""

import math
import re


def fmt_us(v):
    """Microseconds: whole above 100, one decimal below; '-' for a figure that is missing."""
    return "-" if v is None else f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"


def fmt_share(x):
    """A share (0.004 -> '0.4%'); two significant digits when it rounds below 0.1%."""
    p = 100 * x
    return f"{p:.1f}%" if p >= 0.1 or p == 0 else f"{p:.2g}%"


def fmt_change(x, signed=True):
    """A relative change or error (0.0012 -> '+0.12%'); '-' for one that is missing."""
    return "-" if x is None else f"{100 * x:+.2f}%" if signed else f"{100 * x:.2f}%"


def fmt_fit_us(fit, name):
    """A fitted coefficient in seconds, written in us with its 95% CI."""
    lo, hi = fit.interval(name)
    return f"{fit.value(name) * 1e6:.2f} us [95% CI {lo * 1e6:.2f}, {hi * 1e6:.2f}]"


def fmt_bar_value(v):
    """A value written on a plot's bar: thousands separated above 100, 3 significant digits below."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def fmt_or(v, spec, missing="-"):
    """v in the format spec, or `missing` when v is NaN (a figure the run did not record)."""
    return missing if v != v else format(v, spec)  # noqa: PLR0124  NaN, whatever v's type


def plural(n, word):
    return f"{n} {word}{'s' if n != 1 else ''}"


def fmt_sig(x, digits=2):
    """x to `digits` significant digits, never in exponent form (220.04 -> '220', 10.9 -> '11',
    0.583 -> '0.58'): for a figure whose spread does not support more."""
    if x != x or x == 0:  # noqa: PLR0124  NaN
        return f"{x}" if x != x else "0"  # noqa: PLR0124
    d = digits - 1 - math.floor(math.log10(abs(x)))
    return f"{round(x, d):.{max(d, 0)}f}"


def fmt_ci(v, lo, hi):
    """'v [lo, hi]' with the digits the interval supports: its half-width to two significant
    digits (77.546 [55.479, 99.612] -> '78 [55, 100]')."""
    half = (hi - lo) / 2
    if not (half > 0 and math.isfinite(half)):
        return f"{v:g} [{lo:g}, {hi:g}]"
    d = max(0, 1 - math.floor(math.log10(half)))
    return f"{v:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]"


def fmt_ratio(x, n):
    """A ratio such as a speed-up, 'x' appended: two significant digits (one run, or a few on a
    shared machine whose runs move +-20 %, supports no more); one decimal below 10x over 3 or
    more repetitions."""
    if x != x:  # noqa: PLR0124  NaN
        return "-"
    return f"{x:.1f}x" if n >= 3 and abs(x) < 10 else f"{fmt_sig(x)}x"


def fmt_runs(values, spec=".3f", unit=""):
    """A measured figure with its repetitions: 'median (min-max, n=3)', or 'value (one run)'
    for a single run, which has no spread to show."""
    v = sorted(values)
    med = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
    if len(v) == 1:
        return f"{v[0]:{spec}}{unit} (one run)"
    return f"{med:{spec}}{unit} ({v[0]:{spec}}-{v[-1]:{spec}}, n={len(v)})"


_ONE_RUN_RANGE = re.compile(r"(-?[\d.]+) \((-?[\d.]+)-(-?[\d.]+), n=1\)")


def one_run_ranges(line):
    """A line with every 'x (x-x, n=1)' written 'x (one run)': for the sections other modules
    write, whose one-run rows would otherwise show a range of one value."""
    return _ONE_RUN_RANGE.sub(lambda m: f"{m.group(1)} (one run)", line)
