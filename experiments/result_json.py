"""One writer for the Python rungs' results (python_eager.py, torch_compile.py): bench's JSON
shape ({"context", "benchmarks"}), written to a temporary file and renamed, so an interrupted
run never leaves half a file, and as readable as bench's own JSON (mkstemp makes 0600)."""

import json
import os
import tempfile


def write_results(path, context, rows, prefix):
    out_dir = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{prefix}-")
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    with os.fdopen(fd, "w") as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=1)
    os.replace(tmp, path)
