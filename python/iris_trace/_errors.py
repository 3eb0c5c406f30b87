"""The package's exceptions: bad input is a TraceError (a ValueError) naming the file, the byte
offset where the reader knows it, and the reason; a missing path is a FileNotFoundError."""

import errno
import os
import re

_OFFSET = re.compile(r"byte offset (\d+)")


class TraceError(ValueError):
    """A trace that cannot be read or analysed.

    path: the file (or folder) it came from; offset: the byte offset in the (decompressed)
    file where the reader stopped, or None; reason: what was wrong. str() is the reader's
    message, the one ./attribute prints."""

    def __init__(self, message, path=None, offset=None, reason=None):
        super().__init__(message)
        self.path = path
        self.offset = offset
        self.reason = reason if reason is not None else message

    def __reduce__(self):  # pickled whole: a Dask worker's error reaches the client as raised
        return (TraceError, (str(self), self.path, self.offset, self.reason))


def trace_error(exc, path):
    """A TraceError from the trace library's InputError (its message names file and offset)."""
    message = str(exc)
    m = _OFFSET.search(message)
    offset = int(m.group(1)) if m else None
    reason = message.rsplit("): ", 1)[-1] if m else message
    if path and message.startswith(str(path) + ": ") and not m:
        reason = message[len(str(path)) + 2 :]
    return TraceError(message, path=path, offset=offset, reason=reason)


def check_exists(path):
    """FileNotFoundError (errno ENOENT, the path as its filename) for a missing path."""
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such trace file or folder", str(path))
