"""analysis.replay_report on small synthetic `./attribute --what-if --json` documents."""

import json

import pytest

from analysis import replay_report
from analysis.attribute_json import schema


def window(name, measured, replayed, predicted=None, bound=None):
    w = {
        "name": name,
        "measured_us": measured,
        "replayed_us": replayed,
        "bound": bound if bound is not None else [{"resource": "CPU thread 7", "us": replayed}],
        "measured_pace_us": measured,
        "replayed_pace_us": replayed,
    }
    if predicted is None:
        w["error"] = (replayed - measured) / measured if measured else 0.0
    else:
        w.update(
            predicted_us=predicted,
            predicted_pace_us=predicted,
            saving_us=replayed - predicted,
            error=(predicted - measured) / measured if measured else 0.0,
        )
    return w


def scenario(windows, total, **extra):
    return dict(windows=windows, total=total, **extra)


def replay_doc(file="tests/data/traces/job.json.gz", rank=0, steps=True):
    names = ["ProfilerStep#1", "ProfilerStep#2"] if steps else ["whole trace"]
    replay = [window(n, 1000.0, 1000.0 + i) for i, n in enumerate(names)]
    typical = [window(n, 1000.0, 1000.0 + i, predicted=900.0) for i, n in enumerate(names)]
    no_syncs = [window(n, 1000.0, 1000.0 + i, predicted=800.0) for i, n in enumerate(names)]
    total = window("total", 2000.0, 2001.0)
    curve = {
        "what_if": "log-every=1,2,never",
        "selector": "blocking syncs",
        "sites": 2,
        "replayed_us": 1000.5,
        "never_us": 800.0,
        "saving_per_sync_us": 200.5,
        "isolated_cost_us": 200.0,
        "isolated_samples": 2,
        "blocked_per_sync_us": 250.0,
        "queued_per_sync_us": 10.0,
        "max_deviation": 0.01,
        "linear": True,
        "why": "Linear: every kept sync adds about 200 us, however many others are kept.",
        "points": [
            {
                "every": 1,
                "kept": 2,
                "kept_per_window": 1.0,
                "predicted_us": 1000.5,
                "extrapolated": False,
            },
            {
                "every": 2,
                "kept": 1,
                "kept_per_window": 0.5,
                "predicted_us": 900.0,
                "extrapolated": False,
            },
            {
                "every": "never",
                "kept": 0,
                "kept_per_window": 0.0,
                "predicted_us": 800.0,
                "extrapolated": False,
            },
        ],
    }
    return {
        "file": file,
        "rank": rank,
        "windows": "steps" if steps else "whole trace",
        "graph": {"host_nodes": 10},
        "replay": scenario(replay, total, median_error=0.0005, max_error=0.001, target_met=True),
        "typical_delays": scenario(
            typical,
            window("total", 2000.0, 2001.0, predicted=1800.0),
            median_error=0.1,
            max_error=0.1,
            target_met=False,
        ),
        "what_ifs": [
            scenario(
                no_syncs,
                window("total", 2000.0, 2001.0, predicted=1600.0),
                name="no-syncs",
                sites=2,
                sites_kept=0,
            )
        ],
        "log_every": [curve],
        "notes": ["3 GPU operations have no launch call"],
    }


def write(path, *replays, doc=None):
    path.write_text(
        json.dumps(
            doc
            if doc is not None
            else {
                "tool": "attribute",
                "version": schema.VERSION,
                "what_if": [],
                "replays": list(replays),
            }
        )
    )
    return str(path)


def hta_doc(path, rows):
    path.write_text(json.dumps({"hta_version": "0.5.0", "traces": {"job": {"ranks": {"0": rows}}}}))
    return str(path)


def test_page_has_every_table_and_hta_matched_by_window(tmp_path):
    src = write(tmp_path / "r.json", replay_doc())
    # HTA left step 1 out and numbered a GPU annotation as an instance: matched by window length.
    hta = hta_doc(
        tmp_path / "hta.json",
        [
            {
                "annotation": "ProfilerStep",
                "instance": 0,
                "window_us": 300.0,
                "critical_path_us": 250.0,
                "ok": True,
            },
            {
                "annotation": "ProfilerStep",
                "instance": 1,
                "window_us": 1000.4,
                "critical_path_us": 760.0,
                "ok": True,
            },
        ],
    )
    out = tmp_path / "pages"
    assert replay_report.main([src, "--hta", hta, "--out", str(out)]) == 0
    page = (out / "replay.md").read_text()
    assert "| job | ProfilerStep#1 | 1000 | 1000 | +0.00% | 900 | -10.00% | 760 | 0.76 |" in page
    assert "| job | ProfilerStep#2 | 1000 | 1001 | +0.10% | 900 | -10.00% | - | - |" in page
    assert (
        "| job | 2 steps | median <= 2%, every step <= 5% | 0.05% / 0.10% | met | 10.00% / 10.00% | **not met** |"
        in page
    )
    assert "- **job**: 3 GPU operations have no launch call." in page
    assert "| job | `no-syncs` | 2001 | 1600 | 401 | +20.04% |" in page
    assert "Linear: every kept sync adds about 200 us" in page
    assert (out / "replay-log-every.png").stat().st_size > 1000


def test_rank_files_are_named_by_their_folder(tmp_path):
    src = write(
        tmp_path / "r.json", replay_doc(file="t/two-ranks/rank-1.json.gz", rank=1, steps=False)
    )
    out = tmp_path / "pages"
    assert replay_report.main([src, "--out", str(out)]) == 0
    assert "| two-ranks (rank 1) | whole trace |" in (out / "replay.md").read_text()
    assert replay_report.hta_key("t/two-ranks/rank-1.json.gz", 1) == ("two-ranks", 1)


@pytest.mark.parametrize(
    "break_it, message",
    [
        (lambda d: d.pop("replays"), "expected `./attribute --what-if --json` output"),
        (lambda d: d.update(version=1), "field 'version' must be 2"),
        (
            lambda d: d["replays"][0]["replay"]["windows"][0].pop("error"),
            "replays[0].replay.windows[0]: missing field 'error'",
        ),
        (
            lambda d: d["replays"][0]["what_ifs"][0]["total"].update(predicted_us="x"),
            "replays[0].what_ifs[0].total: field 'predicted_us' must be a finite number",
        ),
        (
            lambda d: d["replays"][0]["log_every"][0]["points"][0].update(every="sometimes"),
            "field 'every' must be a count or 'never'",
        ),
        (
            lambda d: d["replays"][0].update(windows="epochs"),
            "field 'windows' must be 'steps' or 'whole trace'",
        ),
    ],
)
def test_bad_input_exits_2_naming_the_field_and_writes_nothing(tmp_path, capsys, break_it, message):
    doc = {
        "tool": "attribute",
        "version": schema.VERSION,
        "what_if": [],
        "replays": [replay_doc()],
    }
    break_it(doc)
    src = write(tmp_path / "bad.json", doc=doc)
    out = tmp_path / "pages"
    assert replay_report.main([src, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and message in err
    assert not out.exists()


def test_not_json_and_missing_hta_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert replay_report.main([str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    good = write(tmp_path / "r.json", replay_doc())
    assert (
        replay_report.main(
            [good, "--hta", str(tmp_path / "none.json"), "--out", str(tmp_path / "o")]
        )
        == 2
    )
    assert "none.json: cannot read" in capsys.readouterr().err
