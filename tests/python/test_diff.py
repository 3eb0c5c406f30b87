"""iris_trace.diff(a, b) is ./attribute --diff A B: the same text and JSON bytes, its tables as
DataFrames; a trace against itself differs in nothing; two programs, or no common steps, are a
TraceError naming both files, with nothing written."""

import math
import subprocess

import pytest
from conftest import DATA, TRACES

PAIRS = DATA / "traces_pairs"
EAGER = PAIRS / "h100-toyblock-eager.json.gz"
DEFAULT = PAIRS / "h100-toyblock-compile-default.json.gz"
GRAPHS = PAIRS / "h100-toyblock-compile-reduce-overhead.json.gz"
CALLS = "Torch-Compiled Region"


def cli(binary, *args):
    p = subprocess.run([binary, *map(str, args)], check=False, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize(
    "args, keywords",
    [
        ([EAGER, GRAPHS], {}),
        (["--step-starts", CALLS, DEFAULT, GRAPHS], {"step_starts": CALLS}),
        (
            ["--step-starts", CALLS, "--what-if", "graph-steps", DEFAULT, GRAPHS],
            {"step_starts": CALLS, "what_if": "graph-steps"},
        ),
    ],
)
def test_diff_is_the_flags_output(args, keywords, attribute_bin, tmp_path):
    from iris_trace import diff, schema

    rc, out, err = cli(attribute_bin, "--diff", "--json", tmp_path / "cli.json", *args)
    assert rc == 0, err
    a, b = args[-2:]
    r = diff(a, b, **keywords, json=tmp_path / "py.json")
    assert str(r) + "\n" == out
    assert (tmp_path / "py.json").read_text() == (tmp_path / "cli.json").read_text() == r.json
    assert schema.check(r.to_dict(), "diff_document") == []
    declared = [f["key"] for f in schema.tables()["diff_rows"]["fields"]]
    assert list(r.table.columns) == declared
    assert [s["name"] for s in r.to_dict()["diff"]["sections"]] == [
        "steps",
        "summary",
        "syncs by call site",
        "copies by kind",
        "kernels by name",
        "idle by cause",
        "classes",
    ]
    assert {"steps", "summary", "kernels by name"} <= set(r.table["section"])  # rows, not empty
    if "what_if" in keywords:
        p = r.predictions
        assert list(p.columns) == [f["key"] for f in schema.tables()["diff_predictions"]["fields"]]
        assert list(p["scenario"].unique()) == ["replay", "graph-steps"]
        last = p.iloc[-1]
        assert last["window"] == "matched steps"
        assert last["error"] == pytest.approx(
            (last["predicted_us"] - last["b_measured_us"]) / last["b_measured_us"]
        )


@pytest.mark.parametrize(
    "trace, steps",
    [(TRACES / "a100-alexnet-syncs.json.gz", None), (DEFAULT, CALLS), (EAGER, None)],
)
def test_a_trace_against_itself_differs_in_nothing(trace, steps):
    from iris_trace import diff

    r = diff(trace, trace, step_starts=steps)
    t = r.table
    assert len(t) > 20
    assert (t["diff"] == 0).all()
    assert all(math.isnan(x) or x == 1 for x in t["ratio"])
    assert r.to_dict()["diff"]["words_in_common"] == 1


def test_the_steps_are_matched(attribute_bin):
    from iris_trace import diff

    r = diff(DEFAULT, GRAPHS, step_starts=CALLS)
    d = r.to_dict()["diff"]
    assert (d["match"], d["matched_steps"]) == ("by name", 5)  # "step 1" ... "step 5"
    steps = r.section("steps")
    assert len(steps) == 7  # 5 calls, their median and their sum
    s = r.section("summary").set_index("figure")
    assert s.loc["kernels", "a"] == 125
    assert s.loc["launches", "b"] < s.loc["launches", "a"]


def test_two_programs_or_no_common_steps_name_both_files(attribute_bin, tmp_path):
    from iris_trace import TraceError, diff

    alexnet = TRACES / "a100-alexnet-syncs.json.gz"
    with pytest.raises(TraceError, match="not two traces of one program") as e:
        diff(alexnet, EAGER, json=tmp_path / "a.json")
    assert str(alexnet) in str(e.value) and str(EAGER) in str(e.value)
    with pytest.raises(TraceError, match="no common steps") as e:
        diff(DEFAULT, EAGER, step_starts=CALLS, json=tmp_path / "a.json")
    assert str(DEFAULT) in str(e.value) and str(EAGER) in str(e.value)
    assert list(tmp_path.iterdir()) == []
    rc, out, err = cli(attribute_bin, "--diff", "--json", tmp_path / "c.json", alexnet, EAGER)
    assert rc == 2 and out == "" and str(alexnet) in err and str(EAGER) in err
    assert list(tmp_path.iterdir()) == []


def test_diff_takes_two_traces():
    from iris_trace import attribute

    with pytest.raises(ValueError, match="--diff takes two traces, A and B: got 3"):
        attribute([EAGER, DEFAULT, GRAPHS], diff=True)
