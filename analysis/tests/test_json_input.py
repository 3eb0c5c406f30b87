"""analysis/json_input.py: the one reader of the analysis' JSON inputs; every error is the
caller's class and names the file and the field."""

import pytest

from analysis import json_input


class Bad(ValueError):
    pass


def check(obj, key, kind, **kw):
    return json_input.field("f.json", obj, key, kind, "top level", Bad, **kw)


def test_fields_of_each_kind():
    assert check({"a": 3}, "a", float) == 3.0 and isinstance(check({"a": 3}, "a", float), float)
    assert check({"a": 3}, "a", int) == 3
    assert check({"a": "x"}, "a", str) == "x"
    assert check({}, "a", str, required=False) is None


@pytest.mark.parametrize(
    "obj, kind, message",
    [
        ({}, str, "f.json: top level: missing field 'a'"),
        ({"a": True}, int, "field 'a' must be int, got True"),
        ({"a": True}, float, "field 'a' must be a finite number, got True"),
        ({"a": float("nan")}, float, "must be a finite number"),
        ({"a": 10**400}, float, "must be a finite number"),  # beyond any float
        ({"a": 1}, str, "field 'a' must be str, got 1"),
        ([1], str, "f.json: top level: expected an object"),
    ],
)
def test_bad_fields_name_the_file_and_field(obj, kind, message):
    with pytest.raises(Bad, match=message.replace("(", r"\(")):
        check(obj, "a", kind)


def test_bad_files_name_the_file(tmp_path):
    with pytest.raises(Bad, match="none.json: cannot read"):
        json_input.read_json(tmp_path / "none.json", Bad)
    (tmp_path / "cut.json").write_text('{"a": ')
    with pytest.raises(Bad, match=r"cut.json: not valid JSON \(.*\); interrupted\?"):
        json_input.read_json(tmp_path / "cut.json", Bad, "; interrupted?")
    (tmp_path / "bin.json").write_bytes(b'{"a": "\x80"}')
    with pytest.raises(Bad, match="bin.json: not valid JSON"):
        json_input.read_json(tmp_path / "bin.json", Bad)
    (tmp_path / "ok.json").write_text('{"a": [1, 2]}')
    assert json_input.read_json(tmp_path / "ok.json", Bad) == {"a": [1, 2]}
