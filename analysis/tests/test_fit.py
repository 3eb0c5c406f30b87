import numpy as np
import pytest

from analysis import article, bench_json, summary
from analysis.fit import fit_batch_cost, fit_loop_time
from analysis.tests.synthetic import item_sync_doc, write


def test_known_coefficients_are_recovered(tmp_path):
    # 520 us per epoch and 45 us per .item(), 2% noise: the fit must find both.
    doc = item_sync_doc(520e-6, 45e-6, noise=0.02, device="cuda")
    run = bench_json.load(write(tmp_path / "item_sync.json", doc))
    (model,) = summary.fit_devices(run.rows)
    assert model.fit.value("per_epoch") == pytest.approx(520e-6, rel=0.01)
    assert model.fit.value("per_item") == pytest.approx(45e-6, rel=0.15)
    lo, hi = model.fit.interval("per_item")
    assert lo < 45e-6 < hi
    assert model.fit.r2 > 0.5
    # Interval 500 was left out of the fit and is predicted within the noise.
    assert {c.interval for c, _ in model.held_out} == {summary.HELD_OUT_INTERVAL}
    for c, predicted in model.held_out:
        assert predicted == pytest.approx(c.median_s, rel=0.05)


def test_exact_data_gives_exact_fit_and_fixed_term_when_epochs_vary(tmp_path):
    doc = item_sync_doc(150e-6, 2e-6, fixed_s=0.05, epoch_counts=[5000, 20000])
    run = bench_json.load(write(tmp_path / "item_sync.json", doc))
    fit = fit_loop_time(
        [r.counters["epochs"] for r in run.rows],
        [r.counters["item_calls"] for r in run.rows],
        [r.seconds for r in run.rows],
    )
    assert fit.names == ["fixed", "per_epoch", "per_item"]
    assert fit.value("fixed") == pytest.approx(0.05, rel=1e-6)
    assert fit.value("per_epoch") == pytest.approx(150e-6, rel=1e-9)
    assert fit.value("per_item") == pytest.approx(2e-6, rel=1e-6)
    assert fit.r2 == pytest.approx(1.0)


def test_single_epoch_count_drops_the_fixed_term_and_says_so():
    fit = fit_loop_time([100, 100, 100, 100], [0, 10, 20, 30], [1.0, 1.1, 1.2, 1.3])
    assert fit.names == ["per_epoch", "per_item"]
    assert "not identifiable" in fit.note
    assert fit.value("per_item") == pytest.approx(0.01)


def test_batch_fit_recovers_an_affine_cost():
    b = np.array([120, 1000, 10000, 100000, 1e6])
    fit = fit_batch_cost(b, 100 + 0.01 * b)
    assert fit.value("base_us") == pytest.approx(100, rel=1e-6)
    assert fit.value("per_row_us") == pytest.approx(0.01, rel=1e-6)


def test_too_few_rows_is_a_clear_error():
    with pytest.raises(ValueError, match="need more rows"):
        fit_loop_time([10, 10], [0, 1], [1.0, 2.0])


def test_article_per_call_cost_is_46_us():
    # ARTICLE.md: 19800 fewer .item() calls saved 0.91 s, about 46 us per call.
    assert article.per_call_cost_from_gpu_runs() * 1e6 == pytest.approx(45.96, abs=0.01)
    checks = summary.article_checks()
    assert [c for *_, c in checks["table_item_calls"]] == [600, 400, 240, 220]
    assert checks["sync_spread_calls"] == 380
    assert checks["sync_spread_s"] == pytest.approx(0.0175, abs=0.0005)  # "about 17 ms"
    assert checks["table_spread_s"] == pytest.approx(0.69, abs=1e-9)  # "the 0.7 s spread"
    assert checks["gpu_us_per_epoch"] == pytest.approx(564.5)
