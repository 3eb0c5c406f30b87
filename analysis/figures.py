"""Saving a matplotlib figure: the one place every plot of the analysis is written from.

A figure is drawn to a temporary name and renamed over its path, so an interrupted run never
leaves a half-written PNG where a finished one was. matplotlib's Agg backend is chosen here,
before pyplot loads, so that no plot ever needs a display.
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save_figure(fig, path):
    """Writes fig to path atomically, closes it, and returns path."""
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)
    return path
