"""The article's numbers (../shared/ARTICLE.md), as data, and what follows from them.

Every figure here is copied from the post; `item_calls` follows the reading of its code in
ARTICLE.md (the every-100 print, one .item() each, stayed in every run).
"""

import math
from dataclasses import dataclass

EPOCHS = 20000


@dataclass(frozen=True)
class ArticleRun:
    label: str
    device: str  # where it really ran ("no recording" ran on the CPU: no .to(device))
    interval: int  # our ItemSync interval: 1 = append every epoch, k = record every k, 0 = never
    print100: int
    seconds: float
    item_calls: int
    note: str = ""
    other_seconds: tuple = ()  # the same run's time as another of the post's texts gives it: (seconds, where)


RUNS = [
    ArticleRun(
        "CPU", "cpu", 1, 1, 2.93, 20200, "2.90 s in the summary post", ((2.90, "the summary post"),)
    ),
    ArticleRun("GPU", "cuda", 1, 1, 11.29, 20200),
    ArticleRun(
        "no recording",
        "cpu",
        0,
        1,
        2.86,
        200,
        "labelled GPU, but its code never moved anything to the GPU",
    ),
    ArticleRun("GPU, record every 200", "cuda", 200, 1, 10.38, 400),
]

# The loss its CPU run printed: (epoch, loss). The post set no seed, so a run from other
# initial weights prints other values; the last one is what a converged run is compared with.
CPU_RUN_LOSSES = [(100, 1.1143), (1000, 0.6736), (5000, 0.1755), (10000, 0.0913), (20000, 0.0633)]

# The post's table: 'remaining time' = total - 3 s, it says; the values look like totals.
TABLE = [  # (interval, records, remaining seconds as printed)
    (100, 200, 10.43),
    (200, 100, 10.02),
    (1000, 20, 10.12),
    (2000, 10, 9.74),
]


def item_calls(interval, print100, epochs=EPOCHS):
    """The .item() count of the article's loop; the same formula as train::LoggingPolicy."""
    records = epochs // interval if interval > 0 else 0
    return records * (2 if interval >= 2 else 1) + (epochs // 100 if print100 else 0)


def per_call_cost_from_gpu_runs():
    """Seconds per .item() implied by the post's two GPU runs (ARTICLE.md: about 46 us)."""
    gpu = next(r for r in RUNS if r.label == "GPU")
    every200 = next(r for r in RUNS if r.label == "GPU, record every 200")
    return (gpu.seconds - every200.seconds) / (gpu.item_calls - every200.item_calls)


def per_call_uncertainty():
    """(s per .item(), its rough uncertainty, the two runs' difference in s, the table's spread
    in s): s is a difference of two single runs, and the post's own table of one loop spreads
    about as much as that difference, so that spread over the calls bounds what s can claim."""
    gpu = next(r for r in RUNS if r.label == "GPU")
    every200 = next(r for r in RUNS if r.label == "GPU, record every 200")
    seconds = [t for _, _, t in TABLE]
    spread = max(seconds) - min(seconds)
    calls = gpu.item_calls - every200.item_calls
    return per_call_cost_from_gpu_runs(), spread / calls, gpu.seconds - every200.seconds, spread


def per_call_rounded_us():
    """The post's per-call cost in us, rounded to the first digit of its uncertainty."""
    s, unc, _, _ = per_call_uncertainty()
    step = 10 ** math.floor(math.log10(unc))
    return round(s / step) * step * 1e6


def per_call_words():
    """The post's per-call cost in words its evidence supports: rounded to its uncertainty."""
    _, _, diff, spread = per_call_uncertainty()
    return (
        f"roughly {per_call_rounded_us():.0f} us, uncertain by about as much (two single "
        f"runs {diff:.2f} s apart; the post's own table spreads {spread:.2f} s)"
    )


def gpu_model():
    """c (s per epoch) and s (s per .item()) solved from the post's two GPU runs."""
    s = per_call_cost_from_gpu_runs()
    gpu = next(r for r in RUNS if r.label == "GPU")
    return (gpu.seconds - gpu.item_calls * s) / EPOCHS, s


def table_item_calls():
    """(interval, records, item calls) for the table's rows: the every-100 print kept."""
    return [(k, n, item_calls(k, 1)) for k, n, _ in TABLE]
