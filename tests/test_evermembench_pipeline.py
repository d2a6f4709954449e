"""EverMemBench through the whole DAG offline, the way a user runs it: `dvc exp run -S
dataset=local -S dataset.path=<a folder of topic folders>` in a clone of the seeded project (a
LongMemEval slice: every stage reruns), on the bundled models. The folder's shape selects
EverMemBench; a rerun recomputes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memrecall.artifacts import read_table
from repo_copy import ALL_STAGES, ALWAYS, dvc, stages_run

pytestmark = pytest.mark.slow
FIX = Path(__file__).parent / "fixtures" / "evermembench" / "topics"


def test_topic_folders_run_the_whole_dag(project):
    repo, env = project.repo, project.env()
    args = (
        "exp",
        "run",
        "-S",
        "dataset=local",
        "-S",
        f"dataset.path={FIX}",
        "-S",
        "dataset.parts=['01']",
        "-S",
        "dataset.question_ids=[F_SH_Top01_001,MA_C_Top01_001,F_SH_Top01_002]",
    )
    ran = stages_run(dvc(repo, env, *args))
    assert ran == ALL_STAGES
    m = json.loads((repo / "reports/metrics.json").read_text())
    assert m["n_questions"] == 3 and m["retrieval"]["n"] == 2  # F_SH_Top01_002 has no R
    e = m["evermembench"]
    assert e["n_subtasks"] == 2 and e["average"] is None
    assert e["by_form"]["multiple_choice"]["n"] + e["by_form"]["open"]["n"] == 3
    v = read_table(repo / "artifacts/verdicts.parquet")
    assert v.filter(v["question_id"] == "MA_C_Top01_001")["judge_model"][0] == "exact-match"
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"evermembench_default"}
    assert "Benchmark: **EverMemBench**" in (repo / "reports/data_card.md").read_text()
    assert "# QA by EverMemBench sub-task" in (repo / "reports/by_type.md").read_text()
    assert stages_run(dvc(repo, env, *args)) == ALWAYS  # nothing recomputed
