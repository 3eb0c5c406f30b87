"""The report's paired section (analysis.paired, analysis.paired_report) on synthetic Paired rows
with known answers: the per-.item() and per-epoch estimates beside the whole-run fit, and a
verdict for each held-out configuration and replay point."""

import json

from analysis import paired, report
from analysis.tests.synthetic import CONTEXT, item_sync_doc, write


def paired_row(group, configs, diffs, rounds=100, met=True, disturbed=0, device="cpu"):
    """A Paired bench row; configs: (interval, print100, batch, calls/epoch, us, half-width);
    diffs: {(a, b): (mean, half-width)} of b - a."""
    c = {
        "configs": len(configs),
        "rounds": rounds,
        "target_met": int(met),
        "elapsed_s": 12.0,
        "epochs_per_run": 200,
        "rel_target": 0.01,
        "diff_target_us": 1.0,
        "disturbed": disturbed,
        "probe_ratio": 1.1,
        "steal_share": 0.0,
        "load1_before": 0.5,
        "load1_after": 0.6,
    }
    for k, (i, p, b, calls, us, h) in enumerate(configs):
        c |= {
            f"c{k}_interval": i,
            f"c{k}_print100": p,
            f"c{k}_batch": b,
            f"c{k}_item_calls_per_epoch": calls,
            f"c{k}_us_per_epoch": us,
            f"c{k}_lo": us - h,
            f"c{k}_hi": us + h,
        }
    for (a, b), (m, h) in diffs.items():
        c |= {f"d{a}_{b}_us": m, f"d{a}_{b}_lo": m - h, f"d{a}_{b}_hi": m + h}
    name = f"Paired/{device}-{group}"
    return {
        "name": name + "/iterations:1/manual_time",
        "run_name": name,
        "run_type": "iteration",
        "repetitions": 1,
        "repetition_index": 0,
        "threads": 1,
        "iterations": 1,
        "real_time": 1e3,
        "cpu_time": 1e3,
        "time_unit": "ms",
        **{k: float(v) for k, v in c.items()},
    }


def doc(*rows):
    return {"context": dict(CONTEXT), "benchmarks": list(rows)}


ITEM = paired_row(
    "item", [(1, 0, 120, 1.0, 102.0, 0.8), (0, 0, 120, 0.0, 100.0, 0.8)], {(0, 1): (-2.0, 0.5)}
)


def test_the_per_item_and_per_epoch_estimates(tmp_path):
    (p,) = paired.rows_of(report.bench_json.load(write(tmp_path / "p.json", doc(ITEM))).rows)
    s, c = paired.per_item(p), paired.per_epoch(p)
    assert (s.value, s.lo, s.hi) == (2.0, 1.5, 2.5)  # every-epoch minus never, per call
    assert (c.value, c.lo, c.hi) == (100.0, 99.2, 100.8)


def test_held_out_interval_and_batch_get_a_verdict(tmp_path):
    # The held-out row 0.004 calls an epoch above the never row beside it: predicted 100.008.
    held = paired_row(
        "held_out",
        [(500, 1, 120, 0.014, 100.1, 0.9), (0, 1, 120, 0.010, 100.0, 0.9)],
        {(0, 1): (-0.1, 0.4)},
    )
    # Batch 30000 measured at 3300 us, the line through 10000 (1000) and 100000 (10000) says 3000.
    batch = paired_row(
        "batch",
        [(0, 0, 10000, 0, 1000.0, 5), (0, 0, 30000, 0, 3300.0, 10), (0, 0, 100000, 0, 10000.0, 50)],
        {(0, 1): (2300, 10), (0, 2): (9000, 50), (1, 2): (6700, 50)},
    )
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 2e-6, noise=0.05, seed=1))
    write(tmp_path / "paired.json", doc(ITEM, held, batch))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "## Measurements that conclude: paired, interleaved runs" in text
    assert "| cpu | one `.item()` |" in text and "2.00 us [95% CI 1.50, 2.50]" in text
    line = next(l for l in text.splitlines() if l.startswith("| cpu interval 500 print100 1 |"))
    assert "100.01 [99.11, 100.91]" in line and line.rstrip(" |").endswith(
        "the ranges meet, both narrower than 10%)"
    )
    assert "agrees" in line.split("|")[-2]
    line = next(l for l in text.splitlines() if l.startswith("| cpu batch 30000 |"))
    # (3000 - 3300) / 3300: the prediction 9.1 % under the measurement.
    assert "3000.0 [2985.0, 3015.0]" in line and "off by -9.1% (the ranges do not meet)" in line


def test_a_folder_without_paired_rows_says_so(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 2e-6))
    assert report.main([str(tmp_path)]) == 0
    assert "No Paired rows in this folder" in (tmp_path / "REPORT.md").read_text()


def test_disturbed_rows_are_named(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 2e-6))
    row = json.loads(json.dumps(ITEM))
    row["disturbed"] = 1.0
    write(tmp_path / "paired.json", doc(row))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "| cpu | item | 2 | 100 | 12 | met | 1.10 DISTURBED |" in text
    assert "disturbed: cpu-item." in text
