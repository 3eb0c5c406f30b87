"""DataFrames from the trace library's column arrays (python/ext/table.h): one NumPy array per
column, text as a categorical over its distinct values, so no Python object is made per row."""

import numpy as np
import pandas as pd


def column(value):
    if isinstance(value, tuple) and value[0] == "text":
        _, codes, categories = value
        return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))
    if isinstance(value, tuple) and value[0] == "bool":
        return value[1].view(np.bool_)
    return value


def frame(columns, rank=None):
    """A DataFrame of one table; with a rank, a leading `rank` column."""
    data = {}
    if rank is not None:
        n = len(column(next(iter(columns.values())))) if columns else 0
        data["rank"] = np.full(n, rank, dtype=np.int64)
    for name, value in columns.items():
        data[name] = column(value)
    return pd.DataFrame(data)


def concat(frames):
    """Frames of several ranks as one, with categoricals over the union of their values."""
    frames = [f for f in frames if f is not None]
    if len(frames) == 1:
        return frames[0]
    from pandas.api.types import union_categoricals

    out = {}
    for name in frames[0].columns:
        cols = [f[name] for f in frames]
        if isinstance(cols[0].dtype, pd.CategoricalDtype):
            out[name] = union_categoricals([c.array for c in cols])
        else:
            out[name] = np.concatenate([c.to_numpy() for c in cols])
    return pd.DataFrame(out)
