"""analysis.replay_prediction: the replay's predictions beside the measured ItemSync rows."""

import json

import pytest

from analysis import replay_prediction
from analysis.summary import ConfigStats


def stats_row(interval, samples, device="cpu"):
    s = sorted(samples)
    return ConfigStats(
        device,
        interval,
        0,
        120,
        20000,
        20000 if interval == 1 else 0,
        0,
        len(s),
        s[len(s) // 2],
        s[0],
        s[-1],
        tuple(samples),
    )


def validation_doc(path, replayed=100.0, never=90.0):
    # A 10 us `log` per epoch: never saves 10 us per epoch, every 100 saves 9.9.
    points = [
        {"every": 1, "predicted_us": replayed},
        {"every": 100, "predicted_us": never + (replayed - never) / 100},
        {"every": 1000, "predicted_us": never + (replayed - never) / 1000},
        {"every": "never", "predicted_us": never},
    ]
    doc = {
        "tool": "attribute",
        "version": 2,
        "replays": [
            {
                "replay": {"windows": [{}] * 5},
                "log_every": [{"replayed_us": replayed, "points": points, "why": "Linear."}],
            }
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def test_predicted_rows_beside_the_measured_ones(tmp_path):
    validation_doc(tmp_path / "replay" / "validation-cpu.json")
    # Every epoch 2.0 s; never measured at 1.80 s: 10 us x 20000 epochs = 0.2 s predicted saving.
    stats = [
        stats_row(1, [1.99, 2.00, 2.01]),
        stats_row(0, [1.79, 1.80, 1.81]),
        stats_row(100, [1.80, 1.81, 1.82]),
    ]
    text = "\n".join(replay_prediction.section(str(tmp_path), stats))
    assert "| never | 1.800 (1.790-1.810, n=3) |" in text
    assert "| 1.800 | 10.000 | agrees (+0.0%; the ranges meet, both narrower than 10%) |" in text
    assert (
        "| 100 | 1.810 (1.800-1.820, n=3) |" in text and "| 1.802 | 9.900 | agrees (-0.4%;" in text
    )
    assert "| 1000 | not measured | - | 1.800 | 9.990 | - |" in text
    assert "cannot tell a right prediction" not in text  # 200 ms predicted against a 20 ms spread


def test_says_when_the_noise_drowns_the_prediction(tmp_path):
    validation_doc(tmp_path / "replay" / "validation-cpu.json", replayed=100.0, never=99.9)
    stats = [stats_row(1, [1.5, 2.0, 2.5]), stats_row(0, [1.6, 2.1, 2.4])]
    text = "\n".join(replay_prediction.section(str(tmp_path), stats))
    assert "at most 2.0 ms" in text and "cannot tell a right prediction from a wrong one" in text
    assert "| never | 2.100 (1.600-2.400, n=3) |" in text and "inconclusive (" in text


def test_pending_device_and_bad_file(tmp_path):
    stats = [stats_row(1, [2.0, 2.0]), stats_row(1, [1.0, 1.0], device="cuda")]
    validation_doc(tmp_path / "replay" / "validation-cpu.json")
    text = "\n".join(replay_prediction.section(str(tmp_path), stats))
    assert "- cuda: not replayed yet (run `experiments/replay_validation.sh" in text
    (tmp_path / "replay" / "validation-cpu.json").write_text('{"replays": []}')
    with pytest.raises(replay_prediction.ValidationError, match="validation-cpu.json: expected"):
        replay_prediction.section(str(tmp_path), stats)
