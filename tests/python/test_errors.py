"""Bad input: the same battery ./attribute refuses (exit 2, one message) raises TraceError (a
ValueError) with the same message, naming the file and offset; a missing path is
FileNotFoundError; nothing crashes the interpreter. The GIL is released while a trace is read,
and Ctrl-C stops a long read."""

import gzip
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import TRACES

BATTERY = {
    "empty.json": b"",
    "not-json.json": b"hello, world\n",
    "truncated.json": b'{"traceEvents": [{"ph": "X", "ts": 1}',
    "events-not-array.json": b'{"traceEvents": {"ph": "X"}}',
    "event-not-object.json": b'{"traceEvents": [1, 2]}',
    "bad-ts.json": b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "x", "dur": 1}]}',
    "truncated.json.gz": gzip.compress(b'{"traceEvents": [{"ph": "X", "ts": 1}]}' * 50)[:40],
    "garbage.sqlite": b"SQLite format 3\x00" + b"\x00" * 200,
}


@pytest.mark.parametrize("name", sorted(BATTERY))
def test_bad_input_raises_the_clis_message(name, tmp_path, attribute_bin):
    from iris_trace import TraceError, attribute

    path = tmp_path / name
    path.write_bytes(BATTERY[name])
    p = subprocess.run([attribute_bin, "--quiet", str(path)], capture_output=True, text=True)
    assert p.returncode == 2
    with pytest.raises(TraceError) as e:
        attribute(path)
    assert isinstance(e.value, ValueError)
    assert p.stderr.strip() == f"attribute: {e.value}"
    assert str(path) in str(e.value) and e.value.path == str(path)
    assert e.value.reason


# Input whose message quotes bytes that are not UTF-8, and the two other kinds of unreadable file.
UNREADABLE = {
    "binary.bin": bytes(range(128, 256)) * 8,
    "empty.json": b"",
    "truncated.json.gz": BATTERY["truncated.json.gz"],
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_unreadable_file_is_named_in_the_cli_and_in_python(name, tmp_path, attribute_bin):
    from iris_trace import TraceError, attribute
    from iris_trace.hta import TraceAnalysis

    path = tmp_path / name
    path.write_bytes(UNREADABLE[name])
    p = subprocess.run([attribute_bin, "--quiet", str(path)], capture_output=True, check=False)
    stderr = p.stderr.decode("utf-8")  # strict: a byte that is not UTF-8 would raise here
    assert p.returncode == 2 and str(path) in stderr, stderr
    for read in (attribute, lambda f: TraceAnalysis(trace_dir=str(f))):
        with pytest.raises(TraceError) as e:
            read(path)
        assert e.value.path == str(path) and str(path) in str(e.value)
        assert isinstance(e.value.offset, int), str(e.value)
    if name == "binary.bin":
        assert "\\x80" in stderr and "\\x80" in str(e.value)


def test_offset_is_named_when_the_reader_knows_it(tmp_path):
    from iris_trace import TraceError, attribute

    path = tmp_path / "bad.json"
    path.write_bytes(BATTERY["bad-ts.json"])
    with pytest.raises(TraceError) as e:
        attribute(path)
    if "byte offset" in str(e.value):
        assert isinstance(e.value.offset, int) and e.value.offset >= 0


def test_missing_path_is_file_not_found(tmp_path):
    from iris_trace import attribute
    from iris_trace.hta import TraceAnalysis

    for f in (lambda p: attribute(p), lambda p: TraceAnalysis(trace_dir=p)):
        with pytest.raises(FileNotFoundError) as e:
            f(tmp_path / "nope.json")
        assert e.value.filename == str(tmp_path / "nope.json")


def test_empty_folder_is_a_trace_error(tmp_path, attribute_bin):
    from iris_trace import TraceError, attribute

    p = subprocess.run([attribute_bin, str(tmp_path)], capture_output=True, text=True)
    with pytest.raises(TraceError) as e:
        attribute(tmp_path)
    assert p.returncode == 2 and p.stderr.strip() == f"attribute: {e.value}"


def test_one_bad_rank_fails_the_call_naming_it(tmp_path):
    from iris_trace import TraceError, attribute

    (tmp_path / "rank-1.json").write_bytes(BATTERY["truncated.json"])
    os.symlink(TRACES / "two-ranks" / "rank-0.json.gz", tmp_path / "rank-0.json.gz")
    with pytest.raises(TraceError) as e:
        attribute(tmp_path, workers=2)
    assert e.value.path == str(tmp_path / "rank-1.json")


def test_trace_error_pickles_whole():
    import pickle

    from iris_trace import TraceError

    e = pickle.loads(pickle.dumps(TraceError("f: event 1 (byte offset 7): bad", "f", 7, "bad")))
    assert (str(e), e.path, e.offset, e.reason) == (
        "f: event 1 (byte offset 7): bad",
        "f",
        7,
        "bad",
    )


def test_the_gil_is_released_while_reading():
    from iris_trace import attribute

    trace = TRACES / "a100-cuda-graphs-6streams.json.gz"  # 26 MB of JSON
    attribute(trace)  # warm the page cache
    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    reads, inside = 5, 0
    t = threading.Thread(target=spin)
    t.start()
    try:
        for _ in range(reads):
            before = count[0]
            attribute(trace)
            inside += count[0] - before
    finally:
        stop.set()
        t.join()
    # With the GIL held through the read the spinning thread would stand still (a few counts
    # at the call's Python edges); released, it counts throughout.
    assert inside > 1000 * reads, inside


CTRL_C = """
import sys, time
from iris_trace import attribute
print("reading", flush=True)
t0 = time.monotonic()
try:
    attribute([sys.argv[1]] * 400, workers=1)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - t0:.2f} s", flush=True)
    sys.exit(3)
"""


def test_ctrl_c_stops_a_long_read():
    trace = TRACES / "a100-cuda-graphs-6streams.json.gz"  # 400 x ~40 ms: ~16 s uninterrupted
    p = subprocess.Popen(
        [sys.executable, "-c", CTRL_C, str(trace)], stdout=subprocess.PIPE, text=True
    )
    assert p.stdout.readline().strip() == "reading"
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 3, out
    assert time.monotonic() - t0 < 5, out
