"""The "how close to the machine" section: FLOP count, % of peak, speed-ups, the sweep fit
and its crossover, read from synthetic rows with known answers."""

import numpy as np
import pytest

from analysis import bench_json, machine_limit, report
from analysis.tests.synthetic import CONTEXT, item_sync_doc, row, write
from experiments import sweeps

SWEEP_BATCHES = tuple(sweeps.load()["rung_sweep"]["batches"])


def test_flops_match_the_cpp_hand_count():
    # The same numbers as tests/cpp/test_cpu_rungs.cpp pins for src/train/flops.cpp.
    f = machine_limit.epoch_flops(120)
    assert f == {"forward": 18000, "loss": 1680, "backward": 26627, "update": 166}
    assert machine_limit.total_flops(120) == 46473
    assert machine_limit.total_flops(1001) - machine_limit.total_flops(1000) == 386
    with pytest.raises(ValueError, match="rows"):
        machine_limit.epoch_flops(0)


def ladder_row(rung, us, threads, rep, **extra):
    epochs = 20000
    return row(
        f"Ladder/cpu-{rung}",
        us * epochs * 1e-6,
        rep=rep,
        epochs=epochs,
        cpu_threads=threads,
        max_loss_error=1e-6,
        max_weight_error=1e-4,
        **extra,
    )


def peak_row(f64, threads, gflops, rep):
    r = row(
        f"Peak/cpu-fma-{'f64' if f64 else 'f32'}-{'1thread' if threads == 1 else 'allthreads'}",
        0.05,
        rep=rep,
        epochs=1,
        gflops=gflops,
        cpu_threads=threads,
        float64=int(f64),
        lanes=8 if f64 else 16,
    )
    return r


def sweep_rows(
    rung,
    fixed_us,
    per_row_ns,
    threads,
    batches=SWEEP_BATCHES,
    reps=3,
    noise=0.0,
    seed=0,
):
    rng = np.random.default_rng(seed)
    out = []
    for b in batches:
        for rep in range(reps):
            us = (fixed_us + b * per_row_ns * 1e-3) * (1 + noise * rng.standard_normal())
            epochs = 20
            out.append(
                row(
                    f"RungSweep/cpu-{rung}/batch:{b}",
                    us * epochs * 1e-6,
                    rep=rep,
                    epochs=epochs,
                    rows=b,
                    batch=b,
                    cpu_threads=threads,
                )
            )
    return out


def rows_of(tmp_path, benchmarks):
    path = write(tmp_path / "limit.json", {"context": dict(CONTEXT), "benchmarks": benchmarks})
    return bench_json.load(str(path)).rows


def test_rungs_get_gflops_pct_of_peak_and_speedups(tmp_path):
    bm = [peak_row(False, 1, 100.0, r) for r in range(3)] + [
        peak_row(False, 2, 180.0, r) for r in range(3)
    ]
    bm += [ladder_row("libtorch_eager", 100.0, 2, r) for r in range(3)]
    bm += [ladder_row("libtorch_eager_1thread", 80.0, 1, r) for r in range(3)]
    bm += [ladder_row("fused_cpu", 2.0, 1, r) for r in range(3)]
    bm += [ladder_row("torch_compile", 50.0, 2, r, compile_s=30.0) for r in range(3)]
    limits = {x.rung: x for x in machine_limit.rung_limits(rows_of(tmp_path, bm))}
    fused = limits["fused_cpu"]
    assert fused.us_per_epoch == pytest.approx(2.0)
    assert fused.gflops == pytest.approx(46473 / 2.0 / 1e3)
    assert fused.pct_of_peak == pytest.approx(100 * fused.gflops / 100.0)  # the 1-thread peak
    assert limits["torch_compile"].pct_of_peak == pytest.approx(
        100 * 46473 / 50.0 / 1e3 / 180.0
    )  # all threads
    assert fused.speedup_eager == pytest.approx(50.0) and fused.speedup_1thread == pytest.approx(
        40.0
    )
    assert limits["torch_compile"].compile_s == pytest.approx(30.0)


def test_sweep_fit_recovers_fixed_and_per_row_and_the_crossover(tmp_path):
    bm = sweep_rows("fused_cpu", 1.0, 4.0, 1) + sweep_rows(
        "fused_cpu_allthreads", 5.0, 2.2, 2, seed=1
    )
    bm += sweep_rows("libtorch_eager", 100.0, 10.0, 2, seed=2, noise=0.01)
    fits = {f.rung: f for f in machine_limit.sweep_fits(rows_of(tmp_path, bm))}
    eager = fits["libtorch_eager"]
    lo, hi = eager.fit.interval("base_us")
    assert lo < 100.0 < hi
    assert eager.fit.value("per_row_us") == pytest.approx(10e-3, rel=0.05)
    assert eager.crossover_rows == pytest.approx(10000, rel=0.1)
    speed = machine_limit.multicore_efficiency(fits.values())
    assert speed[1000000] == pytest.approx((1.0 + 4000) / (5.0 + 2200), rel=1e-6)


def test_report_gets_the_section_and_plot(tmp_path, capsys):
    doc = item_sync_doc(100e-6, 5e-6)  # the report needs its ItemSync rows
    doc["benchmarks"] += [peak_row(False, 1, 100.0, r) for r in range(3)]
    doc["benchmarks"] += [ladder_row("libtorch_eager", 100.0, 2, r) for r in range(3)]
    doc["benchmarks"] += [ladder_row("fused_cpu", 2.0, 1, r) for r in range(3)]
    doc["benchmarks"] += sweep_rows("fused_cpu", 1.0, 4.0, 1) + sweep_rows(
        "fused_cpu_allthreads", 5.0, 2.2, 2
    )
    write(tmp_path / "all.json", doc)
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "## How close to the machine (CPU)" in text
    assert "46,473 floating-point operations" in text
    assert "fused CPU loop >= 35x LibTorch eager on the CPU: met (50x" in text
    assert "efficiency" in text and "rung_sweep.png" in text
    assert (tmp_path / "rung_sweep.png").stat().st_size > 10000


def test_target_not_met_is_said(tmp_path):
    bm = [ladder_row("libtorch_eager", 100.0, 2, r) for r in range(3)]
    bm += [ladder_row("fused_cpu", 5.0, 1, r) for r in range(3)]
    text = "\n".join(machine_limit.section(rows_of(tmp_path, bm), "m", str(tmp_path)))
    assert "NOT met (20x" in text
    assert "No Peak rows" in text


def test_section_says_when_nothing_is_there(tmp_path):
    text = "\n".join(machine_limit.section([], "m", str(tmp_path)))
    assert "No Peak, CPU Ladder or RungSweep rows" in text


def test_a_rung_without_a_threads_counter_takes_its_runs_thread_count(tmp_path):
    """python_eager.json rows carried no cpu_threads: the rung was shown on 1 thread, against the
    1-thread peak, though torch ran it on the 2 its context recorded."""
    bm = [peak_row(False, 1, 100.0, r) for r in range(3)] + [
        peak_row(False, 2, 180.0, r) for r in range(3)
    ]
    bm += [row("Ladder/cpu-python_eager", 250e-6 * 20000, rep=r, epochs=20000) for r in range(3)]
    limits = {
        x.rung: x for x in machine_limit.rung_limits(rows_of(tmp_path, bm))
    }  # CONTEXT: 2 torch threads
    assert limits["python_eager"].threads == 2
    assert limits["python_eager"].pct_of_peak == pytest.approx(100 * 46473 / 250.0 / 1e3 / 180.0)
    text = "\n".join(machine_limit.section(rows_of(tmp_path, bm), "m", str(tmp_path)))
    assert "| python_eager | 2 | 250.0 |" in text
    assert (
        "% |" in text.split("| python_eager |")[1].split("\n")[0]
    )  # "% of peak" carries its % sign


def test_ladder_table_says_epochs_threads_checks_and_same_configurations(tmp_path):
    from analysis import summary

    bm = [ladder_row("libtorch_eager", 100.0 + r, 2, r) for r in range(3)]
    bm += [ladder_row("libtorch_eager_allthreads", 99.0 + r, 2, r) for r in range(3)]
    bm += [ladder_row("libtorch_eager_1thread", 80.0, 1, r) for r in range(3)]
    bm += [
        row(
            "Ladder/cpu-python_eager",
            250e-6 * 20000,
            rep=r,
            epochs=20000,
            records=200,
            final_loss=0.0613,
        )
        for r in range(3)
    ]
    bm += [
        row(
            "Ladder/cpu-torch_compile",
            400e-6 * 2000,
            rep=r,
            epochs=2000,
            records=20,
            cpu_threads=2,
            max_loss_error=5e-7,
            max_weight_error=2e-5,
        )
        for r in range(3)
    ]
    for r in bm:
        if "libtorch_eager" in r["name"]:
            r.update(
                records=200.0, final_loss=0.0613, speedup_vs_eager=1000.0
            )  # the old counter: never read
    rows = rows_of(tmp_path, bm)
    text = "\n".join(report.ladder_section(rows, "m", str(tmp_path)))
    assert (
        "| cpu | python_eager | 2 | 20000 | 200 | 250.0 | 0.4x | not checked | not checked |"
        in text
    )
    assert "| cpu | torch_compile | 2 | 2000 | 20 | 400.0 | 0.3x | 5.0e-07 | 2.0e-05 |" in text
    assert (
        "| cpu | libtorch_eager_allthreads | 2 | 20000 | 200 | 100.0 | 1.0x |" in text
    )  # medians, not 1000x
    assert "libtorch_eager and libtorch_eager_allthreads both ran on 2 threads here" in text
    assert "libtorch_eager_1thread" not in text.split("both ran on")[1].split("\n")[0]
    assert (
        "its final loss, 0.0613, and LibTorch eager's, 0.0613, are the same float32 value" in text
    )
    assert [r.rung for r in summary.ladder(rows)][:2] == ["python_eager", "torch_compile"]
