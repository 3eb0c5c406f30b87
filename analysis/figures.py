"""Saving a matplotlib figure: the one place every plot of the analysis is written from.

A figure is drawn through analysis.atomic_write, so an interrupted run never leaves a
half-written PNG where a finished one was. matplotlib's Agg backend is chosen here,
before pyplot loads, so that no plot ever needs a display.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from analysis.atomic_write import open_atomic


def save_figure(fig, path):
    """Writes fig to path atomically, closes it, and returns path."""
    with open_atomic(path, "wb") as f:
        fig.savefig(f, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path
