"""analysis.trace_report: pages that are ./attribute's own text under the plots drawn from its
--json, read through the iris_trace package; the index; what one sync cost (small synthetic
documents with known answers); and the committed pages rebuilt from the traces."""

import glob
import json
import os

import iris_trace
import numpy as np
import pytest

from analysis import trace_report
from analysis.trace_pages import pages, plots, prose, stats

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMITTED = os.path.join(ROOT, "results", "traces")
EVENT_SYNC = "tests/data/traces/a100-event-sync.json.gz"  # as the pages name it, from ROOT
CPU_ONLY = "tests/data/traces/cpu-only.json.gz"
TWO_RANKS = "tests/data/traces/two-ranks"


@pytest.fixture(autouse=True)
def from_the_root(monkeypatch):
    """The traces named as the committed pages name them: from the repository root."""
    monkeypatch.chdir(ROOT)


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


def test_a_page_is_attributes_text_under_its_plots(tmp_path, capsys):
    out, js = tmp_path / "pages", tmp_path / "pages" / "attribute-json"
    assert trace_report.main([EVENT_SYNC, CPU_ONLY, "--json-out", str(js), "--out", str(out)]) == 0
    result = iris_trace.attribute(EVENT_SYNC)
    page = (out / "a100-event-sync.md").read_text()
    assert f"```text\n{str(result).rstrip()}\n```" in page  # verbatim, as ./attribute prints it
    assert (js / "a100-event-sync.json").read_text() == result.json
    assert stats.load_attribution(js / "a100-event-sync.json") == result.to_dict()
    assert "([a100-event-sync.json](attribute-json/a100-event-sync.json))" in page
    lines = page.splitlines()
    at = lines.index("![launch-queue depth](a100-event-sync-queue.png)")
    # The caption: the timeline's window, the axis' unit (the step is 3154 us) and the deepest.
    assert lines[at + 2] == (
        "Each GPU's launch queue over ProfilerStep#100: the pieces of GPU work (kernels, copies, "
        "sets) queued or running, against time from the window's start in us (microseconds); "
        "deepest 1."
    )
    assert "## What one synchronisation call cost here" in page
    assert (out / "a100-event-sync-steps.png").stat().st_size > 10000
    # No GPU work: the step plot, no queue plot nor link, no sync to cost.
    cpu_page = (out / "cpu-only.md").read_text()
    assert (out / "cpu-only-steps.png").exists() and not (out / "cpu-only-queue.png").exists()
    assert "queue.png" not in cpu_page and "cost here" not in cpu_page
    index = (out / "index.md").read_text()
    header = row_cells(index, "trace")
    row = row_cells(index, "[a100-event-sync](a100-event-sync.md)")
    assert row[header.index("regime")] == result.to_dict()["traces"][0]["total"]["queue"]["regime"]
    assert row[header.index("median us per sync")] == "8.0"
    assert "a100-event-sync.json (3)" in capsys.readouterr().out  # the sync cost, printed
    assert not list(out.glob("*.tmp*"))


def test_a_folder_of_ranks_is_one_page_and_a_clash_gets_a_number(tmp_path):
    out = tmp_path / "pages"
    assert trace_report.main([TWO_RANKS, EVENT_SYNC, EVENT_SYNC, "--out", str(out)]) == 0
    assert {p.name for p in out.glob("*.md")} == {
        "two-ranks.md",
        "a100-event-sync.md",
        "a100-event-sync-2.md",
        "index.md",
    }
    page = (out / "two-ranks.md").read_text()
    for rank in (0, 1):
        assert f"## Rank {rank}: `{TWO_RANKS}/rank-{rank}.json.gz`" in page
        assert f"![per-step breakdown](two-ranks-rank-{rank}-steps.png)" in page
        assert (out / f"two-ranks-rank-{rank}-queue.png").exists()
    assert f"```text\n{str(iris_trace.attribute(TWO_RANKS)).rstrip()}\n```" in page
    index = (out / "index.md").read_text()
    assert index.count("| [two-ranks](two-ranks.md) |") == 2  # one row per rank


def test_committed_pages_are_what_the_traces_give(tmp_path):
    out = tmp_path / "traces"
    js = out / "attribute-json"
    assert trace_report.main([EVENT_SYNC, CPU_ONLY, "--json-out", str(js), "--out", str(out)]) == 0
    for name in ("a100-event-sync", "cpu-only"):
        with open(os.path.join(COMMITTED, f"{name}.md")) as f:
            assert (out / f"{name}.md").read_text() == f.read(), f"results/traces/{name}.md"


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


def test_a_missing_or_bad_trace_exits_2_and_writes_nothing(tmp_path, capsys):
    _expect_failure(tmp_path, capsys, [EVENT_SYNC, str(tmp_path / "gone.json")], "gone.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    _expect_failure(tmp_path, capsys, [EVENT_SYNC, str(bad)], "bad.json")


class FakeResult:
    def __init__(self, doc):
        self.doc = doc

    def to_dict(self):
        return self.doc


def test_rows_that_do_not_add_up_stop_the_pages(tmp_path, capsys, monkeypatch):
    t = trace_doc()
    t["blocking_calls"]["blocked_us"] += 7.0  # the listed calls no longer add up to the total
    monkeypatch.setattr(iris_trace, "attribute", lambda path: FakeResult({"traces": [t]}))
    _expect_failure(tmp_path, capsys, ["z.json"], "syncs_by_cause blocked_us", "add up")


def test_an_attribution_is_read_through_the_package(tmp_path):
    """What the main report reads (stats.load_attribution): iris_trace.schema's checks, the
    version the package was built with, and a replay refused where an attribution is expected."""
    with open(os.path.join(ROOT, "src/trace/export/attribute_json_version.txt")) as f:
        version = int(f.read())
    doc = iris_trace.attribute(EVENT_SYNC).to_dict()
    assert doc["version"] == version
    bad = tmp_path / "x.json"
    doc["traces"][0]["syncs"][0]["blocked_us"] = "lots"
    bad.write_text(json.dumps(doc))
    with pytest.raises(iris_trace.TraceError, match=r"x\.json: .*blocked_us"):
        stats.load_attribution(bad)
    bad.write_text(json.dumps({**doc, "version": version + 1}))
    with pytest.raises(iris_trace.TraceError, match=r"x\.json: version"):
        stats.load_attribution(bad)
    replay = tmp_path / "r.json"
    iris_trace.attribute(EVENT_SYNC, replay=True).save_json(replay)
    with pytest.raises(iris_trace.TraceError, match="where a document is expected"):
        stats.load_attribution(replay)


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
    stats.check_blocking_totals(t)
    assert stats.sync_cost([("a", {"traces": [t]})]).n == 1  # the copy is not a sync
    assert stats.median_sync_us(t) == 20.0


def row_cells(page, first):
    """The cells of the table row whose first cell is `first`."""
    row = next(line for line in page.splitlines() if line.startswith(f"| {first} |"))
    return [c.strip() for c in row.strip("|").split("|")]


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


def test_committed_pages_add_up():
    # On every real trace's ./attribute output: the blocked figures are the sum of what is listed,
    # and each window's host and GPU parts add up to its wall time (identities the pages print).
    files = sorted(glob.glob(os.path.join(ROOT, "results", "traces", "attribute-json", "*.json")))
    if not files:
        pytest.skip("no committed ./attribute output")
    for f in files:
        for t in stats.load_attribution(f)["traces"]:
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


def with_queue(trace, regime, empty_share, p50, p90, device=0):
    """The trace's whole-trace queue: one GPU with these figures, and its regime."""
    gpu = {**QUEUE_GPU, "device": device, "empty_share": empty_share}
    gpu.update(depth_p50=p50, depth_p90=p90, depth_max=max(p90, 1))
    trace["total"]["queue"] = {"regime": regime, "gpus": [gpu], "streams": []}
    return trace


def cpu_only_trace(file):
    """A trace without GPU events: no GPU queue, and a timeline without GPUs."""
    t = trace_doc(file=file, steps=[], syncs=[])
    t["gpu_events"] = False
    t["total"]["queue"] = {"regime": "no GPU work", "gpus": [], "streams": []}
    t["queue_timeline"]["gpus"] = []
    return t


def test_queue_figure_sets_the_deepest_gpu_bound_beside_the_emptiest_launch_bound(tmp_path):
    traces = [
        with_queue(trace_doc(file="x/deep.json"), "GPU-bound", 0.01, 40, 60),
        with_queue(trace_doc(file="x/deeper.json"), "GPU-bound", 0.03, 300, 400),
        with_queue(trace_doc(file="x/starved.json"), "launch-bound", 0.9, 0, 1),
        with_queue(trace_doc(file="x/half.json"), "launch-bound", 0.6, 0, 2),
        with_queue(trace_doc(file="x/between.json"), "mixed", 0.99, 0, 0),
        cpu_only_trace("x/cpu.json"),
    ]
    entries = [(pages.file_stem(t["file"]), t) for t in traces]
    cases = stats.queue_cases(entries)
    assert [stem for stem, _ in cases] == ["deeper", "starved"]
    plots.queue_comparison_plot(*cases, tmp_path / "queue-depth.png")
    assert (tmp_path / "queue-depth.png").stat().st_size > 10000
    index = pages.index_page(entries, None, ("queue-depth.png", *cases))
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
    assert "No blocking sync is listed" in index


def test_no_queue_figure_without_both_regimes():
    traces = [
        with_queue(trace_doc(file="x/starved.json"), "launch-bound", 0.9, 0, 1),
        with_queue(trace_doc(file="x/between.json"), "mixed", 0.1, 3, 5),
    ]
    assert stats.queue_cases([(pages.file_stem(t["file"]), t) for t in traces]) is None
