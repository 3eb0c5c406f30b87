"""The command line: ./attribute itself, installed with the package (iris_trace/bin/attribute;
pip also puts it on PATH as iris-attribute), so that its flags, output and exit codes are the
same program's."""

import os
import sys

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "attribute")


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"iris-attribute: {BINARY} is missing: reinstall the package (pip install .)")
    sys.stdout.flush()
    os.execv(BINARY, ["attribute", *args])
