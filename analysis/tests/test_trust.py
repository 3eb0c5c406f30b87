"""What the report promises a reader: every cell is what its caption says, every figure
below the noise says so where it stands, every prediction has a verdict, the article's
whole table is always there, and the answer speaks the article's words."""

import re

import numpy as np
from scipy import stats as sps

from analysis import answer, noise, report
from analysis.tests.synthetic import CONTEXT, item_sync_doc, row, write


def test_welch_interval_agrees_with_scipys_welch_test():
    rng = np.random.default_rng(1)
    for shift in (0.0, 0.3, 1.0, 3.0):
        a, b = rng.normal(10, 1, 4), rng.normal(10 + shift, 2, 3)
        ci = noise.welch_ci(a, b)
        p = sps.ttest_ind(b, a, equal_var=False).pvalue
        assert noise.beyond_noise(ci) == (p < 0.05), (shift, ci, p)
        assert ci[0] < b.mean() - a.mean() < ci[1]


def test_noise_marks_and_verdicts():
    assert noise.welch_ci([1.0], [2.0, 3.0]) is None
    assert noise.mark(None) == "(n<2: noise unknown)"
    assert noise.mark((-1.0, 2.0)).endswith("within noise")
    assert "within noise" not in noise.mark((0.5, 2.0))
    assert (
        noise.within_noise((-1.0, 2.0))
        and not noise.within_noise((0.5, 2.0))
        and noise.within_noise(None) is None
    )
    # A prediction inside a tight range agrees; inside a wide one it is inconclusive; outside, off.
    v = noise.prediction_verdict(1.02, None, 1.0, (0.97, 1.04))
    assert v.kind == "agrees" and v.text.startswith("agrees (+2.0%")
    v = noise.prediction_verdict(1.05, None, 1.0, (0.9, 1.1), "the repetitions' range")
    assert v.kind == "inconclusive" and "the repetitions' range spans 20%" in v.text
    assert (
        noise.prediction_verdict(1.5, None, 1.0, (0.9, 1.1)).text
        == "off by +50.0% (the ranges do not meet)"
    )
    # A prediction built on a noisy primitive is inconclusive even against a tight measurement.
    v = noise.prediction_verdict(1.0, (0.8, 1.3), 1.0, (0.99, 1.01))
    assert v.kind == "inconclusive" and "the prediction's own spread is 50%" in v.text


def test_no_percent_error_against_a_measurement_within_noise_of_zero():
    """The issue's '.item() = one tiny op' row: 0.69 us against a fitted slope of -3.60 us
    [-18.01, 10.81] read 'within noise (-119.2%)', a % of a negative divisor."""
    v = noise.prediction_verdict(0.69, (0.65, 0.99), -3.60, (-18.01, 10.81), "the fit's 95% CI")
    assert v.kind == "inconclusive" and "holds 0" in v.text
    assert not re.search(r"[+-]\d+\.\d%", v.text)  # no "-119.2%"
    assert v.err_pct != v.err_pct  # nan: no error is computed
    v = noise.prediction_verdict(40.0, None, -3.60, (-18.01, 10.81), "the fit's 95% CI")
    assert v.kind == "off" and "holds 0" in v.text


def test_point_and_interval_are_one_statistic():
    """A median difference beside a CI of means can fall outside it; the difference of the
    means never does."""
    a, b = [1.0, 1.1, 5.0], [1.2, 1.3, 1.4]  # medians say b is slower, means say faster
    diff, ci = noise.mean_difference(a, b)
    assert ci[0] <= diff <= ci[1] and diff < 0


def _traced_doc(untraced_s, traced_us):
    """One traced configuration whose repetitions make the median of the ratios differ from
    the ratio of the medians (the issue's 92.5 / 105.4 / 0.98x row)."""
    doc = {"context": dict(CONTEXT), "benchmarks": []}
    for rep, (t, tr) in enumerate(zip(untraced_s, traced_us)):
        r = row(
            "ItemSync/cpu/interval:0/print100:0/batch:120",
            t,
            rep=rep,
            epochs=20000,
            item_calls=0,
            records=0,
            interval=0,
            print100=0,
            batch=120,
        )
        r.update(
            {
                "attr_epochs": 2000.0,
                "traced_us_per_epoch": tr,
                "trace_overhead": tr / (t * 1e6 / 20000),
                "phase_forward_us": 10.0,
            }
        )
        doc["benchmarks"].append(r)
    return doc


def test_overhead_is_the_ratio_of_the_medians_it_sits_beside(tmp_path):
    # untraced 80, 92.5, 140 us/epoch; traced 70, 105.4, 120: the per-repetition ratios are
    # 0.875, 1.14, 0.857 (median 0.875) but median traced / median untraced = 105.4 / 92.5.
    doc = _traced_doc([80e-6 * 20000, 92.5e-6 * 20000, 140e-6 * 20000], [70.0, 105.4, 120.0])
    write(tmp_path / "item_sync.json", doc)
    doc2 = item_sync_doc(100e-6, 1e-6, intervals=(1,), reps=3)  # a second config, so a fit exists
    doc["benchmarks"] += doc2["benchmarks"]
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    # The mark sits on the difference of the means (98.5 - 104.2 = -5.7), the statistic its CI is of.
    assert "| cpu | never | 0 | 92.5 | 105.4 | 1.14x | -5.7 [95% CI" in text
    assert "`traced/untraced` = median traced / median untraced" in text
    assert "different times" in text


def test_batch_sync_cost_carries_its_interval_and_noise_mark(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6))
    sweep = []
    # batch 1000: every-epoch logging costs +40 us/epoch, clearly; batch 120: +/-5 us of noise only.
    for batch, every, never in (
        (120, [101, 95, 104], [100, 98, 103]),
        (1000, [240, 241, 239], [200, 201, 199]),
        (10000, [1000, 1001, 999], [1000, 1001, 999]),
    ):
        for interval, us in ((0, never), (1, every)):
            for rep, u in enumerate(us):
                sweep.append(
                    row(
                        f"BatchSweep/cpu/interval:{interval}/batch:{batch}",
                        u * 200 / 1e6,
                        rep=rep,
                        epochs=200,
                        item_calls=200 * interval,
                        batch=batch,
                        interval=interval,
                    )
                )
    write(tmp_path / "batch_sweep.json", {"context": dict(CONTEXT), "benchmarks": sweep})
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    line120 = next(l for l in text.splitlines() if l.startswith("| cpu | 120 |"))
    line1000 = next(l for l in text.splitlines() if l.startswith("| cpu | 1000 |"))
    assert "[95% CI" in line120 and line120.endswith("within noise |")
    assert "+40.0 [95% CI" in line1000 and "within noise" not in line1000


def test_the_articles_whole_table_is_there_without_a_gpu(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    section = text.split("## The article's tables, with ours beside them")[1].split("\n## ")[0]
    for figure in (
        "2.93",
        "11.29",
        "2.86",
        "10.38",
        "| 100 | 200 | 600 | 10.43 |",
        "| 200 | 100 | 400 | 10.02 |",
        "| 1000 | 20 | 240 | 10.12 |",
        "| 2000 | 10 | 220 | 9.74 |",
    ):
        assert figure in section, figure
    assert section.count(answer.NO_GPU) == 8  # the ours-cuda cell of every row of both tables
    # Our CPU rows sit beside them: 20000 x 100 us = 2.000 s for the never-logging config.
    assert (
        "| no recording | CPU (its code never moved anything to the GPU) | 200 | 2.86 | 2.000"
        in section
    )


def test_the_articles_table_gets_our_gpu_rows_when_there_are_some(tmp_path):
    doc = item_sync_doc(500e-6, 40e-6, device="cuda")
    doc["context"]["gpu_name"] = "Test GPU"
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    section = (
        (tmp_path / "REPORT.md").read_text().split("## The article's tables")[1].split("\n## ")[0]
    )
    assert answer.NO_GPU not in section
    # interval 200 + print: 20000 x 500 us + 400 x 40 us = 10.016 s
    assert (
        "| 200 | 100 | 400 | 10.02 | 10.38 | -3.5% | not run in this folder | 10.016 (10.016-10.016, n=3) |"
        in section
    )


def test_the_answer_uses_the_articles_words_and_the_deep_queue_regime(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6, noise=0.05))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "## Why is the remaining time not linear in the number of loss records?" in text
    assert '*"Why is the remaining time not linear in the number of loss records?"*' in text
    assert "proportional to the number of records" not in text and "intercept" not in text
    assert "loop time = epochs x c + (.item() calls) x s" in text
    # s is a difference of two single runs: stated with the uncertainty its evidence carries
    assert "s = 46 us (roughly 50 us, uncertain by about as much" in text
    assert "c = 518 us per epoch" in text
    assert "When a sync does cost a lot: a deep GPU queue." in text and "s + min(c, g)" in text


def test_skipped_rows_are_one_line_per_family(tmp_path):
    doc = item_sync_doc(1e-4, 1e-6)
    for i in range(5):
        doc["benchmarks"].append(
            {
                "name": f"Memcpy/DtoH/bytes:{4 << i}/manual_time",
                "run_type": "iteration",
                "error_occurred": True,
                "error_message": "skipped: no CUDA driver (no GPU)",
            }
        )
    doc["benchmarks"].append(
        {
            "name": "Sync/item_idle/manual_time",
            "run_type": "iteration",
            "error_occurred": True,
            "error_message": "skipped: no CUDA driver (no GPU)",
        }
    )
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "- Memcpy: 5 rows skipped: no CUDA driver (no GPU)" in text
    assert "- Sync: 1 row skipped: no CUDA driver (no GPU)" in text


def test_unstable_primitives_are_named_and_stable_ones_pass(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(130e-6, 2e-6))

    def prims(add_us):
        rows = [
            dict(
                row("Dispatch/cpu-add", u * 1e-6, rep=i, epochs=1, us_per_op=u),
                name="Dispatch/cpu-add/manual_time",
            )
            for i, u in enumerate(add_us)
        ]
        rows += [
            dict(
                row(
                    "Dispatch/cpu-train_step",
                    128e-6,
                    rep=i,
                    epochs=1,
                    us_per_op=128.0,
                    aten_ops_per_step=104,
                ),
                name="Dispatch/cpu-train_step/manual_time",
            )
            for i in range(3)
        ]
        return {"context": dict(CONTEXT, load_avg=[1.5, 1.0, 0.5], num_cpus=2), "benchmarks": rows}

    write(tmp_path / "primitives.json", prims([1.0, 1.5, 1.25]))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    # a 40 % spread supports two significant digits
    assert "| Dispatch/cpu-add | 1.2 | 40.0% (n=3) |" in text
    assert "**Not stable enough to predict to 10%**: Dispatch/cpu-add (40%, n=3)" in text
    assert "1-minute load average 1.50 on 2 CPUs when it started" in text
    # The prediction's range (104 x 1.0 .. 104 x 1.5) meets the measured 130 only because the tiny
    # op spread 40%: that tests nothing, and the verdict says so.
    assert (
        "| 130.00 [104.00, 156.00] | 130.00 [130.00, 130.00] ItemSync never-logging us/epoch | "
        "inconclusive (+0.0%; the ranges meet, but the prediction's own spread is 40%, over 10%) |"
    ) in text
    write(tmp_path / "primitives.json", prims([1.24, 1.25, 1.26]))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "Every primitive's spread is under 10% over at least 3 repetitions." in text
    assert (
        "| 130.00 [128.96, 131.04] | 130.00 [130.00, 130.00] ItemSync never-logging us/epoch | agrees (+0.0%; "
        "the ranges meet, both narrower than 10%) |"
    ) in text


def test_held_out_predictions_carry_a_verdict(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6, noise=0.02))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    held = [l for l in text.splitlines() if l.startswith("| cpu interval 500")]
    assert len(held) == 2
    assert all(
        l.split(" | ")[3].startswith(("agrees (", "inconclusive (", "off by ")) for l in held
    )
    assert "within noise" not in "".join(
        held
    )  # a prediction is never "within noise": that word is for CIs


def test_the_deep_queue_regime_is_checked_on_gpu_batch_rows(tmp_path):
    from analysis.tests.test_report import gpu_folder

    assert report.main([str(gpu_folder(tmp_path, batch_reps=3))]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    # c = 200 us (batch 120), s = Sync/item_idle = 12 us; batch 100000 runs 250 us/epoch > 1.1 c: GPU-bound
    # by its time, so a sync should cost s + c = 212 us, and the synthetic rows' 40 us is reported as off.
    assert "- cuda batch 100000 (GPU-bound by its time, 250 us/epoch): a sync cost +40.0 us" in text
    assert "predicted s + c = 212 us: off by +430" in text
    assert "- cuda batch 120 (launch-bound by its time, 200 us/epoch)" in text
    assert "s + c = 212 us: its 95% CI meets that range." in text
    assert "inferred from the epoch's time, not from a measured queue" in text


def test_two_back_to_back_repetitions_give_no_batch_verdict(tmp_path):
    # Two repetitions run back to back give a Welch interval that can exclude 0 in an impossible
    # direction: the interval is shown, no verdict is drawn from it.
    from analysis.tests.test_report import gpu_folder

    assert report.main([str(gpu_folder(tmp_path))]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "(n=2 back to back: no verdict)" in text
    assert "- cuda batch 100000 (GPU-bound by its time, 250 us/epoch)" in text
    assert "predicted s + c = 212 us: no verdict." in text
    assert "5 batch sizes with n=2 back-to-back repetitions each, no verdict" in text


def test_the_answer_sets_the_real_gpu_traces_sync_cost_beside_the_posts(tmp_path):
    """The homework's answer rests on measured GPU data too: ./attribute's output on the A100 and
    GP100 traces (committed under results/traces/attribute-json) gives the price of one sync."""
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6, noise=0.05))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "**One sync on real GPUs**" in text
    assert (
        "synchronisation calls (blocking copies not included) listed in 5 trace file(s)" in text
        and "mi250" not in text
    )
    assert "median" in text.split("**One sync on real GPUs**")[1].split("\n\n")[0]
    assert "not available" in " ".join(answer.real_gpu_sync_lines(str(tmp_path / "none")))


def test_the_reference_is_the_fit_at_zero_calls_not_one_outlying_row(tmp_path):
    """The never-logging print100=0 row with one slow repetition (the 2-core VM's 35.8% spread)
    made every print100=0 row look faster than not logging; the fit at 0 calls does not move."""
    doc = item_sync_doc(100e-6, 0.0, reps=3)
    for r in doc["benchmarks"]:
        if (
            r["name"].startswith("ItemSync/cpu/interval:0/print100:0/")
            and r["repetition_index"] == 0
        ):
            r["real_time"] *= 1.4
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    rows = [
        l.split(" | ")
        for l in text.split("## Our whole sweep")[1].splitlines()
        if l.startswith("| cpu | 0 |")
    ]
    above = {r[2]: float(r[7].split()[0]) for r in rows}
    # Every logging row is at the fitted 2.0 s; against the outlying row they would read -0.27 s.
    assert all(abs(v) < 0.1 for k, v in above.items() if k != "never"), above
    assert above["never"] > 0.15
    assert "here the never-logging rows spread" in text


def test_every_figure_the_post_gives_is_in_its_table(tmp_path):
    write(tmp_path / "item_sync.json", item_sync_doc(100e-6, 1e-6))
    assert report.main([str(tmp_path)]) == 0
    section = (
        (tmp_path / "REPORT.md").read_text().split("## The article's tables")[1].split("\n## ")[0]
    )
    assert "2.93 (2.90 in the summary post)" in section
    for epoch, loss in (
        (100, "1.1143"),
        (1000, "0.6736"),
        (5000, "0.1755"),
        (10000, "0.0913"),
        (20000, "0.0633"),
    ):
        assert f"| {epoch} | {loss} |" in section
