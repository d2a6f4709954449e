"""An API key set in the environment reaches the provider and appears nowhere the pipeline
writes: params.yaml, dvc.lock, experiment commits, every Parquet file, reports/, the caches,
the MLflow store, and all output of the commands."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fake_openai_server import FakeOpenAIServer
from memrecall.artifacts import read_table
from repo_copy import ALWAYS, dvc, git, stages_run

pytestmark = pytest.mark.slow
SECRET = "fake-key-memrecall-PIPELINE-SECRET-9876543210fedcba"  # not a real key


def test_api_key_never_written_by_an_experiment_or_mlflow(project):
    repo, cache = project.repo, project.cache
    env = project.env(MEMRECALL_TEST_API_KEY=SECRET)
    outputs = []
    with FakeOpenAIServer() as srv:
        proc = dvc(
            repo,
            env,
            "exp",
            "run",
            "-n",
            "remote-reader",
            "-S",
            "dataset.limit=2",
            "-S",
            "reader=gpt4o",
            "-S",
            f"reader.runtime.api_base={srv.url}",
            "-S",
            "reader.runtime.api_key_env=MEMRECALL_TEST_API_KEY",
        )
        outputs += [proc.stdout, proc.stderr]
        assert stages_run(proc) == ALWAYS + [
            "read",
            "judge",
            "errata",
            "aggregate",
        ]  # on the seeded DAG
        assert srv.auth_headers == {f"Bearer {SECRET}"}  # the key was really used
        assert srv.total_requests == 2
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert answers["error"].is_null().all() and (answers["cost_usd"] > 0).all()

    sync = subprocess.run(
        [sys.executable, "-m", "memrecall.cli", "sync"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert sync.returncode == 0, sync.stderr
    outputs += [sync.stdout, sync.stderr]
    assert (repo / "mlflow.db").exists()
    metrics = json.loads((repo / "reports/metrics.json").read_text())
    assert metrics["cost_usd"] > 0

    # Every file in the workspace and the caches, raw bytes (sqlite pages, Parquet pages).
    scanned = 0
    for root in (repo, cache):
        for path in root.rglob("*"):
            if path.is_file() and ".git" not in path.parts:
                assert SECRET.encode() not in path.read_bytes(), path
                scanned += 1
    assert scanned > 20
    # Everything committed, experiment refs included (git objects are compressed on disk).
    assert "remote-reader" in git(repo, "for-each-ref", "refs/exps")
    history = subprocess.run(
        ["git", "log", "-p", "--all", "--text"], cwd=repo, capture_output=True, check=True
    ).stdout
    assert b"api_key_env: MEMRECALL_TEST_API_KEY" in history  # the name is, the value is not
    assert SECRET.encode() not in history
    for text in outputs:
        assert SECRET not in text
