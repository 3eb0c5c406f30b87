"""The schema of `./attribute --json`: its version read from the one file CMake also reads, and
the reader's checks of the field table."""

import pathlib

import pytest

from analysis.attribute_json import reader, schema

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_writer_and_the_reader_read_one_version_file():
    cmake = (ROOT / "src" / "trace" / "trace_lib.cmake").read_text()
    relative = schema.VERSION_FILE.relative_to(ROOT / "src" / "trace")
    assert f"${{_t}}/{relative.as_posix()}" in cmake
    assert "IRIS_ATTRIBUTE_JSON_VERSION" in (ROOT / "tools" / "attribute.cpp").read_text()
    assert schema.VERSION == int(schema.VERSION_FILE.read_text())


def test_a_version_file_that_is_not_a_number_is_named(tmp_path):
    (tmp_path / "v.txt").write_text("3\n")
    assert schema.read_version(tmp_path / "v.txt") == 3
    (tmp_path / "v.txt").write_text("two\n")
    with pytest.raises(RuntimeError, match=r"v\.txt: expected one line holding a whole number"):
        schema.read_version(tmp_path / "v.txt")


FIELDS = {
    "n": int,
    "x": float,
    "where": schema.OneOf("steps", "whole trace"),
    "every": schema.CountOr("never"),
    "items": [{"us": float}],
    "notes": [str],
}
GOOD = {"n": 2, "x": 1.5, "where": "steps", "every": "never", "items": [{"us": 1}], "notes": []}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"n": -1}, "top level: field 'n' must be a count (integer >= 0), got -1"),
        ({"n": True}, "field 'n' must be a count"),
        ({"x": float("nan")}, "field 'x' must be a finite number"),
        ({"where": "epochs"}, "field 'where' must be 'steps' or 'whole trace', got 'epochs'"),
        ({"every": 2.5}, "field 'every' must be a count or 'never', got 2.5"),
        ({"items": [3]}, "items[0]: expected an object, got int"),
        ({"items": [{}]}, "items[0]: missing field 'us'"),
        ({"items": {}}, "field 'items' must be list"),
        ({"notes": ["a", 1]}, "notes[1]: expected text, got 1"),
    ],
)
def test_check_names_the_field_and_what_it_expected(change, message):
    assert reader.check("f.json", dict(GOOD), FIELDS) == GOOD
    with pytest.raises(reader.AttributeJsonError, match="^f.json: ") as e:
        reader.check("f.json", {**GOOD, **change}, FIELDS)
    assert message in str(e.value)
