"""Files that params name are DVC inputs: editing the file behind dataset.path (or a
dataset.question_ids file) reruns download, through the `sources` fingerprint stage."""

from __future__ import annotations

import json

import pytest

from confs import group
from conftest import SAMPLE_FILE
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.data.sources import fingerprint
from memrecall.hashing import sha256_file
from repo_copy import compose, copy_repo, dvc, pipeline_env, stages_run


def test_fingerprint_hashes_named_files_only(tmp_path):
    data, ids = tmp_path / "data.json", tmp_path / "ids.txt"
    data.write_text("[]")
    ids.write_text("q1\n")
    fp = fingerprint(group("dataset", "local", path=str(data), question_ids=str(ids)))
    assert fp == {
        "dataset.path": {"path": str(data), "sha256": sha256_file(data)},
        "dataset.question_ids": {"path": str(ids), "sha256": sha256_file(ids)},
    }
    # A list of ids and a hub dataset's null path are params already: nothing to hash.
    assert fingerprint(group("dataset", "longmemeval_s_cleaned", question_ids=["q1"])) == {}
    missing = fingerprint(group("dataset", "local", path=str(tmp_path / "nope.json")))
    assert missing["dataset.path"]["sha256"] is None  # download then names the missing file


@pytest.mark.slow
def test_editing_the_local_dataset_file_or_the_id_file_reruns_download(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    env = pipeline_env(tmp_path / "cache")
    records = load_records(SAMPLE_FILE)
    data, ids = tmp_path / "local.json", tmp_path / "ids.txt"
    data.write_text(json.dumps(records[:4]))
    ids.write_text("".join(r["question_id"] + "\n" for r in records[:3]))
    compose(repo, env, "dataset=local", f"dataset.path={data}", f"dataset.question_ids={ids}")

    def repro() -> list[str]:
        return stages_run(dvc(repo, env, "repro", "download"))

    def questions() -> dict[str, str]:
        import polars as pl

        q = pl.read_parquet(repo / "artifacts/questions.parquet")
        return dict(q.select("question_id", "question").iter_rows())

    first = records[0]["question_id"]
    assert repro() == ["sources", "download"] and len(questions()) == 3
    assert repro() == ["sources"]  # nothing changed: download is not rerun
    records[0]["question"] += " (edited)"
    data.write_text(json.dumps(records[:4]))  # the same params, another file content
    assert repro() == ["sources", "download"] and questions()[first].endswith("(edited)")
    ids.write_text("".join(r["question_id"] + "\n" for r in records[:2]))
    assert repro() == ["sources", "download"] and len(questions()) == 2
    assert repro() == ["sources"]
