"""The formats published runs come in (memrecall.data.run_formats): each read into the official
eval-results rows, with errors that name the file, the answer's position and the field."""

from __future__ import annotations

import json

import pytest

from memrecall.data.run_formats import read_run
from memrecall.errors import InputError


def _caura(tmp_path, results, **top):
    """A Caura eval_results.json: its totals, then one result per answer."""
    path = tmp_path / "eval_results.json"
    body = {"overall_accuracy": 0.5, "total_questions": len(results), **top, "results": results}
    path.write_text(json.dumps(body))
    return path


def _result(qid, hypothesis, correct, judge_model="gpt-4o"):
    return {
        "question_id": qid,
        "question": "How long is my commute?",
        "gold_answer": "45 minutes",
        "hypothesis": hypothesis,
        "question_type": "single-session-user",
        "correct": correct,
        "judge_reason": "Yes." if correct else "No.",
        "judge_model": judge_model,
    }


def test_a_caura_file_reads_as_official_rows_under_the_snapshot_it_records(tmp_path):
    results = [_result("q1", "45 minutes each way.", True), _result("q2_abs", "An hour.", False)]
    path = _caura(tmp_path, results, judge_model_resolved="gpt-4o-2024-08-06")
    rows = read_run(path, "caura")
    assert [
        (r["question_id"], r["hypothesis"], r["label"], r["model"], r["line"]) for r in rows
    ] == [
        ("q1", "45 minutes each way.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "An hour.", False, "gpt-4o-2024-08-06", 2),
    ]


def test_a_file_naming_only_the_alias_takes_the_snapshot_its_publisher_documents(tmp_path):
    path = _caura(tmp_path, [_result("q1", "45 minutes.", True)])
    assert read_run(path, "caura")[0]["model"] == "gpt-4o"
    assert read_run(path, "caura", judge_model="gpt-4o-2024-08-06")[0]["model"] == (
        "gpt-4o-2024-08-06"
    )
    # a snapshot of another model is no reading of this alias
    with pytest.raises(InputError, match="judge is 'gpt-4o'; judge_model 'gpt-4o-mini-2024-07-18'"):
        read_run(path, "caura", judge_model="gpt-4o-mini-2024-07-18")


def test_a_caura_answer_without_a_verdict_or_an_answer_names_where(tmp_path):
    unsure = _caura(tmp_path, [_result("q1", "45 minutes.", True), _result("q2", "1 h", "True")])
    with pytest.raises(InputError, match="correct must be true or false, got 'True'") as err:
        read_run(unsure, "caura")
    assert (err.value.line, err.value.question_id, err.value.field) == (2, "q2", "correct")
    silent = _result("q1", "", True)
    del silent["hypothesis"]
    with pytest.raises(InputError, match="hypothesis must be a string, got nothing") as err:
        read_run(_caura(tmp_path, [silent]), "caura")
    assert err.value.question_id == "q1"
    unjudged = _result("q1", "45 minutes.", True)
    del unjudged["judge_model"]
    with pytest.raises(InputError, match="no judge_model, and no judge_model_resolved") as err:
        read_run(_caura(tmp_path, [unjudged]), "caura")
    assert (err.value.question_id, err.value.field) == ("q1", "judge_model")
    twice = [_result("q1", "45 minutes.", True), _result("q1", "45 min.", True)]
    with pytest.raises(InputError, match="question_id given twice"):
        read_run(_caura(tmp_path, twice), "caura")


def test_a_file_that_is_not_in_the_format_says_so(tmp_path):
    official = tmp_path / "log.jsonl"
    official.write_text(
        json.dumps(
            {
                "question_id": "q1",
                "hypothesis": "45 minutes.",
                "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": True},
            }
        )
        + "\n"
    )
    with pytest.raises(InputError, match="no results list") as err:
        read_run(official, "caura")
    assert err.value.file == str(official)
    assert read_run(official)[0]["label"] is True  # the default format reads it
    with pytest.raises(InputError, match="unknown run format 'zep'"):
        read_run(official, "zep")
    with pytest.raises(InputError, match="a caura file holds one run"):
        read_run(_caura(tmp_path, [_result("q1", "x", True)]), "caura", {"k": "5"})
