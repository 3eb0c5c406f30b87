"""The output tables are declared once (src/trace/export/output_schema.cpp) and everything else
follows them: every --json document ./attribute writes, in every mode, on every test trace, is
exactly its declaration (no field added, dropped, reordered or of another kind); every DataFrame
has its declared columns; the field reference in docs/ is the declaration's. Each check is also
fed a planted breach, so that it cannot pass by checking nothing."""

import copy
import json
import subprocess

import pytest
from conftest import DATA, REPO

TRACES = sorted(
    p
    for d in (
        "traces",
        "traces/two-ranks",
        "traces_stacks",
        "traces_pairs",
        "traces_compiled",
        "nsys",
    )
    for p in (DATA / d).glob("*.gz")
)
MODES = {
    "attribution": ["--advice"],
    "hta": ["--hta"],
    "hta-max-queue": ["--hta-max-queue", "4"],
    "what-ifs": [
        "--what-if",
        "no-syncs",
        "--what-if",
        "log-every=2,never",
        "--what-if",
        "graph-steps",
        "--what-if",
        "pin-copies",
        "--what-if",
        "scale-kernels=0.5",
    ],
}


def write_json(binary, flags, trace, out):
    p = subprocess.run(
        [binary, "--quiet", *flags, "--json", out, trace],
        check=False,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("trace", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_document_is_its_declaration(trace, mode, attribute_bin, tmp_path):
    from iris_trace import schema

    doc = write_json(attribute_bin, MODES[mode], trace, tmp_path / "out.json")
    assert schema.check(doc, schema.root_of(doc)) == []


def test_a_writer_that_drifts_is_named(attribute_bin, tmp_path):
    from iris_trace import schema

    doc = write_json(
        attribute_bin, [], DATA / "traces" / "a100-alexnet-syncs.json.gz", tmp_path / "out.json"
    )
    added = copy.deepcopy(doc)
    added["traces"][0]["total"]["new_us"] = 1.0
    assert schema.check(added, "document") == [
        "$.traces[0].total.new_us: not declared in whole_trace"
    ]
    dropped = copy.deepcopy(doc)
    del dropped["traces"][0]["syncs_by_cause"][0]["blocked_us"]
    assert schema.check(dropped, "document") == [
        "$.traces[0].syncs_by_cause[0].blocked_us: missing (cause)"
    ]
    moved = copy.deepcopy(doc)
    step = moved["traces"][0]["total"]
    moved["traces"][0]["total"] = {"wall_us": step.pop("wall_us"), **step}
    assert schema.check(moved, "document") == [
        "$.traces[0].total.name: out of its declared place in whole_trace",
        "$.traces[0].total.start_us: out of its declared place in whole_trace",
    ]
    kind = copy.deepcopy(doc)
    kind["traces"][0]["total"]["queue"]["regime"] = "busy"
    assert schema.check(kind, "document") == [
        (
            "$.traces[0].total.queue.regime: expected one of "
            'launch-bound|GPU-bound|mixed|no GPU work, got "busy"'
        )
    ]


def test_frames_have_their_declared_columns():
    from iris_trace import attribute, schema

    r = attribute(DATA / "traces_stacks" / "h100-bert-small.json.gz")
    w = r.what_if("no-syncs")
    for name in (
        "steps",
        "idle",
        "copies",
        "launch_delays",
        "blocking_calls",
        "call_sites",
        "would_sync",
        "syncs_by_cause",
        "kernels",
    ):
        declared = [f["key"] for f in schema.tables()[name]["fields"]]
        assert list(getattr(r, name).columns) == ["rank", *declared], name
    assert list(w.windows.columns) == [
        "rank",
        *(f["key"] for f in schema.tables()["windows"]["fields"]),
    ]


def test_every_table_and_same_as_resolves():
    from iris_trace import schema

    tables = schema.tables()
    for name, t in tables.items():
        for f in t["fields"]:
            assert f["meaning"], f"{name}.{f['key']} has no meaning"
            if f["kind"] in ("object", "array", "map"):
                assert f["of"] in tables, f"{name}.{f['key']}: no table {f['of']}"


def test_the_field_reference_is_generated():
    from iris_trace import schema

    page = REPO / "docs" / "output-fields.md"
    assert page.read_text() == schema.markdown(), (
        "docs/output-fields.md differs from the declaration: "
        "python -m iris_trace.schema > docs/output-fields.md"
    )


def test_load_names_the_file_and_field(attribute_bin, tmp_path):
    from iris_trace import TraceError, schema

    doc = write_json(
        attribute_bin, [], DATA / "traces" / "a100-event-sync.json.gz", tmp_path / "good.json"
    )
    assert schema.load(tmp_path / "good.json") == doc
    del doc["traces"][0]["steps"][0]["wall_us"]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(TraceError, match=r"bad.json: \$.traces\[0\].steps\[0\].wall_us: missing"):
        schema.load(tmp_path / "bad.json")
    (tmp_path / "old.json").write_text(json.dumps({**doc, "version": 1}))
    with pytest.raises(TraceError, match="old.json: version 1"):
        schema.load(tmp_path / "old.json")
    (tmp_path / "binary.json").write_bytes(b"\x80\x81")
    with pytest.raises(TraceError, match="binary.json: not an ./attribute --json file"):
        schema.load(tmp_path / "binary.json")
