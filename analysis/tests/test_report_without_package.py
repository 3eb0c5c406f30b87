"""The GPU machine's run makes REPORT.md with a Python that has no iris_trace package (it builds
bench only): the report must import and run there, saying what it cannot read."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# iris_trace made unimportable, as on the GPU machine, before anything of analysis loads.
NO_PACKAGE = "import sys; sys.modules['iris_trace'] = None; "


def run(code):
    return subprocess.run(
        [sys.executable, "-c", NO_PACKAGE + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_report_imports_without_the_package():
    proc = run("import analysis.report, analysis.answer")
    assert proc.returncode == 0, proc.stderr


def test_the_real_gpu_sync_lines_say_what_they_cannot_read():
    proc = run("from analysis import answer; print('\\n'.join(answer.real_gpu_sync_lines()))")
    assert proc.returncode == 0, proc.stderr
    assert "not available here" in proc.stdout and "iris_trace" in proc.stdout
