"""The torch.profiler hook: each cycle's trace saved as tensorboard_trace_handler names it, and
./attribute's table for it printed."""

import io

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")


def test_report_saves_and_prints(tmp_path):
    import iris_trace

    out = io.StringIO()
    handler = iris_trace.report(str(tmp_path / "log"), worker_name="w", file=out)
    x = torch.ones(64, 64)
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=2)
    with torch.profiler.profile(schedule=schedule, on_trace_ready=handler) as prof:
        for _ in range(6):
            (x @ x).sum().item()
            prof.step()
    files = sorted((tmp_path / "log").iterdir())
    assert len(files) == 2 and len(handler.paths) == 2
    assert all(f.name.startswith("w.") and f.name.endswith(".pt.trace.json") for f in files)
    text = out.getvalue()
    assert str(iris_trace.attribute(handler.paths[-1])) in text
    assert text.count("iris_trace: ") == 2
    assert handler.last.steps["step"].astype(str).str.startswith("ProfilerStep#").any()
