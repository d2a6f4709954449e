"""The whole DAG on a 2-question slice, in a temporary copy of the repo: every stage runs, a
no-op repro runs nothing (but the `sources` fingerprint, which runs every time), a runtime knob
reruns nothing, a reader-prompt change reruns only read → judge → aggregate, and an unchanged
request is never sent to the model twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memrecall.artifacts import read_meta, read_table

from repo_copy import ALWAYS, copy_repo, dvc, pipeline_env, set_params, stages_run

pytestmark = pytest.mark.slow
ALL = ["sources", "download", "embed", "retrieve", "rerank", "rewrite", "read", "judge",
       "aggregate"]


def _repro(repo: Path, env, *args) -> list[str]:
    return stages_run(dvc(repo, env, "repro", *args))


def _model_calls(cache: Path) -> list[dict]:
    log = cache / "llm" / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_dag_reruns_only_what_changed(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    cache = tmp_path / "cache"
    env = pipeline_env(cache)
    set_params(repo, **{"dataset.limit": 2})

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

    assert _repro(repo, env) == ALWAYS  # no-op

    # Runtime knobs are not results: nothing reruns and no artifact changes.
    arts = {p.name: p.read_bytes() for p in (repo / "artifacts").glob("*.parquet")}
    set_params(repo, **{"reader.runtime.concurrency": 3, "reader.runtime.timeout_s": 30,
                        "embedder.runtime.batch_size": 4, "reranker.runtime.batch_size": 2,
                        "rewrite.llm.runtime.num_retries": 1})
    assert _repro(repo, env) == ALWAYS
    assert {p.name: p.read_bytes() for p in (repo / "artifacts").glob("*.parquet")} == arts

    # Forcing read with unchanged requests: zero model calls, byte-identical answers,
    # so nothing downstream runs.
    assert _repro(repo, env, "--force", "--single-item", "read") == ["read"]
    assert len(_model_calls(cache)) == 2
    assert (repo / "artifacts/answers.parquet").read_bytes() == first_answers

    # A reader-prompt change reruns read, judge, aggregate only, with 2 new calls.
    # (Chain-of-Note changes every request; type_aware equals default for these two types,
    # so it would rerun read with 0 calls.)
    set_params(repo, **{"reader.prompt": "con"})
    assert _repro(repo, env) == ALWAYS + ["read", "judge", "aggregate"]
    assert len(_model_calls(cache)) == 4
    assert read_meta(repo / "artifacts/answers.parquet")["params"]["prompt"] == "con"

    # A judge change reruns judge and aggregate only (and the rule judge calls no model).
    set_params(repo, **{"judge.model": "rule-v1-renamed"})
    assert _repro(repo, env) == ALWAYS + ["judge", "aggregate"]
    assert len(_model_calls(cache)) == 4
