"""LoCoMo through the whole DAG offline, the way a user runs it: `dvc exp run -S dataset=local
-S dataset.path=<a LoCoMo file>` in a committed copy of the repo, on the bundled models. The
file's shape selects the LoCoMo path; a rerun recomputes nothing and sends no model call."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_table

from repo_copy import ALWAYS, copy_repo, dvc, pipeline_env, stages_run
from test_locomo_data import conversation

pytestmark = pytest.mark.slow


def _calls(cache) -> int:
    log = cache / "llm" / "calls.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_locomo_file_runs_the_whole_dag(tmp_path):
    repo = copy_repo(tmp_path / "repo", commit=True)
    data = tmp_path / "my_locomo.json"
    data.write_text(json.dumps([conversation("conv-a")]))
    cache = tmp_path / "cache"
    env = pipeline_env(cache)
    args = ("exp", "run", "-S", "dataset=local", "-S", f"dataset.path={data}",
            "-S", "dataset.limit=3", "-S", "embedder.granularity=round")
    ran = stages_run(dvc(repo, env, *args))
    assert ran == ALWAYS + ["download", "embed", "retrieve", "rerank", "rewrite", "read", "judge",
                   "aggregate"]
    assert _calls(cache) == 3  # one reader call per question; rule judge, rewrite off

    m = json.loads((repo / "reports/metrics.json").read_text())
    assert m["n_questions"] == 3
    assert set(m["qa"]["by_category"]) == set(m["f1"]["by_category"]) == {"1", "2", "3", "4", "5"}
    assert m["qa"]["n_by_category"] == {"1": 1, "2": 1, "3": 0, "4": 0, "5": 1}
    assert m["qa"]["n_judged"] == 2                  # the headline leaves category 5 out
    assert {"session", "turn"} <= set(m["retrieval"]) and m["retrieval"]["n"] == 2
    assert "Benchmark: **LoCoMo**" in (repo / "reports/data_card.md").read_text()
    assert "# QA by LoCoMo category" in (repo / "reports/by_type.md").read_text()
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"locomo_default"}
    emb = read_table(repo / "artifacts/embeddings.parquet")
    assert emb.height == 4  # one unit per turn of the one conversation, embedded once

    # The same experiment again: nothing is recomputed and no model call is sent.
    assert stages_run(dvc(repo, env, *args)) == ALWAYS
    assert _calls(cache) == 3
