"""The whole DAG on a 2-question slice, in a temporary copy of the repo: every stage runs, a
no-op repro runs nothing, a reader-prompt change reruns only read → judge → aggregate, and an
unchanged request is never sent to the model twice."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memrecall.artifacts import read_meta, read_table

from conftest import REPO

pytestmark = pytest.mark.slow
ALL = ["download", "embed", "retrieve", "rerank", "rewrite", "read", "judge", "aggregate"]


def _copy_repo(dst: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        src = REPO / rel
        if src.is_file() and not rel.startswith(("reports/", "tests/")):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
    return dst


def _set_params(repo: Path, **changes):
    path = repo / "params.yaml"
    params = yaml.safe_load(path.read_text())
    for dotted, value in changes.items():
        group, key = dotted.split(".")
        params[group][key] = value
    path.write_text(yaml.safe_dump(params, sort_keys=False))


def _repro(repo: Path, env, *args) -> list[str]:
    proc = subprocess.run([sys.executable, "-m", "dvc", "repro", *args], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return re.findall(r"Running stage '(\w+)'", proc.stdout)


def _model_calls(cache: Path) -> list[dict]:
    log = cache / "llm" / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_dag_reruns_only_what_changed(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    cache = tmp_path / "cache"
    env = {**os.environ, "MEMRECALL_CACHE_DIR": str(cache),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("DVC_ROOT", None)
    _set_params(repo, **{"dataset.limit": 2})

    assert _repro(repo, env) == ALL
    questions = read_table(repo / "artifacts/questions.parquet", "questions")
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert questions.height == 2 and answers.height == 2
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"default"}
    calls = _model_calls(cache)
    assert [c["stage"] for c in calls] == ["read", "read"]  # rule judge, rewrite off: no LLM
    metrics = json.loads((repo / "reports/metrics.json").read_text())
    assert metrics["n_questions"] == 2
    assert {"qa", "retrieval", "cost_usd", "refusal_rate", "judge_errors"} <= set(metrics)
    first_answers = (repo / "artifacts/answers.parquet").read_bytes()

    assert _repro(repo, env) == []  # no-op

    # Forcing read with unchanged requests: zero model calls, byte-identical answers,
    # so nothing downstream runs.
    assert _repro(repo, env, "--force", "--single-item", "read") == ["read"]
    assert len(_model_calls(cache)) == 2
    assert (repo / "artifacts/answers.parquet").read_bytes() == first_answers

    # A reader-prompt change reruns read, judge, aggregate only, with 2 new calls.
    # (Chain-of-Note changes every request; type_aware equals default for these two types,
    # so it would rerun read with 0 calls.)
    _set_params(repo, **{"reader.prompt": "con"})
    assert _repro(repo, env) == ["read", "judge", "aggregate"]
    assert len(_model_calls(cache)) == 4
    assert read_meta(repo / "artifacts/answers.parquet")["params"]["prompt"] == "con"

    # A judge change reruns judge and aggregate only (and the rule judge calls no model).
    _set_params(repo, **{"judge.model": "rule-v1-renamed"})
    assert _repro(repo, env) == ["judge", "aggregate"]
    assert len(_model_calls(cache)) == 4
