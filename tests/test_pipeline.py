"""The whole DAG on a 2-question slice (the session's seeded project): every stage runs, a no-op
repro runs nothing (but the `sources` fingerprint, which runs every time), a runtime knob
changes no stage, a reader-prompt change reruns only read → judge → errata → aggregate, a judge
change only judge → errata → aggregate, and an unchanged request is never sent to the model
twice."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_meta, read_table
from repo_copy import ALL_STAGES, ALWAYS, changed_stages, dvc, set_params, stages_run

pytestmark = pytest.mark.slow


def test_seeding_ran_every_stage_once(seeded_project):
    repo = seeded_project.repo
    assert stages_run(seeded_project.seeding) == ALL_STAGES
    questions = read_table(repo / "artifacts/questions.parquet", "questions")
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert questions.height == 2 and answers.height == 2
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"default"}
    # rule judge, rewrite off: the reader is the only model called
    assert [c["stage"] for c in seeded_project.llm_calls()] == ["read", "read"]
    metrics = json.loads((repo / "reports/metrics.json").read_text())
    assert metrics["n_questions"] == 2
    assert {"qa", "retrieval", "cost_usd", "refusal_rate", "judge_errors"} <= set(metrics)


def test_dag_reruns_only_what_changed(project):
    repo, env = project.repo, project.env()

    def repro(*args) -> list[str]:
        return stages_run(dvc(repo, env, "repro", *args))

    first_answers = (repo / "artifacts/answers.parquet").read_bytes()
    assert repro() == ALWAYS  # no-op

    # Runtime knobs are not results: no stage sees a change, so a repro runs nothing.
    set_params(
        repo,
        **{
            "reader.runtime.concurrency": 3,
            "reader.runtime.timeout_s": 30,
            "embedder.runtime.batch_size": 4,
            "reranker.runtime.batch_size": 2,
            "rewrite.llm.runtime.num_retries": 1,
        },
    )
    assert changed_stages(repo) == {}

    # Forcing read with unchanged requests: zero model calls, byte-identical answers,
    # so nothing downstream runs.
    assert repro("--force", "--single-item", "read") == ["read"]
    assert len(project.llm_calls()) == 2
    assert (repo / "artifacts/answers.parquet").read_bytes() == first_answers

    # A reader-prompt change reruns read, judge, aggregate only, with 2 new calls.
    # (Chain-of-Note changes every request; type_aware equals default for these two types,
    # so it would rerun read with 0 calls.)
    set_params(repo, **{"reader.prompt": "con"})
    assert repro() == ALWAYS + ["read", "judge", "errata", "aggregate"]
    assert len(project.llm_calls()) == 4
    assert read_meta(repo / "artifacts/answers.parquet")["params"]["prompt"] == "con"

    # A judge change reruns judge, errata (the run's judge on corrected golds, none here) and
    # aggregate only (and the rule judge calls no model).
    set_params(repo, **{"judge.model": "rule-v1-renamed"})
    assert set(changed_stages(repo)) == {"judge", "errata"}  # aggregate follows their outputs
    assert repro() == ALWAYS + ["judge", "errata", "aggregate"]
    assert len(project.llm_calls()) == 4
