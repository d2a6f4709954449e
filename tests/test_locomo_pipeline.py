"""LoCoMo through the whole DAG offline, the way a user runs it: `dvc exp run -S dataset=local
-S dataset.path=<a LoCoMo file>` in a committed project, on the bundled models. The file's shape
selects the LoCoMo path; the same overrides again leave nothing to recompute."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_table
from repo_copy import ALL_STAGES, changed_stages, compose, dvc, stages_run
from test_locomo_data import conversation

pytestmark = pytest.mark.slow


def _calls(cache) -> int:
    log = cache / "llm" / "calls.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_locomo_file_runs_the_whole_dag(project, tmp_path, monkeypatch):
    repo, cache = project.repo, project.cache  # a LongMemEval slice is seeded: all reruns
    data = tmp_path / "my_locomo.json"
    data.write_text(json.dumps([conversation("conv-a")]))
    env = project.env()
    calls_before = _calls(cache)
    overrides = (
        "dataset=local",
        f"dataset.path={data}",
        "dataset.limit=3",
        "embedder.granularity=round",
    )
    ran = stages_run(dvc(repo, env, "exp", "run", *(a for o in overrides for a in ("-S", o))))
    assert ran == ALL_STAGES
    # one reader call per question; rule judge, rewrite off
    assert _calls(cache) - calls_before == 3

    m = json.loads((repo / "reports/metrics.json").read_text())
    assert m["n_questions"] == 3
    assert set(m["qa"]["by_category"]) == set(m["f1"]["by_category"]) == {"1", "2", "3", "4", "5"}
    assert m["qa"]["n_by_category"] == {"1": 1, "2": 1, "3": 0, "4": 0, "5": 1}
    assert m["qa"]["n_judged"] == 2  # the headline leaves category 5 out
    assert {"session", "turn"} <= set(m["retrieval"]) and m["retrieval"]["n"] == 2
    assert "Benchmark: **LoCoMo**" in (repo / "reports/data_card.md").read_text()
    assert "# QA by LoCoMo category" in (repo / "reports/by_type.md").read_text()
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"locomo_default"}
    emb = read_table(repo / "artifacts/embeddings.parquet")
    assert emb.height == 4  # one unit per turn of the one conversation, embedded once

    # The same overrides composed again (what `dvc exp run -S ...` does first): no stage is
    # left to recompute, so no model call can be sent.
    compose(repo, env, *overrides)
    assert changed_stages(repo) == {}

    _check_mlflow(repo, cache, tmp_path, monkeypatch)


def _check_mlflow(repo, cache, tmp_path, monkeypatch):
    """The LoCoMo run in MLflow like a LongMemEval one: a trace per question with the
    category's name as its type (and number as a tag), the gold as expectation, the verdict as
    feedback; the adversarial question's gold is the refusal it expects, and the misleading
    answer it invites is shown beside it, never taken as the gold."""
    from mlflow import MlflowClient

    from memrecall import tracking
    from memrecall.benchmarks.locomo.data import UNANSWERABLE_REPLY

    monkeypatch.setenv("MEMRECALL_CACHE_DIR", str(cache))  # the reader's cached calls
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    synced = tracking.sync_experiments(repo, uri=uri, progress=False)
    assert set(synced.values()) == {"created"}
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(tracking.experiment_name())
    runs = client.search_runs([exp.experiment_id])
    assert sorted(r.info.run_name for r in runs) == sorted(synced)
    run = runs[0]
    assert run.data.tags["mlflow.runType"] == "genai_evaluate"
    found = client.search_traces(locations=[exp.experiment_id], run_id=run.info.run_id)
    by_cat = {t.info.tags["memrecall.category"]: t for t in found}
    assert sorted(by_cat) == ["1", "2", "5"]
    verdicts = {
        r["question_id"]: r["label"]
        for r in read_table(repo / "artifacts/verdicts.parquet").iter_rows(named=True)
    }

    def assessment(t, name):
        return next(a for a in t.info.assessments if a.name == name)

    for cat, t in by_cat.items():
        root = t.data.spans[0]
        assert root.name == "question" and root.inputs["category"] == int(cat)
        assert t.info.tags["memrecall.question_type"] == root.inputs["question_type"]
        qid = t.info.tags["memrecall.question_id"]
        assert assessment(t, "correct").value is verdicts[qid]  # the rule judge's own verdict
        read = next(s for s in t.data.spans if s.name == "read")
        assert read.inputs["messages"][-1]["role"] == "user"  # the prompt actually sent
    adv = by_cat["5"]
    assert adv.info.tags["memrecall.question_type"] == "adversarial"
    assert adv.info.tags["memrecall.is_abstention"] == "true"
    assert assessment(adv, "expected_response").value == UNANSWERABLE_REPLY
    assert adv.data.spans[0].inputs["adversarial_answer"] == "painting"
    assert assessment(by_cat["2"], "expected_response").value == "7 May 2023"
    assert "adversarial_answer" not in by_cat["2"].data.spans[0].inputs
