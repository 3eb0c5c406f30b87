"""analysis.atomic_write: the target appears whole or not at all, with the umask's mode."""

import os
import stat

import pytest

from analysis.atomic_write import open_atomic, write_atomic


def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_text_and_bytes_with_the_umasks_mode(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "a.md", "µs — text\n")
        write_atomic(str(tmp_path / "b.bin"), b"\x00\xff")
    finally:
        os.umask(old)
    assert (tmp_path / "a.md").read_bytes() == "µs — text\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    for name in ("a.md", "b.bin"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask
    assert not leftovers(tmp_path)


def test_an_error_leaves_the_earlier_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("earlier\n")
    with pytest.raises(RuntimeError), open_atomic(target) as f:
        f.write("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "earlier\n"
    assert not leftovers(tmp_path)
    with pytest.raises(TypeError):  # bytes to a text file: the writer's own error
        write_atomic(target, None)
    assert target.read_text() == "earlier\n" and not leftovers(tmp_path)


def test_replaces_streams_and_syncs_on_request(tmp_path):
    target = tmp_path / "log.txt"
    target.write_text("old\n")
    with open_atomic(target, "w", fsync=True) as f:
        f.write("line 1\n")
        assert target.read_text() == "old\n"  # nothing visible until the block ends
        f.write("line 2\n")
    assert target.read_text() == "line 1\nline 2\n"
    with open_atomic(target, "wb") as f:
        f.write(b"bytes\n")
    assert target.read_bytes() == b"bytes\n" and not leftovers(tmp_path)


def test_two_writers_of_one_target_never_share_a_temporary(tmp_path):
    with open_atomic(tmp_path / "t") as a, open_atomic(tmp_path / "t") as b:
        assert len(leftovers(tmp_path)) == 2
        a.write("a")
        b.write("b")
    assert (tmp_path / "t").read_text() == "a"  # b is renamed first, then a: whole either way
    assert not leftovers(tmp_path)


def test_a_mode_it_does_not_write_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'a'"), open_atomic(tmp_path / "x", "a"):
        pass
    assert not list(tmp_path.iterdir())
