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


def _seen(rows):
    """What a reader made of each answer: (question, answer, verdict, judge, line)."""
    return [(r["question_id"], r["hypothesis"], r["label"], r["model"], r["line"]) for r in rows]


def test_a_caura_file_reads_as_official_rows_under_the_snapshot_it_records(tmp_path):
    results = [_result("q1", "45 minutes each way.", True), _result("q2_abs", "An hour.", False)]
    path = _caura(tmp_path, results, judge_model_resolved="gpt-4o-2024-08-06")
    rows = read_run(path, "caura")
    assert _seen(rows) == [
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


def _mnimi(tmp_path, results, judge=None):
    """A mnimi results.json as its harness writes it (indent 2, sorted keys): the judge that
    graded it, then the rows."""
    path = tmp_path / "results.json"
    judge = {"judge_model": "gpt-4o-2024-08-06", "judge_prompt_version": "v3"} | (judge or {})
    body = {"judge": judge, "pins": {"k": 10}, "provisional": [], "results": results}
    path.write_text(json.dumps(body, indent=2, sort_keys=True))
    return path


def _row(qid, predicted, correct):
    return {
        "question_id": qid,
        "category": "single-session-user",
        "answer": "45 minutes",
        "predicted": predicted,
        "correct": correct,
        "is_abstention": qid.endswith("_abs"),
    }


def test_a_mnimi_file_reads_as_official_rows_of_the_judge_it_names(tmp_path):
    path = _mnimi(tmp_path, [_row("q1", "45 minutes.", True), _row("q2_abs", "An hour.", False)])
    assert _seen(read_run(path, "mnimi")) == [
        ("q1", "45 minutes.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "An hour.", False, "gpt-4o-2024-08-06", 2),
    ]
    unnamed = _mnimi(tmp_path, [_row("q1", "45 minutes.", True)], {"judge_model": ""})
    with pytest.raises(InputError, match="no judge.judge_model") as err:
        read_run(unnamed, "mnimi")
    assert (err.value.line, err.value.field) == (1, "judge_model")
    silent = _row("q2", "x", True)
    del silent["predicted"]
    with pytest.raises(InputError, match="predicted must be a string, got nothing") as err:
        read_run(_mnimi(tmp_path, [_row("q1", "45 minutes.", True), silent]), "mnimi")
    assert (err.value.line, err.value.question_id, err.value.field) == (2, "q2", "predicted")
    # Caura's file has a results list but names its judge per row: no mnimi file
    with pytest.raises(InputError, match="no judge.judge_model"):
        read_run(_caura(tmp_path, [_result("q1", "x", True)]), "mnimi")
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([_row("q1", "x", True)]))
    with pytest.raises(InputError, match="no results list \\(a mnimi results.json\\)"):
        read_run(rows, "mnimi")


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


def _jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _verdict(qid, correct, attempts=1):
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "llm_judge_correct": correct,
        "llm_judge_raw": "Yes." if correct else "No.",
        "attempts": attempts,
        "model": "gpt-4o-2024-08-06",
        "resolved_snapshot": "gpt-4o-2024-08-06",
    }


def _cj(tmp_path, verdicts, answerable, abstention):
    """A cjchanh run: the judge's rescored.jsonl, then the reader's two checkpoint files."""
    reader = tmp_path / "run" / "reader"
    return [
        _jsonl(tmp_path / "run" / "judge_gpt4o" / "rescored.jsonl", verdicts),
        _jsonl(reader / "checkpoint_answerable.jsonl", answerable),
        _jsonl(reader / "checkpoint_abs.jsonl", abstention),
    ]


def _said(qid, response):
    return {"question_id": qid, "question": "How long is my commute?", "response": response}


def test_a_run_published_as_labels_and_answer_files_reads_joined_by_question(tmp_path):
    files = _cj(
        tmp_path,
        [_verdict("q2_abs", True), _verdict("q1", False)],
        [_said("q1", "Reasoning...\nAnswer: an hour")],
        [_said("q2_abs", "Answer: I don't know.")],
    )
    rows = read_run(files, "cjchanh")
    # in the labels' order, each verdict with its own answer, whichever file holds it
    assert _seen(rows) == [
        ("q2_abs", "Answer: I don't know.", True, "gpt-4o-2024-08-06", 1),
        ("q1", "Reasoning...\nAnswer: an hour", False, "gpt-4o-2024-08-06", 2),
    ]


def test_a_split_run_never_counts_a_missing_verdict_or_answer_as_wrong(tmp_path):
    """The harness stores a row it never judged as false (attempts 0): that, a verdict whose
    answer is nowhere, and an answer nobody judged are errors naming the file, line and question."""
    answers = ([_said("q1", "An hour.")], [_said("q2_abs", "I don't know.")])
    unjudged = _cj(
        tmp_path, [_verdict("q1", True), _verdict("q2_abs", False, attempts=0)], *answers
    )
    with pytest.raises(InputError, match="never judged") as err:
        read_run(unjudged, "cjchanh")
    assert (err.value.file, err.value.line, err.value.question_id, err.value.field) == (
        str(unjudged[0]),
        2,
        "q2_abs",
        "attempts",
    )
    stray = _cj(tmp_path, [_verdict("q1", True), _verdict("q3", True)], *answers)
    with pytest.raises(InputError, match="a verdict without an answer") as err:
        read_run(stray, "cjchanh")
    assert (err.value.line, err.value.question_id) == (2, "q3")
    short = _cj(tmp_path, [_verdict("q1", True)], *answers)
    with pytest.raises(InputError, match="1 answer\\(s\\) without a verdict") as err:
        read_run(short, "cjchanh")
    assert (err.value.file, err.value.question_id) == (str(short[2]), "q2_abs")
    unsure = _cj(tmp_path, [_verdict("q1", "yes"), _verdict("q2_abs", True)], *answers)
    with pytest.raises(InputError, match="llm_judge_correct must be true or false, got 'yes'"):
        read_run(unsure, "cjchanh")


def test_a_question_answered_in_two_reader_files_names_both(tmp_path):
    files = _cj(
        tmp_path,
        [_verdict("q1", True)],
        [_said("q1", "An hour.")],
        [{"question_id": "x"}, _said("q1", "Two hours.")],
    )
    with pytest.raises(InputError, match="response must be a string, got nothing") as err:
        read_run(files, "cjchanh")
    assert (err.value.file, err.value.line, err.value.field) == (str(files[2]), 1, "response")
    _jsonl(files[2], [_said("q1", "Two hours.")])
    with pytest.raises(InputError, match=r"answered twice \(first in .*answerable.jsonl, line 1\)"):
        read_run(files, "cjchanh")


def test_each_format_takes_the_files_it_is_published_as(tmp_path):
    files = _cj(tmp_path, [_verdict("q1", True)], [_said("q1", "An hour.")], [])
    with pytest.raises(InputError, match="a cjchanh run is at least 2 files .*, not 1"):
        read_run(files[0], "cjchanh")
    with pytest.raises(InputError, match="an eval-results log is one file, not 2") as err:
        read_run(files[:2])
    assert err.value.field == "path"


def test_every_format_has_its_reader_and_its_file_count():
    from memrecall.data import run_formats

    assert set(run_formats._READERS) == set(run_formats.FORMATS) == set(run_formats.FILES)
    assert all(
        run_formats.files_error(f, run_formats.FILES[f][0]) is None for f in run_formats.FILES
    )


def test_labels_that_name_no_judge_take_the_snapshot_the_run_is_given(tmp_path):
    """engrava's judge_labels.jsonl says only which answers are correct; its hypotheses.jsonl
    holds the answers. Without the run's judge_model there is no saying whose labels they are."""
    labels = _jsonl(
        tmp_path / "judge_labels.jsonl",
        [
            {"question_id": q, "correct": y, "question_type": "single-session-user"}
            for q, y in (("q1", True), ("q2_abs", False))
        ],
    )
    answers = _jsonl(
        tmp_path / "hypotheses.jsonl",
        [
            {"question_id": "q2_abs", "hypothesis": "Two."},
            {"question_id": "q1", "hypothesis": "One."},
        ],
    )
    rows = read_run([labels, answers], "engrava", judge_model="gpt-4o-2024-08-06")
    assert _seen(rows) == [
        ("q1", "One.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "Two.", False, "gpt-4o-2024-08-06", 2),
    ]
    with pytest.raises(InputError, match="the labels name no judge") as err:
        read_run([labels, answers], "engrava")
    assert (err.value.file, err.value.line, err.value.field) == (str(labels), 1, "judge_model")
    with pytest.raises(InputError, match="an engrava run is 2 files"):
        read_run([labels, answers, answers], "engrava", judge_model="gpt-4o-2024-08-06")


def _bettermemory(tmp_path, rows):
    """A bettermemory results file: its protocol and summary, then a row per answer whose
    `verdicts` holds every judge's verdict, keyed by the judge's model."""
    path = tmp_path / "l1-official-s.json"
    judges = {"google/gemini-3.8-flash": "its own", "openai/gpt-4o-2024-08-06": "official"}
    body = {"protocol": {"judges": judges}, "summary": {}, "disagreements": [], "rows": rows}
    path.write_text(json.dumps(body, indent=2))
    return path


def _graded(qid, hypothesis, gpt4o, gemini=True, **more):
    verdicts = {"continuity": gemini, "google/gemini-3.8-flash": gemini}
    verdicts |= {"openai/gpt-4o-2024-08-06": gpt4o}
    return {"question_id": qid, "split": "dev", "verdicts": verdicts, "hypothesis": hypothesis}


def test_a_file_of_several_judges_reads_the_verdicts_of_the_judge_the_run_names(tmp_path):
    path = _bettermemory(
        tmp_path, [_graded("q1", "45 minutes.", True), _graded("q2_abs", "An hour.", False)]
    )
    assert _seen(read_run(path, "bettermemory", judge_model="gpt-4o-2024-08-06")) == [
        ("q1", "45 minutes.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "An hour.", False, "gpt-4o-2024-08-06", 2),
    ]
    # gemini's verdicts are other labels of the same answers
    gemini = read_run(path, "bettermemory", judge_model="gemini-3.8-flash")
    assert [r["label"] for r in gemini] == [True, True]
    with pytest.raises(InputError, match="holds several judges' verdicts") as err:
        read_run(path, "bettermemory")
    assert err.value.field == "judge_model"


def test_a_bettermemory_row_without_its_judges_verdict_is_an_error_not_a_wrong_answer(tmp_path):
    unjudged = _graded("q2", "An hour.", True)
    del unjudged["verdicts"]["openai/gpt-4o-2024-08-06"]
    path = _bettermemory(tmp_path, [_graded("q1", "45 minutes.", True), unjudged])
    with pytest.raises(InputError, match="no single verdict of gpt-4o-2024-08-06") as err:
        read_run(path, "bettermemory", judge_model="gpt-4o-2024-08-06")
    assert (err.value.line, err.value.question_id, err.value.field) == (2, "q2", "verdicts")
    failed = _graded("q2", "An hour.", None)
    path = _bettermemory(tmp_path, [_graded("q1", "45 minutes.", True), failed])
    with pytest.raises(InputError, match="must be true or false, got None") as err:
        read_run(path, "bettermemory", judge_model="gpt-4o-2024-08-06")
    assert (err.value.line, err.value.question_id) == (2, "q2")
    silent = _graded("q1", "", True)
    del silent["hypothesis"]
    with pytest.raises(InputError, match="hypothesis must be a string, got nothing"):
        read_run(_bettermemory(tmp_path, [silent]), "bettermemory", judge_model="gpt-4o-2024-08-06")
    with pytest.raises(InputError, match="no rows list"):
        read_run(_mnimi(tmp_path, [_row("q1", "x", True)]), "bettermemory", judge_model="gpt-4o")


def test_a_file_of_several_arms_reads_the_verdicts_of_the_arm_its_answers_are(tmp_path):
    """bettermemory's H1 file sets three systems side by side: the verdicts are keyed by arm,
    then by judge, and each row's hypothesis is one arm's answer (the run's select names it)."""

    def row(qid, hypothesis, ours, theirs):
        arms = {
            "hindsight_own_answers": {"openai/gpt-4o-2024-08-06": theirs},
            "hindsight_read_by_claude": {"openai/gpt-4o-2024-08-06": ours},
            "bettermemory": {"openai/gpt-4o-2024-08-06": not ours},
        }
        return {"question_id": qid, "verdicts": arms, "hypothesis": hypothesis}

    path = _bettermemory(
        tmp_path, [row("q1", "Tokyo.", True, False), row("q2", "Two.", False, True)]
    )
    read = read_run(
        path, "bettermemory", {"arm": "hindsight_read_by_claude"}, judge_model="gpt-4o-2024-08-06"
    )
    assert _seen(read) == [
        ("q1", "Tokyo.", True, "gpt-4o-2024-08-06", 1),
        ("q2", "Two.", False, "gpt-4o-2024-08-06", 2),
    ]
    with pytest.raises(InputError, match="verdicts by arm .*'bettermemory'.*select the arm") as e:
        read_run(path, "bettermemory", judge_model="gpt-4o-2024-08-06")
    assert (e.value.line, e.value.question_id, e.value.field) == (1, "q1", "select")
    with pytest.raises(InputError, match="no arm 'mem0' \\(its arms: 'hindsight_own") as e:
        read_run(path, "bettermemory", {"arm": "mem0"}, judge_model="gpt-4o-2024-08-06")
    assert (e.value.line, e.value.field) == (1, "select")
    # an arm without gpt-4o's verdict names the arm's verdicts
    with pytest.raises(InputError, match="no single verdict of gpt-4o-mini-2024-07-18") as e:
        read_run(
            path, "bettermemory", {"arm": "bettermemory"}, judge_model="gpt-4o-mini-2024-07-18"
        )
    assert e.value.field == "verdicts.bettermemory"
    flat = _bettermemory(tmp_path, [_graded("q1", "45 minutes.", True)])
    with pytest.raises(InputError, match="select names arm 'x', but the verdicts are one system"):
        read_run(flat, "bettermemory", {"arm": "x"}, judge_model="gpt-4o-2024-08-06")
    with pytest.raises(InputError, match="a bettermemory file's select names its arm only"):
        read_run(path, "bettermemory", {"split": "dev"}, judge_model="gpt-4o-2024-08-06")


def _groundfloor(tmp_path, rows):
    """A groundfloor-lore results file: its run's settings, then one instance per answer."""
    path = tmp_path / "subset-n2.json"
    body = {"generatedAt": "2026-09-20", "subsetSize": len(rows), "ks": [5], "perInstance": rows}
    path.write_text(json.dumps(body, indent=2))
    return path


def _instance(qid, text, label, judge_model="gpt-4o-2024-08-06", **errors):
    return {
        "questionId": qid,
        "questionType": "single-session-user",
        "isAbstention": qid.endswith("_abs"),
        "expectedAnswer": "45 minutes",
        "answer": {"provider": "openai", "model": "gpt-4o-mini", "text": text},
        "answerError": errors.get("answer"),
        "judge": {"model": judge_model, "label": label, "rawResponse": "yes" if label else "no"},
        "judgeError": errors.get("judge"),
    }


def test_a_groundfloor_file_reads_as_official_rows_of_the_snapshot_each_verdict_names(tmp_path):
    path = _groundfloor(
        tmp_path, [_instance("q1", "45 minutes.", True), _instance("q2_abs", "An hour.", False)]
    )
    assert _seen(read_run(path, "groundfloor")) == [
        ("q1", "45 minutes.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "An hour.", False, "gpt-4o-2024-08-06", 2),
    ]


def test_a_groundfloor_row_whose_call_failed_is_an_error_not_a_wrong_answer(tmp_path):
    ok = _instance("q1", "45 minutes.", True)
    cases = [
        (
            _instance("q2", "", False, judge="HTTP 429"),
            "the call failed .'HTTP 429'.",
            "judgeError",
        ),
        (_instance("q2", "", False, answer="timeout"), "the call failed", "answerError"),
        (_instance("q2", "An hour.", None), "label must be true or false, got None", "label"),
        (_instance("q2", "An hour.", True, judge_model=""), "no judge named", "judge.model"),
        ({**_instance("q2", "x", True), "judge": None}, "judge must be a JSON object", "judge"),
        ({**_instance("q2", "x", True), "questionId": 7}, "missing questionId", "questionId"),
    ]
    for bad, message, field in cases:
        with pytest.raises(InputError, match=message) as err:
            read_run(_groundfloor(tmp_path, [ok, bad]), "groundfloor")
        assert (err.value.line, err.value.field) == (2, field)
    with pytest.raises(InputError, match="no perInstance list"):
        read_run(_mnimi(tmp_path, [_row("q1", "x", True)]), "groundfloor")


def _c137(tmp_path, grading: str, results: list[dict]):
    """A c137-runner run: its grading.json (written as given: an object keyed by question id),
    then its results.json (a list of answers)."""
    labels, answers = tmp_path / "gpt4o.grading.json", tmp_path / "gpt4o.results.json"
    labels.write_text(grading)
    answers.write_text(json.dumps(results, indent=2))
    return [labels, answers]


def _graded_c137(**labels):
    return json.dumps(
        {
            q: {"label": y, "type": "single-session-user", "abstention": q.endswith("_abs")}
            for q, y in labels.items()
        }
    )


def _answered(qid, text):
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": "How long is my commute?",
        "ground_truth": "45 minutes",
        "c137_answer": text,
    }


def test_a_c137_run_reads_its_labels_by_question_id_under_the_snapshot_it_is_given(tmp_path):
    files = _c137(
        tmp_path,
        _graded_c137(q1=True, q2_abs=False),
        [_answered("q2_abs", "Two."), _answered("q1", "One.")],
    )
    assert _seen(read_run(files, "c137", judge_model="gpt-4o-2024-08-06")) == [
        ("q1", "One.", True, "gpt-4o-2024-08-06", 1),
        ("q2_abs", "Two.", False, "gpt-4o-2024-08-06", 2),
    ]
    with pytest.raises(InputError, match="the labels name no judge"):
        read_run(files, "c137")


def test_a_c137_label_given_twice_or_not_a_verdict_is_an_error_not_a_wrong_answer(tmp_path):
    answers = [_answered("q1", "One."), _answered("q2", "Two.")]
    twice = '{"q1": {"label": true}, "q2": {"label": false}, "q1": {"label": false}}'
    cases = [
        (twice, "a key given twice", ("q1", "question_id", None)),
        ('{"q1": {"label": true}, "q2": true}', "expected a JSON object", ("q2", None, 2)),
        ('{"q1": {"label": true}, "q2": {"label": "yes"}}', "label must be", ("q2", "label", 2)),
        ('{"q1": {"label": true}}', "1 answer.s. without a verdict", ("q2", "question_id", 2)),
        ('{"q1": {"label": true}, "q2": {"label": false', "malformed JSON", (None, None, None)),
        ("[]", "not a JSON object keyed by question_id", (None, None, None)),
    ]
    for grading, message, (qid, field, line) in cases:
        files = _c137(tmp_path, grading, answers)
        with pytest.raises(InputError, match=message) as err:
            read_run(files, "c137", judge_model="gpt-4o-2024-08-06")
        assert (err.value.question_id, err.value.field, err.value.line) == (qid, field, line)
    files = _c137(tmp_path, _graded_c137(q1=True, q2=False), [*answers[:1], {"question_id": "q2"}])
    with pytest.raises(InputError, match="c137_answer must be a string, got nothing") as err:
        read_run(files, "c137", judge_model="gpt-4o-2024-08-06")
    assert (err.value.file, err.value.line) == (str(files[1]), 2)


def _graphnosis(tmp_path, rows):
    """A Graphnosis evidence file: a JSON line per answer, as its harness writes them."""
    path = tmp_path / "on-device-41.6.jsonl"
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    return path


def _scored(qid, predicted, correct, judge_model="gpt-4o-2024-08-06"):
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "abstention": qid.endswith("_abs"),
        "predicted": predicted,
        "correct": correct,
        "judgeRaw": ("yes" if correct else "no") if judge_model else "",
        "judgeModel": judge_model,
        "answerModel": "llama3.2:3b",
    }


def test_a_graphnosis_file_reads_as_official_rows_and_select_keeps_the_judged_lines(tmp_path):
    failed = _scored("q2", "", False, judge_model="")  # the reader's call failed: never judged
    path = _graphnosis(
        tmp_path, [_scored("q1", "45 minutes.", True), failed, _scored("q3_abs", "", False)]
    )
    with pytest.raises(InputError, match="no judgeModel: never judged") as err:
        read_run(path, "graphnosis")
    assert (err.value.file, err.value.line, err.value.question_id, err.value.field) == (
        str(path),
        2,
        "q2",
        "judgeModel",
    )
    # the judged lines keep their own line numbers; an empty answer gpt-4o judged is an answer
    assert _seen(read_run(path, "graphnosis", {"judgeModel": "gpt-4o-2024-08-06"})) == [
        ("q1", "45 minutes.", True, "gpt-4o-2024-08-06", 1),
        ("q3_abs", "", False, "gpt-4o-2024-08-06", 3),
    ]
    with pytest.raises(InputError, match="a graphnosis file's select names its judgeModel only"):
        read_run(path, "graphnosis", {"answerModel": "llama3.2:3b"})


def test_a_graphnosis_line_without_a_verdict_or_an_answer_names_where(tmp_path):
    ok = _scored("q1", "45 minutes.", True)
    cases = [
        (_scored("q2", "An hour.", None), "correct must be true or false, got None", "correct"),
        (
            {**_scored("q2", "x", True), "predicted": None},
            "predicted must be a string",
            "predicted",
        ),
        (
            {k: v for k, v in _scored("q2", "x", True).items() if k != "judgeModel"},
            "no judgeModel",
            "judgeModel",
        ),
    ]
    for bad, message, field in cases:
        with pytest.raises(InputError, match=message) as err:
            read_run(_graphnosis(tmp_path, [ok, bad]), "graphnosis")
        assert (err.value.line, err.value.question_id, err.value.field) == (2, "q2", field)
