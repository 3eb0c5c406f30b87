"""Write data/iris.csv and the article's 120/30 split from scikit-learn's copy of Iris.

The article (../shared/ARTICLE.md) loads Iris with `sklearn.datasets.load_iris()` and
splits it with `train_test_split(X, y, test_size=0.2, random_state=42)`. This script does
exactly that and writes three files the C++ loader reads:

  iris.csv        150 rows in load_iris() order
  iris_train.csv  the 120 training rows, in the order train_test_split returns them
  iris_test.csv   the 30 test rows, likewise

Each file has the header `row,sepal_length,sepal_width,petal_length,petal_width,label`;
`row` is the index into iris.csv, so the split can be checked by hand. Features are
written with repr() so the text round-trips to the exact float64 scikit-learn holds.

Needs scikit-learn (it is in the project's requirements.txt). Usage:
    python -m data.make_split [--out DIR]   (from the repository root; default: data/)
`--check` compares the files on disk with a fresh split instead of writing.
"""

import argparse
import os
import pathlib
import sys

from analysis.atomic_write import write_atomic

HEADER = "row,sepal_length,sepal_width,petal_length,petal_width,label"


def split_rows():
    import numpy as np
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split

    iris = load_iris()
    rows = np.arange(len(iris.target))
    train_idx, test_idx = train_test_split(rows, test_size=0.2, random_state=42)
    # Splitting the index vector with the same arguments yields the same permutation as
    # splitting (X, y): train_test_split shuffles indices and then takes them.
    X_tr, _, _, y_te = train_test_split(iris.data, iris.target, test_size=0.2, random_state=42)
    assert (iris.data[train_idx] == X_tr).all() and (iris.target[test_idx] == y_te).all()

    def render(indices):
        lines = [HEADER]
        for i in indices:
            feats = ",".join(repr(float(v)) for v in iris.data[i])
            lines.append(f"{int(i)},{feats},{int(iris.target[i])}")
        return "\n".join(lines) + "\n"

    return {
        "iris.csv": render(rows),
        "iris_train.csv": render(train_idx),
        "iris_test.csv": render(test_idx),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args()
    files = split_rows()
    if args.check:
        bad = []
        for name, text in files.items():
            path = os.path.join(args.out, name)
            if not os.path.exists(path) or pathlib.Path(path).read_text() != text:
                bad.append(path)
        if bad:
            print("differs from a fresh split: " + ", ".join(bad), file=sys.stderr)
            return 1
        print("data matches train_test_split(test_size=0.2, random_state=42)")
        return 0
    for name, text in files.items():
        write_atomic(os.path.join(args.out, name), text)
        print("wrote", os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
