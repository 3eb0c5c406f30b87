"""analysis.replay_report: ./attribute's replay text verbatim per trace, read through the
iris_trace package, with HTA's critical path matched to each window beside it."""

import json
import os

import iris_trace
import pytest

from analysis import replay_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVENT_SYNC = "tests/data/traces/a100-event-sync.json.gz"  # as the page names it, from ROOT
WHAT_IFS = ["no-syncs", "log-every=1,2,never"]


@pytest.fixture(autouse=True)
def from_the_root(monkeypatch):
    """The traces named as the committed pages name them: from the repository root."""
    monkeypatch.chdir(ROOT)


def hta_doc(path, traces):
    path.write_text(json.dumps({"hta_version": "0.5.0", "traces": traces}))
    return str(path)


def row(window_us, critical_path_us, instance=0, ok=True):
    return {
        "annotation": "ProfilerStep",
        "instance": instance,
        "window_us": window_us,
        "critical_path_us": critical_path_us,
        "ok": ok,
    }


def test_page_is_the_replay_text_with_hta_matched_by_window(tmp_path):
    # HTA numbered a GPU annotation as an instance too: matched by the window's length (3154 us).
    rows = [row(300.0, 250.0), row(3154.4, 2401.0, instance=1)]
    hta = hta_doc(tmp_path / "hta.json", {"a100-event-sync": {"ranks": {"0": rows}}})
    out, js = tmp_path / "pages", tmp_path / "json"
    args = [EVENT_SYNC, "--what-if", WHAT_IFS[0], "--what-if", WHAT_IFS[1]]
    assert replay_report.main(args + ["--json-out", str(js), "--hta", hta, "--out", str(out)]) == 0
    page = (out / "replay.md").read_text()
    result = iris_trace.attribute(EVENT_SYNC, what_if=WHAT_IFS)
    assert f"```text\n{str(result).rstrip()}\n```" in page  # verbatim, as ./attribute prints it
    assert "--what-if no-syncs --what-if log-every=1,2,never TRACE" in page
    assert "| a100-event-sync | ProfilerStep#100 | 3154 | 3154 | 2401 | 0.76 |" in page
    assert (js / "a100-event-sync.json").read_text() == result.json
    assert (out / "replay-log-every.png").stat().st_size > 1000
    assert "![log-every curves](replay-log-every.png)" in page


def test_hta_that_failed_or_left_a_window_out_is_said():
    windows = [{"name": "ProfilerStep#1", "measured_us": 1000.0, "replayed_us": 1001.0}] * 2
    r = {"replay": {"windows": windows}}
    failed = {("job", None): "TypeError: no kernels"}
    assert replay_report.hta_rows([("job", r, ("job", 0))], failed)[0][4:] == [
        "HTA failed: TypeError",
        "-",
    ]
    one = {("job", 0): [row(1000.4, 760.0)]}
    got = replay_report.hta_rows([("job", r, ("job", 0))], one)
    assert [g[4:] for g in got] == [["760", "0.76"], ["-", "-"]]  # one instance, one window
    bad = {("job", 0): [row(1000.0, None, ok=False)]}
    assert replay_report.hta_rows([("job", r, ("job", 0))], bad)[0][4] == "HTA failed: no path"


def test_rank_files_are_named_by_their_folder():
    assert replay_report.hta_key("t/two-ranks/rank-1.json.gz", 1) == ("two-ranks", 1)
    assert replay_report.trace_name("t/two-ranks/rank-1.json.gz", 1) == "two-ranks (rank 1)"
    assert replay_report.trace_name("t/job.pt.trace.json.gz", 0) == "job"


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.json.gz"], "missing.json.gz"),
        ([EVENT_SYNC, "--what-if", "no-such-thing"], "no-such-thing"),
        ([EVENT_SYNC, "--hta", "none.json"], "none.json: cannot read"),
    ],
)
def test_bad_input_exits_2_naming_it_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "pages"
    assert replay_report.main(args + ["--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "doc, message",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"traces": {}}), "top level: missing field 'hta_version'"),
        (
            json.dumps({"hta_version": "0.5.0", "traces": {"j": {"ranks": {"0": [{"ok": 1}]}}}}),
            "traces.j.ranks.0[0]: missing field 'window_us'",
        ),
        (
            json.dumps(
                {"hta_version": "0.5.0", "traces": {"j": {"ranks": {"0": [{"window_us": "1"}]}}}}
            ),
            "traces.j.ranks.0[0]: field 'window_us' must be a finite number, got '1'",
        ),
    ],
)
def test_a_bad_hta_file_names_the_field(tmp_path, capsys, doc, message):
    (tmp_path / "hta.json").write_text(doc)
    args = [EVENT_SYNC, "--hta", str(tmp_path / "hta.json"), "--out", str(tmp_path / "o")]
    assert replay_report.main(args) == 2
    assert message in capsys.readouterr().err
