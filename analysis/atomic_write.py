"""Writing a file so that no reader ever sees half of it: the one helper for every Python
writer of the project, the iris_trace package's included.

The data goes to a new file in the target's own folder (one file system, so the rename is
atomic) that is renamed over the target once complete; on any error it is removed and the
target is left as it was. The new file is created with mode 0o666 less the umask, as open()
would make it (mkstemp's 0600 made results unreadable to others). No fsync unless asked: these
are results a rerun writes again, and an fsync per file costs milliseconds on a busy disk;
fsync=True also syncs the folder, for a file that must survive a power cut.

Standard library only, so it runs wherever the project's Python does: bench's generated header
at build time, HTA's scratch venv, the system python3. The iris_trace package installs this
very file as iris_trace/_atomic_write.py (python/CMakeLists.txt): the installed package stands
alone and there is still one implementation."""

import contextlib
import os
import secrets


@contextlib.contextmanager
def open_atomic(path, mode="w", *, fsync=False, encoding="utf-8"):
    """A new file to write (mode "w": text in `encoding`, "wb": bytes), renamed over path when
    the block ends without an error; removed, leaving path untouched, when it raises."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_atomic: mode {mode!r}: expected 'w' or 'wb'")
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = _create_beside(folder, name)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as f:
            yield f
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if fsync:
        _fsync_folder(folder)


def write_atomic(path, data, *, fsync=False):
    """data (str: written as UTF-8, bytes: as is) to path through open_atomic."""
    with open_atomic(path, "wb" if isinstance(data, (bytes, bytearray)) else "w", fsync=fsync) as f:
        f.write(data)


def _create_beside(folder, name):
    """(fd, path) of a new hidden file in folder; O_EXCL with a random name, so two writers of
    one target never share a temporary file; mode 0o666, which the umask then narrows."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"open_atomic: no free temporary name beside {name} in {folder}")


def _fsync_folder(folder):
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
