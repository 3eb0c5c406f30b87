"""Reading `./attribute --json` files, every field the pages use checked against the schema
(schema.py) before anything is drawn: bad input raises AttributeJsonError naming the file and
the field."""

import json
import math

from analysis.attribute_json import schema


class AttributeJsonError(ValueError):
    """Bad input: the message names the file and the field."""


TOP = "top level"


def _inside(where, key):
    return key if where == TOP else f"{where}.{key}"


def _kind_error(path, where, key, kind, v):
    if kind is float:
        what = "a finite number"
    elif kind is int:
        what = "a count (integer >= 0)"
    elif isinstance(kind, schema.OneOf):
        what = " or ".join(repr(w) for w in kind.words)
    elif isinstance(kind, schema.CountOr):
        what = f"a count or {kind.word!r}"
    else:
        what = {dict: "dict", list: "list"}.get(type(kind), getattr(kind, "__name__", repr(kind)))
    return AttributeJsonError(f"{path}: {where}: field '{key}' must be {what}, got {v!r}")


def _is_count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _fits(v, kind):
    """Whether one value is of a scalar kind (the containers are walked by check)."""
    if kind is schema.ANY:
        return True
    if kind is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if kind is int:
        return _is_count(v)
    if isinstance(kind, schema.OneOf):
        return isinstance(v, str) and v in kind.words
    if isinstance(kind, schema.CountOr):
        return _is_count(v) or v == kind.word
    if isinstance(kind, dict):
        return isinstance(v, dict)
    if isinstance(kind, list):
        return isinstance(v, list)
    return isinstance(v, kind)


def get(path, obj, key, kind, where):
    """obj[key], checked to be of the kind (a scalar kind, dict or list); a number as float."""
    if not isinstance(obj, dict):
        raise AttributeJsonError(f"{path}: {where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise AttributeJsonError(f"{path}: {where}: missing field '{key}'")
    v = obj[key]
    if not _fits(v, kind):
        raise _kind_error(path, where, key, kind, v)
    return float(v) if kind is float else v


def check(path, obj, fields, where=TOP):
    """Checks that the object holds every field of `fields` (schema.py) with its kind, nested
    objects and arrays included, and returns it."""
    for key, kind in fields.items():
        v = get(path, obj, key, kind, where)
        if isinstance(kind, dict):
            check(path, v, kind, _inside(where, key))
        elif isinstance(kind, list):
            (item,) = kind
            for i, x in enumerate(v):
                at = f"{_inside(where, key)}[{i}]"
                if isinstance(item, dict):
                    check(path, x, item, at)
                elif not _fits(x, item):
                    what = "text" if item is str else getattr(item, "__name__", repr(item))
                    raise AttributeJsonError(f"{path}: {at}: expected {what}, got {x!r}")
    return obj


def read_json(path):
    """The parsed file; AttributeJsonError when it cannot be read or is not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise AttributeJsonError(f"{path}: cannot read: {e.strerror}") from e
    except ValueError as e:
        raise AttributeJsonError(f"{path}: not valid JSON ({e})") from e


def _check_version(path, doc):
    if doc.get("version") != schema.VERSION:
        raise AttributeJsonError(
            f"{path}: field 'version' must be {schema.VERSION} (rerun ./attribute --json), "
            f"got {doc.get('version')!r}"
        )


def load_attribution(path):
    """The document of one `./attribute --json` file (the attribution), every field used checked."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("tool") != schema.TOOL:
        raise AttributeJsonError(
            f'{path}: expected `./attribute --json` output (an object with "tool": "attribute")'
        )
    _check_version(path, doc)
    return check(path, doc, schema.ATTRIBUTION)


def load_replay(path):
    """The document of one `./attribute --what-if --json` file, every field used checked."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("tool") != schema.TOOL or "replays" not in doc:
        raise AttributeJsonError(
            f'{path}: expected `./attribute --what-if --json` output ("tool": "attribute" '
            'with "replays")'
        )
    _check_version(path, doc)
    return check(path, doc, schema.REPLAYS)
