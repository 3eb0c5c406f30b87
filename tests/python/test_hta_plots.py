"""visualize=True (python/iris_trace/plots.py): HTA's charts with plotly where it is installed,
with matplotlib where only it is, and an ImportError saying how to get one where neither is.
Each chart is caught at its show()."""

import sys

import pandas as pd
import pytest
from conftest import DATA

ALEXNET = str(DATA / "traces" / "a100-alexnet-syncs.json.gz")
TWO_RANKS = str(DATA / "traces" / "two-ranks")


def _hide(monkeypatch, *modules):
    """Makes `import MODULE` raise ImportError for each module named."""
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


@pytest.fixture
def plotly_figures(monkeypatch):
    pytest.importorskip("plotly")
    import plotly.graph_objects as go

    shown = []
    monkeypatch.setattr(go.Figure, "show", lambda fig, **kw: shown.append((fig, kw)))
    return shown


@pytest.fixture
def matplotlib_figures(monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _hide(monkeypatch, "plotly", "plotly.express")
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    yield shown
    plt.close("all")


def _title(fig):
    return fig.layout.title.text


def test_plotly_draws_htas_charts(plotly_figures):
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=ALEXNET)
    a.get_temporal_breakdown(visualize=True)
    idle, _ = a.get_idle_time_breakdown(visualize=True)
    a.get_cuda_kernel_launch_stats(visualize=True)
    titles = [_title(f) for f, _ in plotly_figures]
    assert titles[0] == "Temporal breakdown across ranks"
    assert titles[1] == "Idle time breakdown on rank 0 per CUDA stream"
    # HTA's three launch histograms: short kernels, runtime outliers, launch delay outliers.
    assert titles[2].startswith("Short GPU kernels") and titles[4].startswith("Launch Delay")
    assert len(plotly_figures) == 5
    temporal = plotly_figures[0][0]
    assert {t.name for t in temporal.data} == {
        "idle_time_pctg",
        "compute_time_pctg",
        "non_compute_time_pctg",
    }
    # HTA's plot turns the stream column into text, in the frame it returns too.
    assert pd.api.types.is_string_dtype(idle["stream"])


def test_plotly_kernel_breakdown_pie_then_each_kernel(plotly_figures):
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=ALEXNET)
    types, kernels = a.get_gpu_kernel_breakdown(visualize=True, image_renderer="json")
    pie, *bars = plotly_figures
    assert _title(pie[0]) == "Kernel Type Percentage Across All Ranks"
    assert pie[0].data[0].type == "pie" and pie[1] == {"renderer": "json"}
    named = kernels[kernels["name"] != "others"][["kernel_type", "name"]].drop_duplicates()
    assert len(bars) == len(named) > 0
    assert all(_title(f).startswith('Kernel type "') for f, _ in bars)


def test_plotly_stragglers_and_overlap(plotly_figures):
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=TWO_RANKS)
    assert a.get_potential_stragglers(visualize=True) == [0, 1]
    a.get_comm_comp_overlap(visualize=True)
    (stragglers, _), (overlap, _) = plotly_figures
    assert _title(stragglers) == "Potential Stragglers"
    assert {t.name for t in stragglers.data} <= {"Yes", "No"} and "Yes" in {
        t.name for t in stragglers.data
    }
    assert _title(overlap) == "Computation-Communication Overlap"


def test_matplotlib_where_plotly_is_missing(matplotlib_figures):
    from iris_trace.hta import TraceAnalysis

    a = TraceAnalysis(trace_dir=ALEXNET)
    with pytest.warns(UserWarning, match=r"plotly is not installed.*iris-trace\[plot\]"):
        a.get_temporal_breakdown(visualize=True)
    idle, _ = a.get_idle_time_breakdown(visualize=True)
    a.get_cuda_kernel_launch_stats(visualize=True)
    a.get_gpu_kernel_breakdown(visualize=True)
    assert len(matplotlib_figures) == 4 and all(f.axes for f in matplotlib_figures)
    assert pd.api.types.is_string_dtype(idle["stream"])
    b = TraceAnalysis(trace_dir=TWO_RANKS)
    assert b.get_potential_stragglers(visualize=True) == [0, 1]
    fig = matplotlib_figures[-1]
    assert fig.texts[0].get_text() == "Potential Stragglers"
    assert len([bar for ax in fig.axes for bar in ax.patches]) >= 2


def test_neither_library_says_how_to_get_one(monkeypatch):
    from iris_trace.hta import TraceAnalysis

    _hide(monkeypatch, "plotly", "plotly.express", "matplotlib", "matplotlib.pyplot")
    a = TraceAnalysis(trace_dir=ALEXNET)
    with pytest.raises(ImportError, match=r"pip install 'iris-trace\[plot\]'.*visualize=False"):
        a.get_temporal_breakdown(visualize=True)
    assert not a.get_temporal_breakdown(visualize=False).empty
