"""Reading a JSON document another program wrote (bench's JSON, a manifest, a reference run):
the file read and parsed, each field checked for its kind, every error a ValueError of the
caller's class naming the file and the field. The one reader of the analysis' loaders."""

import json
import math


def read_json(path, error=ValueError, hint=""):
    """The parsed document; `error` naming the file when it cannot be read or parsed (`hint`
    appended to a parse error: what may have gone wrong)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise error(f"{path}: not valid JSON ({e}){hint}") from None


def field(path, obj, key, kind, where, error=ValueError, required=True):
    """obj[key] of `kind` (a type): float takes any finite number but a bool (returned as a
    float), int any integer but a bool; None when absent and not required."""
    if not isinstance(obj, dict):
        raise error(f"{path}: {where}: expected an object")
    if key not in obj:
        if required:
            raise error(f"{path}: {where}: missing field '{key}'")
        return None
    v = obj[key]
    if kind is float:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                if math.isfinite(v):
                    return float(v)
            except OverflowError:  # an integer beyond any float: not a finite number
                pass
        raise error(f"{path}: {where}: field '{key}' must be a finite number, got {v!r}")
    if isinstance(v, kind) and not (kind is int and isinstance(v, bool)):
        return v
    raise error(f"{path}: {where}: field '{key}' must be {kind.__name__}, got {v!r}")
