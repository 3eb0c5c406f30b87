"""./attribute's output tables, as the trace library declares them once
(src/trace/export/output_schema.h): the objects of its --json documents and the package's
DataFrames. load() reads a --json file and checks it against them; check() names every field
that differs; markdown() is the field reference (docs/output-fields.md).

    python -m iris_trace.schema            # the reference, as Markdown, on stdout
"""

import json
import math
import sys

from . import _core
from ._errors import TraceError

_TABLES = None


def tables():
    """{name: {"meaning", "frame", "fields": [{"key", "kind", "unit", "meaning", ...}]}}."""
    global _TABLES
    if _TABLES is None:
        _TABLES = {t["name"]: t for t in _core.schema()}
    return _TABLES


# The table at the root of each kind of document, by the key that tells them apart.
ROOTS = {
    "traces": "document",
    "hta": "hta_document",
    "replays": "replay_document",
    "diff": "diff_document",
}


def root_of(doc):
    for key, table in ROOTS.items():
        if isinstance(doc, dict) and key in doc:
            return table
    return "document"


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _scalar_problem(kind, of, v):
    """What is wrong with v as a value of this scalar kind, or None."""
    ok = {
        "number": _number,
        "count": _count,
        "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
        "bool": lambda x: isinstance(x, bool),
        "text": lambda x: isinstance(x, str),
        "word": lambda x: isinstance(x, str) and x in of.split("|"),
        "numbers": lambda x: isinstance(x, list) and all(map(_number, x)),
        "counts": lambda x: isinstance(x, list) and all(map(_count, x)),
        "texts": lambda x: isinstance(x, list) and all(isinstance(y, str) for y in x),
    }[kind]
    if ok(v):
        return None
    return f"expected {'one of ' + of if kind == 'word' else kind}, got {json.dumps(v)[:60]}"


def _value_problems(field, v, where):
    kind, of = field["kind"], field["of"]
    if v is None:
        return [] if field["nullable"] else [f"{where}: null where {kind} is declared"]
    if kind == "object":
        return check(v, of, where)
    if kind == "array":
        if not isinstance(v, list):
            return [f"{where}: expected an array of {of}"]
        return [p for i, x in enumerate(v) for p in check(x, of, f"{where}[{i}]")]
    if kind == "map":
        if not isinstance(v, dict):
            return [f"{where}: expected an object of {of} by key"]
        return [p for k, x in v.items() for p in check(x, of, f"{where}.{k}")]
    if kind == "either":
        first = []
        for shape in of.split("|"):
            sub_kind, _, sub_of = shape.partition(":")
            sub = {**field, "kind": {"word": "word"}.get(sub_kind, sub_kind), "of": sub_of}
            problems = _value_problems(sub, v, where)
            if not problems:
                return []
            first = first or problems
        return first
    problem = _scalar_problem(kind, of, v)
    return [f"{where}: {problem}"] if problem else []


def check(value, table, where="$"):
    """Every way `value` differs from the declared table: a field undeclared, missing, out of
    its declared order, or of another kind; each problem names where it is."""
    t = tables()[table]
    if not isinstance(value, dict):
        return [f"{where}: expected an object ({table})"]
    fields = t["fields"]
    place = {f["key"]: i for i, f in enumerate(fields)}
    problems, last = [], -1
    for key, v in value.items():
        if key not in place:
            problems.append(f"{where}.{key}: not declared in {table}")
            continue
        if place[key] < last:
            problems.append(f"{where}.{key}: out of its declared place in {table}")
        last = max(last, place[key])
        problems += _value_problems(fields[place[key]], v, f"{where}.{key}")
    for f in fields:
        if f["key"] not in value and not f["optional"]:
            problems.append(f"{where}.{f['key']}: missing ({table})")
    return problems


def load(path, expect=None):
    """An ./attribute --json file as a dict, checked: TraceError naming the file and the first
    field that differs from the declaration (or a version this package does not read). expect:
    the document's table ("document", "hta_document", "replay_document" or "diff_document"),
    when the caller needs one kind."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TraceError(f"{path}: not an ./attribute --json file: {e}", path=path) from None
    if not isinstance(doc, dict) or doc.get("tool") != "attribute":
        raise TraceError(f'{path}: not an ./attribute --json file (no "tool": "attribute")', path)
    if doc.get("version") != _core.json_version:
        raise TraceError(
            f"{path}: version {doc.get('version')!r}, this package reads {_core.json_version}: "
            "run this ./attribute on the trace again",
            path,
        )
    if expect is not None and root_of(doc) != expect:
        raise TraceError(
            f"{path}: an ./attribute {root_of(doc)}, where a {expect} is expected", path
        )
    problems = check(doc, root_of(doc))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise TraceError(f"{path}: {problems[0]}{more}", path)
    return doc


def markdown():
    """The field reference: every table with its fields, kinds, units and meanings."""
    lines = [
        "# ./attribute's output fields",
        "",
        (
            "<!-- generated by `python -m iris_trace.schema` from "
            "src/trace/export/output_schema.cpp; tests/python/test_output_schema.py fails when "
            "this page differs -->"
        ),
        "",
        "Every table `./attribute` writes, declared once in the trace library: the objects of",
        "its `--json` documents (the attribution; `--hta`; `--replay` and `--what-if`; `--diff`)",
        "and the DataFrames of the Python package (`iris_trace.attribute()`; each starts with a",
        "`rank` column, but the two of `iris_trace.diff()`). A field marked *optional* is written",
        "only where it applies; *or null* may be null. Units: `us` microseconds, `share` a",
        "fraction of 1.",
    ]
    for frames in (False, True):
        lines += ["", "## The Python package's DataFrames" if frames else "## The JSON documents"]
        for name, t in tables().items():
            if t["frame"] != frames:
                continue
            lines += ["", f"### `{name}`", "", t["meaning"][0].upper() + t["meaning"][1:] + ".", ""]
            lines += ["| field | kind | unit | meaning |", "|---|---|---|---|"]
            for f in t["fields"]:
                kind = f["kind"]
                if kind in ("object", "array", "map"):
                    kind += f" of [`{f['of']}`](#{f['of']})"
                elif kind in ("word", "either"):
                    kind += f" ({f['of']})"
                notes = ", ".join(
                    n for n, on in (("optional", f["optional"]), ("or null", f["nullable"])) if on
                )
                kind += f", {notes}" if notes else ""
                lines.append(
                    f"| `{f['key']}` | {kind.replace('|', ' or ')} | {f['unit']} |"
                    f" {f['meaning'].replace('|', '/')} |"
                )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
