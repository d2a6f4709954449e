"""stages/download.py as DVC runs it: the bundled default, its printed counts, and one-line
errors."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

from confs import group
from conftest import REPO
from memrecall.artifacts import read_table


def _stage(tmp_path, dataset: dict):
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"dataset": dataset}))
    # DVC_ROOT: the bundled file's relative path resolves against the project, as in a queued
    # experiment's temp clone.
    env = {**os.environ, "DVC_ROOT": str(REPO)}
    return subprocess.run(
        [sys.executable, str(REPO / "stages" / "download.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bundled_sample_stage(tmp_path):
    proc = _stage(tmp_path, group("dataset", "sample", limit=6))
    assert proc.returncode == 0, proc.stderr
    assert "download: sample: 6 questions (0 abstention) of 12 in" in proc.stdout
    assert (
        "sessions 295 in haystacks, 294 unique; turns 3,008 in haystacks, 2,996 unique"
        in proc.stdout
    )
    q = read_table(tmp_path / "artifacts/questions.parquet", "questions")
    assert q.height == 6 and q["question_type"].n_unique() == 6
    s = read_table(tmp_path / "artifacts/sessions.parquet", "sessions")
    t = read_table(tmp_path / "artifacts/turns.parquet", "turns")
    assert s.height == 294 and set(t["session_id"]) == set(s["session_id"])
    card = (tmp_path / "reports/data_card.md").read_text()
    assert "`data/sample/longmemeval_s_cleaned_sample.json.gz`" in card
    assert "limit: first 6 in file order" in card


def test_stage_errors_are_one_line(tmp_path):
    proc = _stage(tmp_path, group("dataset", "sample", name="x", source="ftp"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "error: unknown value 'ftp' for config key 'dataset.source'; "
        "choose one of: bundled, local, hub, url, release"
    )
    proc = _stage(tmp_path, group("dataset", "local", path=str(tmp_path / "missing.json")))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "dataset file not found" in proc.stderr and "missing.json" in proc.stderr
    assert not (tmp_path / "artifacts").exists()
    # A params.yaml that lacks a key (written by hand, or before conf/ gained it): one line too.
    proc = _stage(tmp_path, {"name": "x", "source": "bundled", "path": "data/sample/nope.json"})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert (
        "params lack the key 'dataset.sha256'" in proc.stderr and "memrecall compose" in proc.stderr
    )
