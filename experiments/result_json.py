"""One writer for the Python rungs' results (python_eager.py, torch_compile.py): bench's JSON
shape ({"context", "benchmarks"}), written through analysis.atomic_write, so an interrupted run
never leaves half a file and the file is as readable as bench's own (the umask's mode)."""

import json

from analysis.atomic_write import open_atomic


def write_results(path, context, rows, prefix=None):
    """prefix: unused since the helper names its temporary file after path; kept for callers."""
    with open_atomic(path) as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=1)
