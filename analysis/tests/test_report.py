import json
import os
import shutil

import pytest

from analysis import bench_json, report
from analysis.tests.synthetic import CONTEXT, item_sync_doc, write

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "cpu_small")


def test_report_builds_from_committed_real_results(tmp_path, capsys):
    folder = tmp_path / "cpu-fixture"
    shutil.copytree(FIXTURE, folder)
    assert report.main([str(folder)]) == 0
    text = (folder / "REPORT.md").read_text()
    for heading in ("The article's table beside ours", "The model", "Held-out prediction",
                    "not proportional to the number of records", "Batch size", "GPU figures pending"):
        assert heading in text
    assert (folder / "item_calls.png").stat().st_size > 10000
    assert (folder / "batch_sweep.png").stat().st_size > 10000
    out = capsys.readouterr().out
    assert ".item()" in out and "never" in out
    assert not list(folder.glob("*.tmp*"))


def test_article_values_sit_beside_ours(tmp_path, capsys):
    doc = item_sync_doc(500e-6, 40e-6, device="cuda")
    doc["context"]["gpu_name"] = "Test GPU"
    write(tmp_path / "item_sync.json", doc)
    assert report.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "11.29 (GPU)" in out and "10.38 (GPU, record every 200); 10.02 (table ('remaining'))" in out
    assert "GPU figures pending" not in (tmp_path / "REPORT.md").read_text()


def _expect_failure(tmp_path, capsys, *fragments):
    (tmp_path / "REPORT.md").write_text("previous report\n")
    assert report.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    for f in fragments:
        assert f in err, err
    assert (tmp_path / "REPORT.md").read_text() == "previous report\n"  # untouched


def test_malformed_file_names_the_file(tmp_path, capsys):
    (tmp_path / "item_sync.json").write_text('{"context": {"torch_version": ')
    _expect_failure(tmp_path, capsys, "item_sync.json", "not valid JSON")


def test_missing_field_names_file_and_field(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["benchmarks"][3]["real_time"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "item_sync.json", "missing field 'real_time'")


def test_missing_counter_names_it(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["benchmarks"][0]["item_calls"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "missing counter 'item_calls'")


def test_missing_context_field(tmp_path, capsys):
    doc = item_sync_doc(1e-4, 1e-6)
    del doc["context"]["gpu_name"]
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "context: missing field 'gpu_name'")


def test_rows_from_two_machines_are_refused(tmp_path, capsys):
    write(tmp_path / "a.json", item_sync_doc(1e-4, 1e-6))
    other = item_sync_doc(1e-4, 1e-6)
    other["context"]["gpu_name"] = "NVIDIA H200"
    write(tmp_path / "b.json", other)
    _expect_failure(tmp_path, capsys, "b.json", "'gpu_name'", "one machine")


def test_only_skipped_rows_is_a_clear_error(tmp_path, capsys):
    doc = {"context": dict(CONTEXT), "benchmarks": [
        {"name": "ItemSync/cuda/interval:1/print100:1/batch:120/iterations:1/manual_time", "run_type": "iteration",
         "error_occurred": True, "error_message": "skipped: no CUDA driver on this machine (no GPU)"}]}
    write(tmp_path / "item_sync.json", doc)
    _expect_failure(tmp_path, capsys, "no ItemSync rows that ran")


def test_skipped_rows_are_listed_not_counted(tmp_path):
    doc = item_sync_doc(1e-4, 1e-6)
    doc["benchmarks"].append({"name": "ItemSync/cuda/interval:1/print100:1/batch:120/iterations:1/manual_time",
                              "run_type": "iteration", "error_occurred": True,
                              "error_message": "skipped: no CUDA driver on this machine (no GPU)"})
    run = bench_json.load(write(tmp_path / "item_sync.json", doc))
    assert all(r.device == "cpu" for r in run.rows)
    assert run.skipped[0][1].startswith("skipped:")
    assert report.main([str(tmp_path)]) == 0
    assert "skipped: no CUDA driver" in (tmp_path / "REPORT.md").read_text()


def test_counter_that_disagrees_with_the_name_is_refused(tmp_path):
    doc = item_sync_doc(1e-4, 1e-6)
    doc["benchmarks"][0]["interval"] = 7.0
    with pytest.raises(bench_json.BenchJsonError, match="disagrees with the name"):
        bench_json.load(write(tmp_path / "x.json", doc))


def test_empty_folder(tmp_path, capsys):
    assert report.main([str(tmp_path)]) == 2
    assert "no bench JSON files" in capsys.readouterr().err
