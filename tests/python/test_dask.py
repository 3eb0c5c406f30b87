"""attribute(paths, client=...) on a dask.distributed LocalCluster of two worker processes
equals the serial result, what_if too."""

import pytest
from conftest import TRACES

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_cluster_result_equals_serial(client):
    from iris_trace import attribute

    paths = [TRACES / "two-ranks", TRACES / "a100-alexnet-syncs.json.gz"]
    serial = attribute(paths, workers=1)
    remote = attribute(paths, client=client)
    assert remote.json == serial.json and str(remote) == str(serial)
    assert remote.cross_rank.equals(serial.cross_rank)
    assert remote.waits_for == serial.waits_for
    assert len({w["host"] for w in client.scheduler_info()["workers"].values()}) >= 1
    assert len(client.scheduler_info()["workers"]) == 2
    w = remote.what_if("no-syncs")
    assert w.json == serial.what_if("no-syncs").json


def test_cluster_error_is_a_trace_error(client, tmp_path):
    from iris_trace import TraceError, attribute

    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    with pytest.raises(TraceError) as e:
        attribute([bad], client=client)
    assert e.value.path == str(bad)
