"""attribute(): the CLI's text and JSON byte for byte, the tables, what_if, many ranks."""

import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest
from conftest import TRACES, kineto_traces


def cli(binary, *args):
    p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("trace", kineto_traces(), ids=lambda p: p.name)
def test_text_and_json_are_the_clis(trace, attribute_bin, tmp_path):
    from iris_trace import attribute

    rc, out, err = cli(attribute_bin, "--json", tmp_path / "a.json", trace)
    assert rc == 0, err
    r = attribute(trace)
    assert str(r) + "\n" == out
    assert r.json == (tmp_path / "a.json").read_text()
    assert r.to_dict()["traces"][0]["rank"] in r.ranks


def test_tables_are_arrays_with_units(attribute_bin):
    from iris_trace import attribute

    r = attribute(TRACES / "a100-alexnet-syncs.json.gz")
    doc = r.to_dict()["traces"][0]
    for name in (
        "steps",
        "blocking_calls",
        "syncs_by_cause",
        "copies",
        "idle",
        "launch_delays",
        "kernels",
    ):
        df = getattr(r, name)
        assert isinstance(df, pd.DataFrame)
        assert df.columns[0] == "rank"
        # No column of Python objects: numbers, flags, or categoricals over the distinct texts.
        assert not any(df[c].dtype == object for c in df.columns), name
    assert len(r.blocking_calls) == len(doc["syncs"])
    assert r.blocking_calls["blocked_us"].sum() == pytest.approx(
        doc["blocking_calls"]["blocked_us"]
    )
    total = r.steps[r.steps["is_total"]].iloc[0]
    assert total["wall_us"] == doc["total"]["wall_us"]
    assert total["gpu_busy_us"] == doc["total"]["gpu_busy_us"]
    idle = r.idle[r.idle["step"] == "total"].set_index("cause")["idle_us"]
    assert idle["host_wait"] == doc["total"]["idle_host_wait_us"]
    assert list(r.syncs_by_cause["op"]) == [c["op"] for c in doc["syncs_by_cause"]]
    assert len(r.kernels) == len(doc["kernels_by_name"])
    copies = r.copies[r.copies["step"] == "total"]
    assert copies["bytes"].sum() == sum(c["bytes"] for c in doc["total"]["memcpy_by_kind"].values())
    assert r.launch_delays["p50_us"].dtype == np.float64


def test_steps_per_profiler_step():
    from iris_trace import attribute

    r = attribute(TRACES / "a100-cuda-graphs-6streams.json.gz")
    steps = r.steps[~r.steps["is_total"]]
    assert len(steps) == len(r.to_dict()["traces"][0]["steps"]) > 1
    assert steps["step"].astype(str).str.startswith("ProfilerStep#").all()


def test_step_range_as_the_cli(attribute_bin, tmp_path):
    from iris_trace import TraceError, attribute

    trace = TRACES / "gp100-steps-annotations.json.gz"
    name = "ProfilerStep#2"  # a host range the trace has
    rc, out, _ = cli(attribute_bin, "--step-range", name, trace)
    if rc == 0:
        assert str(attribute(trace, step_range=name)) + "\n" == out
    rc, _, err = cli(attribute_bin, "--step-range", "no-such-range", trace)
    assert rc == 2
    with pytest.raises(TraceError) as e:
        attribute(trace, step_range="no-such-range")
    assert err.strip() == f"attribute: {e.value}"


@pytest.mark.parametrize("spec", ["no-syncs", "log-every=1,2,never", "scale-kernels=0.5"])
def test_what_if_is_the_clis(spec, attribute_bin, tmp_path):
    from iris_trace import attribute

    trace = TRACES / "a100-alexnet-syncs.json.gz"
    rc, out, err = cli(attribute_bin, "--what-if", spec, "--json", tmp_path / "w.json", trace)
    assert rc == 0, err
    w = attribute(trace).what_if(spec)
    assert str(w) + "\n" == out
    assert w.json == (tmp_path / "w.json").read_text()
    assert set(w.windows["scenario"].astype(str)) >= {"replay"}


def test_what_if_bad_spec_is_a_value_error():
    from iris_trace import attribute

    with pytest.raises(ValueError):
        attribute(TRACES / "a100-event-sync.json.gz").what_if("no-such-what-if")


def test_ranks_in_parallel_equal_one_at_a_time(attribute_bin, tmp_path):
    from iris_trace import attribute

    folder = TRACES / "two-ranks"
    serial = attribute(folder, workers=1)
    parallel = attribute(folder, workers=2)
    tight = attribute(folder, workers=2, max_memory=1)  # over the bound: one rank at a time
    assert serial.json == parallel.json == tight.json
    _, out, _ = cli(attribute_bin, "--json", tmp_path / "r.json", folder)
    assert parallel.json == (tmp_path / "r.json").read_text() and str(parallel) + "\n" == out
    assert sorted(parallel.steps["rank"].unique()) == [0, 1]
    cross = parallel.cross_rank
    assert len(cross) == parallel.steps[~parallel.steps["is_total"]]["step"].nunique()
    for _, row in cross.iterrows():
        s = parallel.steps[(parallel.steps["step"] == row["step"])]
        assert row["slowest_wall_us"] == s["wall_us"].max()
        assert row["slowest_rank"] == s.loc[s["wall_us"].idxmax(), "rank"]
    assert parallel.waits_for in (0, 1)


def test_a_list_of_files_is_read_in_order(tmp_path):
    from iris_trace import attribute

    a, b = TRACES / "a100-event-sync.json.gz", TRACES / "a100-alexnet-syncs.json.gz"
    r = attribute([a, b])
    assert [t["file"] for t in r.to_dict()["traces"]] == [str(a), str(b)]
    assert r.ranks == [0, 1]  # both say rank 0: numbered by position
    assert json.loads(attribute(a).json)["traces"][0] == r.to_dict()["traces"][0]


def test_save_json_is_atomic(tmp_path):
    from iris_trace import attribute

    r = attribute(TRACES / "a100-event-sync.json.gz")
    out = tmp_path / "x.json"
    r.save_json(out)
    assert out.read_text() == r.json
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() makes it, not mkstemp's 0600


def test_call_sites_as_the_json():
    """A trace with Python stacks: each blocking call's site, caller and stack, and the sites
    table, as ./attribute's JSON has them."""
    from iris_trace import attribute

    r = attribute(TRACES.parent / "traces_stacks" / "h100-timesformer-k400.json.gz")
    doc = r.to_dict()["traces"][0]
    sites = r.call_sites
    assert list(sites["site"]) == [s["site"] for s in doc["call_sites"]["sites"]]
    assert list(sites["calls"]) == [s["calls"] for s in doc["call_sites"]["sites"]]
    assert sites["blocked_us"].sum() == pytest.approx(doc["blocking_calls"]["blocked_us"])
    assert not any(sites[c].dtype == object for c in sites.columns)
    calls = r.blocking_calls
    assert list(calls["caller"].astype(object)) == [c["caller"] for c in doc["syncs"]]
    assert list(calls["stack"].astype(object)) == [" > ".join(c["stack"]) for c in doc["syncs"]]
    assert r.would_sync.empty  # it ran on a GPU
