"""How every page writes a number: one formatter per kind of figure, so that a figure reads the
same on every page that prints it."""


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
