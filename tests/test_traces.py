"""MLflow GenAI views of a run (memrecall.traces) and the stage timings behind run durations."""

from __future__ import annotations

import json

import polars as pl
import pytest

from memrecall import timings, traces
from memrecall.llm.cache import CallCache

QDATE = "2023/05/20 (Sat) 02:21"


def _tables():
    questions = pl.DataFrame(
        {
            "question_id": ["q_ok", "q_wrong", "q_judge_failed", "q_reader_failed_abs"],
            "question_type": [
                "single-session-user",
                "multi-session",
                "knowledge-update",
                "temporal-reasoning",
            ],
            "question": ["Where do I work?", "How many pets?", "My new car?", "When did I move?"],
            "question_date": [QDATE] * 4,
            "answer": ["Acme", "3", "a Civic", "not mentioned"],
            "is_abstention": [False, False, False, True],
        }
    )
    retrieve = pl.DataFrame(
        {
            "question_id": ["q_ok", "q_ok", "q_wrong"],
            "rank": [1, 2, 1],
            "session_id": ["s1", "s2", "s3"],
            "score": [0.9, 0.5, 0.7],
        }
    )
    answers = pl.DataFrame(
        {
            "question_id": ["q_ok", "q_wrong", "q_judge_failed", "q_reader_failed_abs"],
            "hypothesis": ["You work at Acme.", "2", "a Civic", None],
            "model": ["m"] * 4,
            "prompt_id": ["default:abc"] * 4,
            "request_hash": ["h_ok", "h_wrong", "h_judge", None],
            "input_tokens": [100, 120, 90, 0],
            "output_tokens": [5, 1, 3, 0],
            "reasoning_tokens": [0] * 4,
            "cost_usd": [0.001, 0.002, 0.001, 0.0],
            "latency_s": [1.5, 1.0, 2.0, 0.0],
            "refused": [False] * 4,
            "error": [None, None, None, "RateLimitError: 429 after 6 attempts"],
        }
    )
    verdicts = pl.DataFrame(
        {
            "question_id": ["q_ok", "q_wrong", "q_judge_failed", "q_reader_failed_abs"],
            "label": [True, False, None, None],
            "judge_model": ["gpt-4o-2024-08-06"] * 4,
            "raw": ["yes", "no", "maybe?", None],
            "error": [None, None, "judge reply does not begin with yes/no", None],
            "request_hash": ["j1", "j2", "j3", None],
            "latency_s": [0.3, 0.2, 0.4, 0.0],
            "cost_usd": [0.0001] * 3 + [0.0],
        }
    )
    return {
        "questions": questions,
        "candidates_retrieve": retrieve,
        "answers": answers,
        "verdicts": verdicts,
    }


def test_question_views_join_what_the_run_wrote(tmp_path):
    cache = CallCache(tmp_path / "llm")
    row = {
        "model": "m",
        "text": "You work at Acme.",
        "input_tokens": 100,
        "output_tokens": 5,
        "reasoning_tokens": 0,
        "cost_usd": 0.001,
        "latency_s": 1.5,
    }
    sent = [{"role": "user", "content": "Where do I work?"}]
    cache.put("h_ok", row, "read", sent)
    cache.put("h_wrong", {**row, "text": "2"}, "read")  # cached before messages were kept
    calls = cache.records(["h_ok", "h_wrong", "h_missing"])
    assert calls["h_ok"]["messages"] == sent and calls["h_wrong"]["messages"] is None
    assert calls["h_ok"]["stage"] == "read" and "h_missing" not in calls

    views = {v.question_id: v for v in traces.question_views(_tables(), calls)}
    assert [c["session_id"] for c in views["q_ok"].candidates["retrieve"]] == ["s1", "s2"]
    assert views["q_ok"].read_call["messages"] == sent
    assert views["q_ok"].judge_error is None and views["q_wrong"].judge_error is None
    assert "yes/no" in views["q_judge_failed"].judge_error
    # A failed reader call is not judged: the trace says so, it is not a wrong answer.
    assert views["q_reader_failed_abs"].judge_error.startswith("not judged: the reader failed")


def test_stage_timings_give_the_run_window(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMRECALL_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "out").mkdir()
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  read:\n    cmd: x\n    outs:\n      - out/answers.parquet\n"
        "  aggregate:\n    cmd: y\n    metrics:\n"
        "      - out/metrics.json:\n          cache: false\n"
    )
    (tmp_path / "out/answers.parquet").write_bytes(b"answers")
    (tmp_path / "out/metrics.json").write_bytes(b"{}")
    timings.record_stage("read", 1000.0, 1060.0, cwd=tmp_path)
    timings.record_stage("aggregate", 1061.0, 1065.0, cwd=tmp_path)
    rows = timings.load_timings()
    assert [r["stage"] for r in rows] == ["read", "aggregate"]
    md5 = rows[0]["md5"]["out/answers.parquet"]
    lock = {
        "stages": {
            "read": {"outs": [{"path": "out/answers.parquet", "md5": md5}]},
            "aggregate": {
                "outs": [{"path": "out/metrics.json", "md5": rows[1]["md5"]["out/metrics.json"]}]
            },
            "embed": {"outs": [{"path": "out/emb.parquet", "md5": "0" * 32}]},
        }
    }
    start, end, stages = timings.run_window(lock)
    assert (start, end) == (1000.0, 1065.0) and set(stages) == {"read", "aggregate"}

    # A stage restored from the run-cache was computed long before: it doesn't stretch the run.
    old = {"stage": "embed", "started": 10.0, "ended": 20.0, "md5": {"out/emb.parquet": "0" * 32}}
    start, end, stages = timings.run_window(lock, rows + [old])
    assert (start, end) == (1000.0, 1065.0) and "embed" not in stages
    # Other outputs (another run's answers) don't match.
    other = {"stages": {"read": {"outs": [{"path": "out/answers.parquet", "md5": "f" * 32}]}}}
    assert timings.run_window(other, rows) is None


def test_prompt_names_by_stage_and_prompt():
    assert traces.prompt_name("read", "type_aware:0123abcd") == "memrecall-read-type_aware"
    assert traces.prompt_name("judge", "official:xy") == "memrecall-judge-official"
    assert traces.prompt_name("read", "notes:ab/c") == "memrecall-read-notes"


@pytest.mark.slow
def test_traces_assessments_prompts_and_dataset_in_mlflow(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
    import mlflow
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri)
    exp = client.create_experiment("t", artifact_location=str(tmp_path / "art"))
    mlflow.set_experiment(experiment_id=exp)
    run_id = client.create_run(exp, run_name="r", start_time=1_700_000_000_000).info.run_id
    views = traces.question_views(_tables(), {})
    ids = traces.log_question_traces(
        client, exp, run_id, views, start_s=1_700_000_000.0, run_name="r"
    )
    assert set(ids) == {v.question_id for v in views}
    traces.mark_evaluation_run(client, run_id, views, 1_700_000_100_000)
    prompts = {
        "default:abc": {
            "stage": "read",
            "template": "Answer: {question}",
            "guidance": {"multi-session": "count each item once"},
        }
    }
    versions = traces.register_prompts(client, prompts)
    assert [v.version for v in traces.register_prompts(client, prompts)] == [
        v.version for v in versions
    ]  # same content: no new version
    changed = traces.register_prompts(
        client, {"default:abc": {"stage": "read", "template": "Reply: {question}"}}
    )
    assert changed[0].version == versions[0].version + 1
    traces.log_dataset_input(
        client,
        run_id,
        {"dataset": {"name": "sample", "limit": 4, "path": "data/sample/x.json.gz"}},
        "ab" * 32,
        4,
    )

    found = mlflow.search_traces(locations=[exp], run_id=run_id, return_type="list")
    by_q = {t.info.tags[traces.TAG_QUESTION_ID]: t for t in found}
    assert set(by_q) == {v.question_id for v in views}

    def assessment(t, name):
        return next(a for a in t.info.assessments if a.name == name)

    ok, wrong = by_q["q_ok"], by_q["q_wrong"]
    assert [s.name for s in ok.data.spans] == ["question", "retrieve", "read", "judge"]
    assert assessment(ok, "correct").value is True
    assert assessment(ok, "correct").source.source_id == "gpt-4o-2024-08-06"
    assert assessment(wrong, "correct").value is False
    assert assessment(ok, "expected_response").value == "Acme"
    for qid in ("q_judge_failed", "q_reader_failed_abs"):
        t = by_q[qid]
        assert t.info.state == "ERROR"
        verdict = assessment(t, "correct")
        assert verdict.value is None and verdict.error.error_code == "NOT_JUDGED"
    retrieved = next(s for s in ok.data.spans if s.name == "retrieve").outputs
    assert [d["metadata"]["doc_uri"] for d in retrieved] == ["s1", "s2"]
    read = next(s for s in ok.data.spans if s.name == "read")
    assert read.attributes["mlflow.chat.tokenUsage"]["input_tokens"] == 100

    run = client.get_run(run_id)
    assert run.data.tags.get("mlflow.runType") == "genai_evaluate"
    assert run.data.metrics["correct/mean"] == 0.5  # over the two judged questions
    assert assessment(ok, "correct").metadata["mlflow.assessment.sourceRunId"] == run_id
    assert ok.info.request_time == 1_700_000_000_000 and ok.info.execution_duration == 1800
    ours = [d.dataset for d in run.inputs.dataset_inputs if d.dataset.name == "sample"]
    assert ours and json.loads(ours[0].profile)["num_questions"] == 4
    assert json.loads(ours[0].source)["sha256"] == "ab" * 32


def test_each_panel_member_is_its_own_assessment():
    from memrecall.traces import QuestionView, panel_feedback

    v = QuestionView(
        "q1",
        "multi-session",
        "Q?",
        "",
        "5",
        False,
        reply={"error": None},
        verdict={"label": True, "label:rule": True, "label:gpt4o": None, "error": None},
    )
    fb = {f.name: f for f in panel_feedback(v, run_id="r1")}
    assert set(fb) == {"correct:rule", "correct:gpt4o"}
    assert fb["correct:rule"].value is True and fb["correct:rule"].source.source_type == "CODE"
    assert fb["correct:gpt4o"].error.error_code == "NOT_JUDGED"
    assert fb["correct:gpt4o"].source.source_type == "LLM_JUDGE"
    assert (
        panel_feedback(QuestionView("q2", "t", "Q?", "", "a", False, verdict={"label": True})) == []
    )
