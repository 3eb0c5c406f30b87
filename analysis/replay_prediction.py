"""The replay checked on real pairs, for the main report: the ItemSync rows
differ only in how often they log, and each has a traced pass. experiments/replay_validation.sh
replays the traced pass of the row that logs every epoch with the `log` phase kept every 100 or
1000 epochs, or never (`./attribute --what-if log-every=1,100,1000,never:op=log`), into
RESULTS/replay/validation-<device>.json; this module puts those predictions beside the measured
rows.

Prediction of a row: the measured every-epoch row minus the replay's saving per epoch times the
epochs. Why the saving and not the traced epoch itself: the traced pass runs 5 epochs under the
tracer, the timed rows 20000 untraced; what the replay predicts is what logging less often
removes, which the timed row then loses.
"""

import json
import math
import os

from analysis import noise
from analysis.bench_json import BenchJsonError
from experiments import sweeps

# The rows predicted from the every-epoch trace (0 = never): experiments/sweeps.toml's.
INTERVALS = tuple(sweeps.load()["paired"]["replay_intervals"])


class ValidationError(BenchJsonError):
    """Bad input: the message names the file and the field (analysis.report exits 2 on it)."""


def _load(path):
    """(per-epoch replayed us, {every: predicted us per epoch}) from one validation file."""
    try:
        with open(path) as f:
            doc = json.load(f)
        curve = doc["replays"][0]["log_every"][0]
        points = {
            0 if p["every"] == "never" else int(p["every"]): float(p["predicted_us"])
            for p in curve["points"]
        }
        replayed = float(curve["replayed_us"])
        windows = len(doc["replays"][0]["replay"]["windows"])
    except OSError as e:
        raise ValidationError(f"{path}: cannot read: {e.strerror}") from e
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise ValidationError(
            f"{path}: expected `./attribute --what-if log-every=...:op=log --json` output "
            f"(replays[0].log_every[0] with its points): {type(e).__name__} {e}"
        ) from e
    if not all(math.isfinite(v) for v in list(points.values()) + [replayed]):
        raise ValidationError(f"{path}: a predicted time is not a finite number")
    return replayed, points, windows, curve


def _row(stats, device, interval):
    return next(
        (
            s
            for s in stats
            if s.device == device and s.interval == interval and s.print100 == 0 and s.batch == 120
        ),
        None,
    )


def device_lines(stats, device, path):
    """One device's table: each interval's measured row beside the replay's prediction."""
    lines = []
    replayed, points, windows, curve = _load(path)
    base = _row(stats, device, 1)
    if base is None:
        lines += [
            f"- {device}: no measured every-epoch row (interval 1, print100 0, batch 120) to start from.",
            "",
        ]
        return lines
    lines += [
        f"**{device}**: {windows} traced epochs, {replayed:.2f} us per epoch replayed (the timed row: "
        f"{base.us_per_epoch:.2f} us, untraced). From the traced pass"
        + (
            f" ({100 * (replayed / base.us_per_epoch - 1):+.0f}% against untraced, so a kept `log` "
            "untraced likely costs less than it says)"
            if replayed > 1.1 * base.us_per_epoch
            else ""
        )
        + f": {curve['why']}",
        "",
        "| interval | measured s (median, range, n) | measured minus every epoch (difference of means), s [95% CI] | "
        "predicted s | predicted saving per epoch, us | verdict |",
        "|---|---|---|---|---|---|",
    ]
    widest, largest = (
        0.0,
        0.0,
    )  # the measured rows' widest range, the largest predicted difference
    for interval in INTERVALS:
        c = _row(stats, device, interval)
        if interval not in points:
            continue
        largest = max(largest, base.epochs * (replayed - points[interval]) / 1e6)
        if c is not None:
            widest = max(widest, c.max_s - c.min_s, base.max_s - base.min_s)
        saving_us = replayed - points[interval]
        predicted = base.median_s - base.epochs * saving_us / 1e6
        label = "never" if interval == 0 else str(interval)
        if c is None:
            lines.append(f"| {label} | not measured | - | {predicted:.3f} | {saving_us:.3f} | - |")
            continue
        diff, ci = noise.mean_difference(base.samples, c.samples)
        shift = base.epochs * saving_us / 1e6
        text = noise.prediction_verdict(
            predicted,
            (base.min_s - shift, base.max_s - shift),
            c.median_s,
            (c.min_s, c.max_s) if c.n >= 2 else None,
            "the repetitions' range",
        ).text
        lines.append(
            f"| {label} | {c.median_s:.3f} ({c.min_s:.3f}-{c.max_s:.3f}, n={c.n}) | {diff:+.3f} "
            f"{noise.mark(ci, fmt='+.3f')} | {predicted:.3f} | "
            f"{saving_us:.3f} | {text} |"
        )
    lines.append("")
    if widest > 0 and largest < 0.5 * widest:
        lines += [
            f"The replay predicts differences of at most {largest * 1e3:.1f} ms between these rows; the measured "
            f"repetitions of one row spread over up to {widest * 1e3:.0f} ms "
            f"({widest / max(largest, 1e-9):.0f}x that). On this machine the check cannot tell a right "
            "prediction from a wrong one: it can only fail to refute it. A verdict that counts needs rows "
            "measured on a quiet machine, or a GPU run, where a sync costs far more.",
            "",
        ]
    return lines


def section(folder, stats):
    """Markdown lines for the main report; a device without a validation file is named as pending."""
    lines = [
        "## Replay checked on real pairs: predicting the rows that log less often",
        "",
        "`./attribute --what-if` replays the traced pass of the row that logs every epoch (print100 0, batch 120) "
        "with its `log` phase (the `.item()` and the append) kept every 100 or 1000 epochs, or never "
        "(`experiments/replay_validation.sh`; docs/what-if.md). Predicted row = the measured every-epoch row minus "
        "the replay's saving per epoch x epochs, its range that row's repetitions' range so shifted; the verdict "
        "(agrees, inconclusive or off, as everywhere in this report) sets it against the measured repetitions' "
        "range.",
        "",
    ]
    devices = sorted({s.device for s in stats})
    any_file = False
    for device in devices:
        path = os.path.join(folder, "replay", f"validation-{device}.json")
        if not os.path.exists(path):
            lines += [
                f"- {device}: not replayed yet (run `experiments/replay_validation.sh results/{os.path.basename(os.path.normpath(folder))}`).",
                "",
            ]
            continue
        any_file = True
        lines += device_lines(stats, device, path)
    if not any_file and not devices:
        lines += ["No ItemSync rows in this folder.", ""]
    return lines
