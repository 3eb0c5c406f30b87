"""analysis.trace_report on small synthetic `./attribute --json` documents with known answers."""

import json

import numpy as np
import pytest

from analysis import trace_report
from analysis.attribute_json.reader import load_attribution
from analysis.trace_pages import pages, prose, stats


def step(
    name,
    start,
    wall,
    launch=100.0,
    blocked=0.0,
    busy=500.0,
    host_wait=0.0,
    kernel_wait=0.0,
    other=0.0,
    launches=10,
    kernels=10,
    kernel_us=450.0,
    syncs=0,
    copy=0.0,
    copies=0,
):
    return {
        "name": name,
        "start_us": start,
        "wall_us": wall,
        "launches": launches,
        "launch_api_us": launch,
        "kernels": kernels,
        "kernel_us": kernel_us,
        "gpu_busy_us": busy,
        "memcpy_by_kind": {"DtoH pinned": {"count": 1, "bytes": 4, "gpu_us": 2.0}},
        "memsets": 0,
        "syncs": syncs,
        "sync_api_us": blocked,
        "blocking_copies": copies,
        "blocking_copy_us": copy,
        "blocking_copies_by_reason": {
            "not Async": {"calls": 0, "us": 0.0},
            "pageable": {"calls": copies, "us": copy},
        },
        "nonblocking_copies": 0,
        "nonblocking_copy_us": 0.0,
        "memcpy_api_us": copy,
        "blocked_us": blocked + copy,
        "host_rest_us": wall - launch - blocked - copy,
        "idle_host_wait_us": host_wait,
        "idle_kernel_wait_us": kernel_wait,
        "idle_other_us": other,
        "launch_delay_us": {"count": launches, "p50": 3.0, "p90": 7.5, "p99": 9.0, "max": 10.0},
        "queue": {"regime": "mixed", "gpus": [QUEUE_GPU], "streams": []},
    }


QUEUE_DEPTH = {"empty_share": 0.1, "empty_us": 1.0, "depth_p50": 1, "depth_p90": 2, "depth_max": 3}
QUEUE_GPU = {**QUEUE_DEPTH, "device": 0, "pieces": 4, "full_queue_calls": 0, "full_queue_us": 0.0}
QUEUE_RULE = {
    "max_queue": 1024,
    "launch_bound_empty_share": 0.25,
    "gpu_bound_empty_share": 0.05,
    "gpu_bound_median_depth": 2,
}


def sync(
    op,
    blocked,
    queued,
    start,
    api="cudaStreamSynchronize",
    step_name="ProfilerStep#1",
    kind="sync",
    reason=None,
):
    return {
        "api": api,
        "kind": kind,
        "reason": reason,
        "op": op,
        "step": step_name,
        "start_us": start,
        "blocked_us": blocked,
        "gpu_queued_us": queued,
        "queue_depth": 1,
        "drained": 1,
        "gpu_idle_after_us": 5.0,
        "regime": "mixed",
        "site": None,
        "caller": None,
        "stack": [],
        "stack_cut": False,
    }


def trace_doc(file="/data/job/train.pt.trace.json.gz", syncs=None, steps=None):
    steps = (
        steps
        if steps is not None
        else [
            step(
                "ProfilerStep#1",
                0.0,
                1000.0,
                blocked=300.0,
                busy=600.0,
                host_wait=250.0,
                kernel_wait=100.0,
                other=50.0,
                syncs=2,
            ),
            step(
                "ProfilerStep#2",
                1000.0,
                1000.0,
                blocked=100.0,
                busy=800.0,
                host_wait=150.0,
                kernel_wait=50.0,
                other=0.0,
                syncs=1,
            ),
        ]
    )
    syncs = (
        syncs
        if syncs is not None
        else [
            sync("aten::item", 250.0, 200.0, 100.0),
            sync("aten::item", 50.0, 0.0, 600.0),
            sync("aten::nonzero", 100.0, 60.0, 1500.0, step_name="ProfilerStep#2"),
        ]
    )
    total = step(
        "total",
        0.0,
        sum(s["wall_us"] for s in steps),
        blocked=sum(s["sync_api_us"] for s in steps),
        copy=sum(s["blocking_copy_us"] for s in steps),
        syncs=sum(s["syncs"] for s in steps),
        copies=sum(s["blocking_copies"] for s in steps),
    )
    causes = {}
    for s in syncs:
        c = causes.setdefault(
            s["op"] or "(no op)",
            {
                "op": s["op"] or "(no op)",
                "calls": 0,
                "op_occurrences": 0,
                "sync_us": 0.0,
                "blocking_copy_us": 0.0,
                "blocked_us": 0.0,
                "gpu_queued_us": 0.0,
                "queue_depth_p50": 1,
                "queue_depth_max": 1,
                "drained": 0,
                "gpu_idle_after_us": 0.0,
                "saving_estimate_us": 0.0,
                "saving_estimate_by": "mixed",
                "regime": "mixed",
            },
        )
        c["calls"] += 1
        c["op_occurrences"] += 1
        c["sync_us" if s["kind"] == "sync" else "blocking_copy_us"] += s["blocked_us"]
        c["blocked_us"] += s["blocked_us"]
        c["gpu_queued_us"] += s["gpu_queued_us"]
        c["drained"] += s["drained"]
        c["gpu_idle_after_us"] += s["gpu_idle_after_us"]
        c["saving_estimate_us"] += min(s["blocked_us"], s["gpu_idle_after_us"])
    wall = sum(s["wall_us"] for s in steps) or total["wall_us"]
    for c in causes.values():
        c["share_of_steps"] = c["blocked_us"] / wall
    blocking = {
        "syncs": sum(1 for s in syncs if s["kind"] == "sync"),
        "sync_us": sum(s["blocked_us"] for s in syncs if s["kind"] == "sync"),
        "blocking_copies": sum(1 for s in syncs if s["kind"] != "sync"),
        "blocking_copy_us": sum(s["blocked_us"] for s in syncs if s["kind"] != "sync"),
        "blocked_us": sum(s["blocked_us"] for s in syncs),
    }
    return {
        "file": file,
        "rank": 0,
        "gpu_events": True,
        "clock": "trace us",
        "steps": steps,
        "total": total,
        "blocking_calls": blocking,
        "syncs_by_cause": sorted(causes.values(), key=lambda c: -c["blocked_us"]),
        "syncs": syncs,
        "unmatched_correlations": 0,
        "warnings": [],
        "queue_rule": QUEUE_RULE,
        "queue_timeline": {
            "window": steps[0]["name"] if steps else "total",
            "start_us": 0.0,
            "wall_us": steps[0]["wall_us"] if steps else total["wall_us"],
            "gpus": [{"device": 0, "t_us": [0.0, 10.0], "depth": [0, 2], "truncated": False}],
        },
        "kernels_by_name": [],
        "kernels_without_call": 0,
        "call_sites": {
            "stacks": "none",
            "without_caller": 0,
            "without_stack": 0,
            "sites": [],
            "gpu_work": True,
            "would_sync": [],
        },
        "advice": [],
    }


def write_doc(path, *traces):
    path.write_text(json.dumps({"tool": "attribute", "version": 2, "traces": list(traces)}))
    return str(path)


def test_pages_index_and_sync_lines(tmp_path, capsys):
    src = write_doc(tmp_path / "a.json", trace_doc())
    out = tmp_path / "pages"
    assert trace_report.main([src, "--out", str(out)]) == 0
    page = (out / "train.md").read_text()
    # 300 us of 2000 us of steps for aten::item, 100 us for aten::nonzero: known lines.
    assert "aten::item — 2 calls, 300 us blocked, 15.0% of the steps" in page
    assert "aten::nonzero — 1 call, 100 us blocked, 5.0% of the steps" in page
    assert page.index("aten::item —") < page.index("aten::nonzero —")
    # wall 1000 = launch 100 + sync 100 + copies 0 + rest 800
    assert (
        "| ProfilerStep#2 | 1000 | 10 | 100 | 1 | 100 | 0 | 0.0 | 800 | 10 | 450 | 800 | 150 | 50.0 | 0.0 | 3.0 / 7.5 |"
        in page
    )
    assert "cudaStreamSynchronize (sync) 3 calls, 400 us blocked" in page
    assert "| **total** | 3 | 3 | 400 | 0.0 | 400 |" in page  # the rows' sum, and the trace's total
    assert "![per-step breakdown](train-steps.png)" in page
    assert (out / "train-steps.png").stat().st_size > 10000
    index = (out / "index.md").read_text()
    assert "[train](train.md)" in index and "aten::item — 2 calls" in index
    assert not list(out.glob("*.tmp*"))


def test_no_gpu_and_no_steps_is_said_and_plots_the_whole_trace(tmp_path):
    t = trace_doc(steps=[], syncs=[])
    t["gpu_events"] = False
    t["warnings"] = ["no GPU events: host figures only"]
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", t), "--out", str(out)]) == 0
    page = (out / "train.md").read_text()
    assert "No GPU events in this trace: host figures only." in page
    assert "no ProfilerStep: the whole trace is one window" in page
    assert "| whole trace |" in page
    assert "No blocking call (synchronisation or blocking copy) in this trace." in page
    assert "No blocking sync is listed" in (out / "index.md").read_text()


def test_rank_files_of_one_folder_get_distinct_pages(tmp_path):
    a = trace_doc(file="traces/two-ranks/rank-0.json.gz")
    b = trace_doc(file="traces/two-ranks/rank-1.json.gz")
    c = trace_doc(file="other/train.json")
    d = trace_doc(file="again/train.json")
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", a, b, c, d), "--out", str(out)]) == 0
    assert {p.name for p in out.glob("*.md")} == {
        "two-ranks-rank-0.md",
        "two-ranks-rank-1.md",
        "train.md",
        "train-2.md",
        "index.md",
    }


def test_sync_cost_recovers_a_known_line():
    # blocked = 40 us + 1.0 x queued exactly: the fit must give both, with tight intervals.
    q = np.array([0.0, 10.0, 100.0, 500.0, 2000.0])
    t = trace_doc(syncs=[sync("aten::item", 40.0 + x, x, i * 10.0) for i, x in enumerate(q)])
    cost = stats.sync_cost([("a", {"traces": [t]})])
    assert cost.n == 5
    assert cost.base_us() == pytest.approx(40.0, abs=1e-6)
    assert cost.per_queued() == pytest.approx(1.0, abs=1e-9)
    assert cost.median_blocked_us == pytest.approx(140.0)
    assert cost.idle_n == 1 and cost.idle_median_blocked_us == pytest.approx(
        40.0
    )  # the call with nothing queued
    text = " ".join(prose.sync_cost_markdown(cost))
    assert "blocked = 40.0 us" in text and "1.000" in text


def test_sync_cost_with_noise_has_an_interval_around_the_truth():
    rng = np.random.default_rng(1)
    q = rng.uniform(0, 1000, 200)
    b = 25.0 + 0.9 * q + rng.normal(0, 5, q.size)
    t = trace_doc(
        syncs=[
            sync("aten::item", float(x), float(y), float(i)) for i, (x, y) in enumerate(zip(b, q))
        ]
    )
    cost = stats.sync_cost([("a", {"traces": [t]})])
    lo, hi = cost.fit.interval("base_us")
    slo, shi = cost.fit.interval("per_queued_us")
    assert lo < 25.0 < hi and hi - lo < 5
    assert slo < 0.9 < shi


def test_sync_cost_too_few_or_none():
    one = trace_doc(syncs=[sync("aten::item", 40.0, 0.0, 0.0)])
    cost = stats.sync_cost([("a", {"traces": [one]})])
    assert cost.fit is None and "too few" in prose.fit_note(cost)
    assert stats.sync_cost([("a", {"traces": [trace_doc(syncs=[])]})]) is None


def test_a_fit_through_four_calls_is_not_shown_and_says_its_n():
    # Four calls fit a line exactly enough to print one, with a slope that means nothing.
    four = trace_doc(
        syncs=[
            sync("aten::item", b, q, float(i))
            for i, (b, q) in enumerate([(50.0, 0.0), (20.0, 10.0), (90.0, 30.0), (10.0, 40.0)])
        ]
    )
    cost = stats.sync_cost([("a", {"traces": [four]})])
    assert (
        cost.fit is None and "n = 4" in prose.fit_note(cost) and "not shown" in prose.fit_note(cost)
    )
    text = " ".join(prose.sync_cost_markdown(cost))
    assert "Least squares" not in text and "n = 4" in text


def test_a_negative_slope_is_called_out():
    calls = [
        sync("aten::item", 100.0 - q, q, float(i))
        for i, q in enumerate([0.0, 10.0, 20.0, 40.0, 80.0])
    ]
    cost = stats.sync_cost([("a", {"traces": [trace_doc(syncs=calls)]})])
    assert cost.per_queued() < 0
    assert "does not describe these calls" in " ".join(prose.sync_cost_markdown(cost))


def test_a_negative_constant_is_not_called_a_price():
    calls = [
        sync("aten::item", 3.0 * q - 50.0 if q else 5.0, q, float(i))
        for i, q in enumerate([0.0, 100.0, 200.0, 400.0, 800.0, 1600.0])
    ]
    cost = stats.sync_cost([("a", {"traces": [trace_doc(syncs=calls)]})])
    assert cost.base_us() < 0
    assert "no call can cost" in " ".join(prose.sync_cost_markdown(cost))


def test_blocking_copies_are_their_own_figure_and_not_a_sync():
    # One .item(): a D2H copy into pageable memory (blocking copy) + a stream sync.
    calls = [
        sync(
            "aten::_local_scalar_dense",
            30.0,
            5.0,
            10.0,
            api="cudaMemcpyAsync",
            kind="blocking copy",
            reason="pageable",
        ),
        sync("aten::_local_scalar_dense", 20.0, 0.0, 40.0),
    ]
    steps = [step("ProfilerStep#1", 0.0, 1000.0, blocked=20.0, syncs=1, copy=30.0, copies=1)]
    t = trace_doc(syncs=calls, steps=steps)
    page = pages.trace_page(t, "train", "train-steps.png", "a.json")
    assert (
        "blocked in synchronisation 20.0 us (1 call), in blocking copies 30.0 us (1 call: 1 pageable)"
        in page
    )
    assert "cudaMemcpyAsync (blocking copy, pageable) 1 call, 30.0 us blocked" in page
    assert "| aten::_local_scalar_dense | 2 | 2 | 20.0 | 30.0 | 50.0 |" in page
    cost = stats.sync_cost([("a", {"traces": [t]})])
    assert cost.n == 1  # the copy is not a sync


def test_rows_that_do_not_add_up_stop_the_pages(tmp_path, capsys):
    t = trace_doc()
    t["blocking_calls"]["blocked_us"] += 7.0  # the listed calls no longer add up to the total
    _expect_failure(
        tmp_path, capsys, [write_doc(tmp_path / "z.json", t)], "syncs_by_cause blocked_us", "add up"
    )


def _expect_failure(tmp_path, capsys, args, *fragments):
    out = tmp_path / "pages"
    out.mkdir(exist_ok=True)
    (out / "train.md").write_text("previous page\n")
    assert trace_report.main(args + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    for f in fragments:
        assert f in err, err
    assert (out / "train.md").read_text() == "previous page\n"
    assert sorted(p.name for p in out.iterdir()) == ["train.md"]


def test_not_json_names_the_file(tmp_path, capsys):
    good = write_doc(tmp_path / "good.json", trace_doc())
    bad = tmp_path / "bad.json"
    bad.write_text('{"tool": "attribute", "traces": [')
    _expect_failure(tmp_path, capsys, [good, str(bad)], "bad.json", "not valid JSON")


def test_missing_field_names_file_and_field(tmp_path, capsys):
    t = trace_doc()
    del t["steps"][1]["wall_us"]
    _expect_failure(
        tmp_path,
        capsys,
        [write_doc(tmp_path / "x.json", t)],
        "x.json",
        "traces[0].steps[1]",
        "missing field 'wall_us'",
    )


def test_wrong_type_and_wrong_tool_are_named(tmp_path, capsys):
    t = trace_doc()
    t["syncs"][0]["blocked_us"] = "lots"
    _expect_failure(
        tmp_path,
        capsys,
        [write_doc(tmp_path / "y.json", t)],
        "y.json",
        "traces[0].syncs[0]",
        "'blocked_us' must be a finite number",
    )
    other = tmp_path / "bench.json"
    other.write_text(json.dumps({"benchmarks": []}))
    _expect_failure(tmp_path, capsys, [str(other)], "bench.json", '"tool": "attribute"')


def test_committed_pages_add_up():
    # On every real trace's ./attribute output: the blocked figures are the sum of what is listed,
    # and each window's host and GPU parts add up to its wall time (identities the pages print).
    import glob
    import os

    folder = os.path.join(
        os.path.dirname(__file__), "..", "..", "results", "traces", "attribute-json"
    )
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not files:
        pytest.skip("no committed ./attribute output")
    for f in files:
        for t in load_attribution(f)["traces"]:
            b = t["blocking_calls"]
            assert b["sync_us"] == pytest.approx(t["total"]["sync_api_us"], abs=1e-6), f
            assert b["blocking_copy_us"] == pytest.approx(
                t["total"]["blocking_copy_us"], abs=1e-6
            ), f
            assert sum(c["blocked_us"] for c in t["syncs_by_cause"]) == pytest.approx(
                b["blocked_us"], abs=1e-6
            ), f
            assert sum(s["blocked_us"] for s in t["syncs"]) == pytest.approx(
                b["blocked_us"], abs=1e-6
            ), f
            for _, s in stats.step_rows(t) + [("total", t["total"])]:
                host = (
                    s["launch_api_us"]
                    + s["sync_api_us"]
                    + s["blocking_copy_us"]
                    + s["host_rest_us"]
                )
                assert host == pytest.approx(s["wall_us"], abs=1e-6), f
                if t["gpu_events"]:
                    gpu = (
                        s["gpu_busy_us"]
                        + s["idle_host_wait_us"]
                        + s["idle_kernel_wait_us"]
                        + s["idle_other_us"]
                    )
                    assert gpu == pytest.approx(s["wall_us"], abs=1e-6), f


def test_pages_build_from_the_committed_attribute_output(tmp_path):
    # results/traces/attribute-json is what ./attribute wrote for the real traces: the pages
    # must build from it as they are (schema drift between the two shows here).
    import glob
    import os

    folder = os.path.join(
        os.path.dirname(__file__), "..", "..", "results", "traces", "attribute-json"
    )
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not files:
        pytest.skip("no committed ./attribute output")
    assert trace_report.main(files + ["--out", str(tmp_path)]) == 0
    assert (tmp_path / "index.md").exists()
    assert len(list(tmp_path.glob("*-steps.png"))) >= len(files)
    # A queue plot per trace whose timeline has a GPU, and the deep-against-empty figure when
    # the traces hold a GPU-bound and a launch-bound one.
    traces = [t for f in files for t in load_attribution(f)["traces"]]
    with_timeline = sum(1 for t in traces if stats.timeline_gpus(t))
    assert len(list(tmp_path.glob("*-queue.png"))) == with_timeline
    regimes = {t["total"]["queue"]["regime"] for t in traces}
    if {"GPU-bound", "launch-bound"} <= regimes:
        assert (tmp_path / "queue-depth.png").exists()
        assert "(queue-depth.png)" in (tmp_path / "index.md").read_text()


def with_queue(trace, regime, empty_share, p50, p90, device=0):
    """The trace's whole-trace queue: one GPU with these figures, and its regime."""
    gpu = {**QUEUE_GPU, "device": device, "empty_share": empty_share}
    gpu.update(depth_p50=p50, depth_p90=p90, depth_max=max(p90, 1))
    trace["total"]["queue"] = {"regime": regime, "gpus": [gpu], "streams": []}
    return trace


def row_cells(page, first):
    """The cells of the table row whose first cell is `first`."""
    row = next(line for line in page.splitlines() if line.startswith(f"| {first} |"))
    return [c.strip() for c in row.strip("|").split("|")]


# Two rules and two sets of regimes that share no threshold and no regime per step: a page that
# typed either in Python would pass one case at most.
@pytest.mark.parametrize(
    "rule, regimes, words",
    [
        (
            {"launch_bound_empty_share": 0.4, "gpu_bound_empty_share": 0.02, "depth": 7},
            ("launch-bound", "GPU-bound", "GPU-bound"),
            ("for 40% of the window or more", "for under 2% with a median depth of 7 or more"),
        ),
        (
            {"launch_bound_empty_share": 0.3, "gpu_bound_empty_share": 0.1, "depth": 3},
            ("mixed", "launch-bound", "mixed"),
            ("for 30% of the window or more", "for under 10% with a median depth of 3 or more"),
        ),
    ],
)
def test_regime_sentence_and_column_come_from_the_json(tmp_path, rule, regimes, words):
    t = trace_doc()
    t["queue_rule"] = {
        "max_queue": 1024,
        "launch_bound_empty_share": rule["launch_bound_empty_share"],
        "gpu_bound_empty_share": rule["gpu_bound_empty_share"],
        "gpu_bound_median_depth": rule["depth"],
    }
    for s, regime in zip(t["steps"], regimes[:2]):
        s["queue"]["regime"] = regime
    with_queue(t, regimes[2], 0.013, 9, 12, device=3)
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", t), "--out", str(out)]) == 0
    page = (out / "train.md").read_text()
    assert (
        f"Launch queue over the whole trace: **{regimes[2]}**: GPU 3's queue was empty 1.3% of "
        "the time (median depth 9, p90 12)." in page
    )
    for w in words:
        assert w in page
    header = row_cells(page, "step")
    assert header[-1] == "regime"
    assert row_cells(page, "ProfilerStep#1")[-1] == regimes[0]
    assert row_cells(page, "ProfilerStep#2")[-1] == regimes[1]
    assert row_cells(page, "outside the steps")[-1] == "-"  # a difference of windows: no queue
    assert row_cells(page, "**whole trace**")[-1] == regimes[2]
    index = (out / "index.md").read_text()
    header = row_cells(index, "trace")
    assert row_cells(index, "[train](train.md)")[header.index("regime")] == regimes[2]


def cpu_only_trace(file):
    """A trace without GPU events: no GPU queue, and a timeline without GPUs."""
    t = trace_doc(file=file, steps=[], syncs=[])
    t["gpu_events"] = False
    t["total"]["queue"] = {"regime": "no GPU work", "gpus": [], "streams": []}
    t["queue_timeline"]["gpus"] = []
    return t


def test_queue_plot_is_drawn_with_a_timeline_and_skipped_without(tmp_path):
    gpu, cpu = trace_doc(file="a/gpu.json"), cpu_only_trace("b/cpu.json")
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", gpu, cpu), "--out", str(out)]) == 0
    page = (out / "gpu.md").read_text()
    assert (out / "gpu-queue.png").stat().st_size > 10000
    lines = page.splitlines()
    at = lines.index("![launch-queue depth](gpu-queue.png)")
    # The caption: the timeline's window, the axis' unit (the window is 1000 us) and the deepest.
    assert lines[at + 2] == (
        "Each GPU's launch queue over ProfilerStep#1: the pieces of GPU work (kernels, copies, "
        "sets) queued or running, against time from the window's start in us (microseconds); "
        "deepest 2."
    )
    assert not (out / "cpu-queue.png").exists()
    cpu_page = (out / "cpu.md").read_text()
    assert "queue.png" not in cpu_page and "## The launch queue over one step" not in cpu_page
    assert "Launch queue over the whole trace: **no GPU work**: no GPU's queue held any work." in (
        cpu_page
    )


def test_queue_figure_sets_the_deepest_gpu_bound_beside_the_emptiest_launch_bound(tmp_path):
    traces = [
        with_queue(trace_doc(file="x/deep.json"), "GPU-bound", 0.01, 40, 60),
        with_queue(trace_doc(file="x/deeper.json"), "GPU-bound", 0.03, 300, 400),
        with_queue(trace_doc(file="x/starved.json"), "launch-bound", 0.9, 0, 1),
        with_queue(trace_doc(file="x/half.json"), "launch-bound", 0.6, 0, 2),
        with_queue(trace_doc(file="x/between.json"), "mixed", 0.99, 0, 0),
        cpu_only_trace("x/cpu.json"),
    ]
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", *traces), "--out", str(out)]) == 0
    assert (out / "queue-depth.png").stat().st_size > 10000
    index = (out / "index.md").read_text()
    assert "![launch-queue depth, deep against empty](queue-depth.png)" in index
    assert (
        "[deeper](deeper.md) (GPU-bound: GPU 0's queue empty 3.0% of the time, median depth 300)"
        in index
    )
    assert (
        "[starved](starved.md) (launch-bound: GPU 0's queue empty 90.0% of the time, median "
        "depth 0)" in index
    )
    assert "each sync waits out the work queued ahead of it" in index


def test_no_queue_figure_without_both_regimes(tmp_path):
    traces = [
        with_queue(trace_doc(file="x/starved.json"), "launch-bound", 0.9, 0, 1),
        with_queue(trace_doc(file="x/between.json"), "mixed", 0.1, 3, 5),
    ]
    out = tmp_path / "pages"
    assert trace_report.main([write_doc(tmp_path / "a.json", *traces), "--out", str(out)]) == 0
    assert not (out / "queue-depth.png").exists()
    assert "queue-depth.png" not in (out / "index.md").read_text()
