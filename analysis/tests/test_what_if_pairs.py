"""analysis.what_if_pairs and experiments.what_if_validation: the manifest checked field
by field, the figures and verdicts on small documents with known answers, the committed page
rebuilt from the committed JSON, and (with a built ./attribute) from the committed traces."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from analysis import what_if_pairs as v

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAIRS = os.path.join(ROOT, "tests/data/traces_pairs")
PAGE = os.path.join(ROOT, "results/traces/what-if-validation.md")
JSON = os.path.join(ROOT, "results/traces/what-if-validation-json")


def manifest_doc():
    with open(os.path.join(PAIRS, "manifest.json")) as f:
        return json.load(f)


def write_manifest(tmp_path, doc):
    """The manifest beside copies of the traces it names (the loader checks they exist)."""
    for name in doc.get("traces", {}):
        src = os.path.join(PAIRS, name)
        if os.path.exists(src):
            shutil.copy(src, tmp_path / name)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_committed_manifest_loads():
    m = v.load_manifest(os.path.join(PAIRS, "manifest.json"))
    assert m["tolerance"] == 0.2 and m["skip_calls"] == 1
    assert v.step_flags(m["traces"]["h100-toyblock-eager.json.gz"]) == [
        "--step-starts",
        "aten::layer_norm",
        "--step-every",
        "8",
    ]
    assert v.what_ifs_from(m, "h100-toyblock-compile-default.json.gz") == [
        "graph=Torch-Compiled Region",
        "graph-steps",
    ]
    assert v.what_ifs_from(m, "h100-toyblock-compile-reduce-overhead.json.gz") == []


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.pop("tolerance"), "missing field 'tolerance'"),
        (lambda d: d.update(tolerance=2), "tolerance"),
        (lambda d: d["pairs"][0].update(unit="epoch"), "pairs[0].unit"),
        (lambda d: d["pairs"][1].update(first="nowhere.json.gz"), "pairs[1].first"),
        (lambda d: d["pairs"][0].update(what_ifs=[]), "pairs[0].what_ifs"),
        (lambda d: d["traces"]["h100-toyblock-eager.json.gz"].update(every=0), "every"),
        (lambda d: d["traces"].update({"gone.json.gz": {}}), "traces.gone.json.gz"),
        (lambda d: d.update(pairs=[]), "pairs"),
        (lambda d: d["traces"].update({"x.json.gz": 1}), "traces.x.json.gz: expected an object"),
        (lambda d: d["pairs"].insert(0, 1), "pairs[0]: expected an object"),
    ],
)
def test_a_bad_manifest_names_the_file_and_the_field(tmp_path, change, words):
    doc = manifest_doc()
    change(doc)
    path = write_manifest(tmp_path, doc)
    with pytest.raises(v.ManifestError) as e:
        v.load_manifest(path)
    assert path in str(e.value) and words in str(e.value)


def test_a_bad_manifest_exits_2_and_leaves_the_page(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("before")
    (tmp_path / "manifest.json").write_text("{not json")
    assert v.main([str(tmp_path / "manifest.json"), "--json", JSON, "--out", str(page)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert page.read_text() == "before"


# ---- figures on small documents --------------------------------------------------------------


def window(measured, predicted=None, pace=None, predicted_pace=None):
    w = {"measured_us": measured, "measured_pace_us": pace if pace is not None else measured}
    if predicted is not None:
        w.update(predicted_us=predicted, predicted_pace_us=predicted_pace or predicted)
    return w


def docs_for(first_paces, predicted_paces, second_paces, kernels=((25, 118.0), (26, 120.0))):
    """Attribution and replay documents with just the fields figures() reads."""

    def attribution(n, k):
        return {"traces": [{"total": {"kernels": k[0] * n, "kernel_us": k[1] * n}}]}

    first = {
        "file": "a.json.gz",
        "replay": {
            "windows": [window(p) for p in first_paces],
            "total": {"measured_us": sum(first_paces)},
        },
        "what_ifs": [
            {
                "name": "graph-steps",
                "assumed": "a note",
                "windows": [window(p, p / 2, p, q) for p, q in zip(first_paces, predicted_paces)],
                "total": {"predicted_us": sum(predicted_paces)},
            }
        ],
    }
    second = {
        "file": "b.json.gz",
        "replay": {
            "windows": [window(p) for p in second_paces],
            "total": {"measured_us": sum(second_paces)},
        },
        "what_ifs": [],
    }
    n1, n2 = len(first_paces), len(second_paces)
    return {
        "a.json.gz": (attribution(n1, kernels[0]), {"replays": [first]}),
        "b.json.gz": (attribution(n2, kernels[1]), {"replays": [second]}),
    }


def small_manifest(kernels_change=None):
    return {
        "path": "m.json",
        "folder": ".",
        "about": "",
        "tolerance": 0.2,
        "skip_calls": 1,
        "skip_why": "start-up",
        "traces": {"a.json.gz": {"call_starts": None, "every": 1}, "b.json.gz": {}},
        "pairs": [
            {
                "first": "a.json.gz",
                "second": "b.json.gz",
                "change": "graphs",
                "unit": "call",
                "what_ifs": ["graph-steps"],
                "kernels_change": kernels_change,
            }
        ],
    }


def test_medians_leave_out_the_first_calls_and_the_error_is_on_the_medians():
    docs = docs_for([1000, 300, 350, 320], [900, 150, 160, 155], [800, 140, 150, 130])
    (row,) = v.figures(small_manifest(), docs)
    assert row["predicted"] == (155, 150, 160)  # the first call left out
    assert row["measured"] == (140, 130, 150)
    assert row["error"] == pytest.approx(155 / 140 - 1)
    assert row["whole_error"] == pytest.approx((900 + 465) / (800 + 420) - 1)
    assert row["rest_predicted"] == 465 and row["rest_measured"] == 420
    assert row["same_kernels"]
    assert v.verdict(row, 0.2) == "met (within 20%)"


def test_a_pair_without_calls_is_judged_on_the_whole_trace():
    docs = docs_for([1000], [700], [800])
    m = small_manifest()
    m["pairs"][0]["unit"] = "trace"
    m["traces"]["b.json.gz"] = {"call_starts": None, "every": 1}
    (row,) = v.figures(m, docs)  # one window, which skip_calls would otherwise leave out
    assert row["predicted"] == (700, 700, 700) and row["measured"] == (800, 800, 800)
    assert row["error"] == pytest.approx(700 / 800 - 1) == row["whole_error"]
    assert row["host_predicted"] == (None, None, None) and row["rest_predicted"] is None
    assert v.verdict(row, 0.2) == "met (within 20%)"
    assert "none: the whole trace is one window" in "\n".join(v.pairs_lines([row], m))


def test_a_miss_says_by_how_much():
    docs = docs_for([1000, 300, 300], [900, 200, 200], [800, 140, 140])
    (row,) = v.figures(small_manifest(), docs)
    assert row["error"] == pytest.approx(200 / 140 - 1)
    assert v.verdict(row, 0.2) == "missed: +42.86%, 22.9 points beyond 20%"


def test_changed_kernels_are_shown_with_their_reason_not_judged():
    docs = docs_for([1000, 300], [900, 140], [800, 140], kernels=((40, 120.0), (26, 120.0)))
    (row,) = v.figures(small_manifest("fusion"), docs)
    assert not row["same_kernels"]
    assert v.verdict(row, 0.2) == (
        "not comparable: the kernels change (40 -> 26 a call, 120 -> 120 us of kernel time): fusion"
    )


def test_a_what_if_missing_from_the_json_is_named():
    docs = docs_for([1000, 300], [900, 140], [800, 140])
    m = small_manifest()
    m["pairs"][0]["what_ifs"] = ["graph=Somewhere"]
    with pytest.raises(v.TraceError, match="graph=Somewhere"):
        v.figures(m, docs)


# ---- the committed page -----------------------------------------------------------------------


def regenerate(json_dir):
    """The page from the committed manifest and a folder of ./attribute's JSON, as main writes it,
    with the JSON folder named as the committed page names it."""
    m = v.load_manifest(os.path.join(PAIRS, "manifest.json"))
    rows = v.figures(m, v.load_docs(m, json_dir))
    sources = sorted(
        os.path.join(JSON, v.stem(n) + kind)
        for n in m["traces"]
        for kind in (".attribution.json", ".replay.json")
    )
    return v.page(m, rows, sources)


def test_the_committed_page_is_what_the_committed_json_gives():
    with open(PAGE) as f:
        assert regenerate(JSON) == f.read()


def test_the_target_is_met_on_the_committed_page():
    """default -> reduce-overhead: same kernels, graphs added: within 20 % a call; eager ->
    reduce-overhead is shown as not comparable (fusion), not as a pass."""
    m = v.load_manifest(os.path.join(PAIRS, "manifest.json"))
    rows = v.figures(m, v.load_docs(m, JSON))
    target = [r for r in rows if r["pair"]["first"].endswith("default.json.gz")]
    target = [r for r in target if r["pair"]["second"].endswith("reduce-overhead.json.gz")]
    assert target and all(abs(r["error"]) <= 0.2 and r["same_kernels"] for r in target)
    eager = [r for r in rows if r["pair"]["first"].endswith("eager.json.gz")]
    assert eager and all(v.verdict(r, 0.2).startswith("not comparable") for r in eager)


def attribute_binary():
    for p in (
        os.environ.get("ATTRIBUTE"),
        os.path.join(ROOT, "build/attribute"),
        os.path.join(ROOT, "build-trace/attribute"),
    ):
        if p and os.access(p, os.X_OK):
            return p
    return None


@pytest.mark.skipif(attribute_binary() is None, reason="no ./attribute built")
def test_the_script_rebuilds_the_committed_page_from_the_traces(tmp_path):
    json_dir, out = tmp_path / "json", tmp_path / "page.md"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.what_if_validation",
            PAIRS,
            "--attribute",
            attribute_binary(),
        ]
        + ["--json-out", str(json_dir), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    with open(PAGE) as f:
        assert regenerate(str(json_dir)) == f.read()


def test_the_script_refuses_a_folder_without_a_manifest(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.what_if_validation",
            str(tmp_path),
            "--attribute",
            "/bin/false",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 2 and "manifest.json" in r.stderr
