"""TraceAnalysis.critical_path_analysis: HTA's (graph, success) shape with summary() as HTA's
(bound_by -> % of the path), from the diagnosis' path; checked against HTA's own summaries of
the same windows, recorded by experiments/hta_critical_path.py in both releases."""

import json

import pytest
from conftest import REPO, TRACES

RECORDED = {
    "0.5.0": REPO / "results" / "traces" / "hta-critical-path.json",
    "0.6.1": REPO / "results" / "traces" / "hta-critical-path-0.6.1.json",
}
# Traces where the host holds up every window, by the hand diagnosis (docs/diagnosis.md,
# sections 3 and 7) and by both HTA releases: the path's largest class must be cpu_bound.
HOST_BOUND = [
    "a100-alexnet-syncs",
    "a100-event-sync",
    "a100-event-sync-multistream",
    "gp100-steps-annotations",
    "mi250-rocm",
]


def analyzer(stem):
    from iris_trace.hta import TraceAnalysis

    path = TRACES / f"{stem}.json.gz"
    return TraceAnalysis(trace_dir=str(path if path.exists() else TRACES / stem))


def summary(a, rank, window):
    annotation = "" if window["annotation"] == "(whole trace)" else window["annotation"]
    graph, ok = a.critical_path_analysis(rank, annotation, window["instance"])
    assert ok
    return graph, graph.summary()


def test_summary_is_htas_series(capsys):
    a = analyzer("a100-event-sync")
    graph, s = summary(a, 0, {"annotation": "ProfilerStep", "instance": 0})
    assert "Critical Path broken down by boundedness" in capsys.readouterr().out
    assert s.name == "duration" and s.index.name == "bound_by"
    assert list(s.index) == sorted(s.index)
    assert s.sum() == pytest.approx(100)
    assert set(s.index) <= {
        "",
        "cpu_bound",
        "data_loading",
        "gpu_compute_bound",
        "gpu_communication_bound",
        "gpu_kernel_kernel_overhead",
        "gpu_kernel_launch_overhead",
    }
    lo, hi = graph.window_us
    assert hi > lo


def test_missing_annotation_is_none_and_bad_arguments_raise():
    a = analyzer("a100-event-sync")
    assert a.critical_path_analysis(0, "NoSuchAnnotation", 0) is None
    with pytest.raises(ValueError, match="expected 0 to"):
        a.critical_path_analysis(0, "ProfilerStep", 99)
    with pytest.raises(KeyError):
        a.critical_path_analysis(5, "ProfilerStep", 0)
    wrong = [((1, 0), ValueError), ((0, 1, 2), ValueError), (True, TypeError), ("1", TypeError)]
    for instance, error in wrong + [(0.7, TypeError), ((0, 1.5), TypeError)]:
        with pytest.raises(error, match="instance_id"):
            a.critical_path_analysis(0, "ProfilerStep", instance)
    with pytest.raises(TypeError, match="annotation"):
        a.critical_path_analysis(0, None, 0)
    with pytest.raises(TypeError, match="data_load_events"):
        a.critical_path_analysis(0, "ProfilerStep", 0, "cudaMemcpy")  # one string, not a list
    with pytest.raises(ValueError, match="not a regular expression"):
        a.critical_path_analysis(0, "ProfilerStep", 0, ["("])


def test_data_load_events_are_pythons_regexes_over_the_host_time(capsys):
    a = analyzer("a100-event-sync")
    w = {"annotation": "ProfilerStep", "instance": 0}
    _, plain = summary(a, 0, w)
    graph, _ = a.critical_path_analysis(0, "ProfilerStep", 0, ["(?i)CUDA"])  # Python's syntax
    loads = graph.summary()
    assert "data_loading" not in plain and loads["data_loading"] > 0
    assert loads["cpu_bound"] + loads["data_loading"] == pytest.approx(plain["cpu_bound"])
    assert loads.sum() == pytest.approx(100)


@pytest.mark.parametrize("release", sorted(RECORDED))
@pytest.mark.parametrize("stem", HOST_BOUND)
def test_host_bound_windows_are_cpu_bound_as_in_hta(stem, release):
    recorded = json.loads(RECORDED[release].read_text())["traces"][stem]["ranks"]
    a = analyzer(stem)
    for rank, windows in recorded.items():
        for w in windows:
            assert w["ok"], w["error"]
            assert max(w["bound_by"], key=w["bound_by"].get) == "cpu_bound"
            _, s = summary(a, int(rank), w)
            assert s.idxmax() == "cpu_bound", (stem, w["instance"], s.to_dict())
