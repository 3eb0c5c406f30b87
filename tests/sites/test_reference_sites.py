"""./attribute's call sites on the real traces with stacks equal what reference_sites.py, an
independent computation from the raw events, finds."""

import json
import pathlib

import pytest
import reference_sites  # beside this file: pytest puts the test's folder on sys.path

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "traces_stacks"
TRACES = sorted(DATA.glob("*.json.gz"))


def key(site):
    return (site["caller"], site["callee"], site["op"], site["order"], site["calls"])


@pytest.mark.parametrize("trace", TRACES, ids=[t.name for t in TRACES])
def test_sites_equal_the_reference(trace, attribute, tmp_path):
    out = tmp_path / "a.json"
    attribute("--quiet", "--no-advice", "--json", out, trace)
    doc = json.loads(out.read_text())["traces"][0]
    ours = doc["call_sites"]
    assert ours["stacks"] == "python"
    ref = reference_sites.sites(reference_sites.load(trace))
    assert ref, "the reference found no blocking call"
    assert sorted(map(key, ours["sites"])) == sorted(map(key, ref))
    blocked = {key(s): s["blocked_us"] for s in ours["sites"]}
    for s in ref:
        assert blocked[key(s)] == pytest.approx(s["blocked_us"], abs=1e-6)
    # Every blocking call with a Python frame around it has its caller frame, and names its site.
    for call in doc["syncs"]:
        assert call["site"] is not None
        if call["stack"]:
            assert call["caller"] is not None, call


def test_a_trace_without_stacks_says_how_to_record_them(attribute):
    trace = DATA.parent / "traces" / "a100-event-sync.json.gz"
    text = attribute("--no-advice", trace).stdout
    assert text.count("with_stack=True") == 1
