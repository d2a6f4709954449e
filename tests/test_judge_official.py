"""judge=official: the prompt function is taken from the official script by `ast` (never
imported), run alone, and its prompts are sent unchanged through the shared client to a local
OpenAI-compatible server; labels follow the official rule, the strict parse is a diagnostic.

The script here is a stand-in of the same shape (tests/fixtures/official_standin/...), written
for these tests: the official wording is not ours to copy."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

from confs import group
from fake_openai_server import KEY, FakeOpenAIServer, last_user
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval.official import (
    OFFICIAL_REPO,
    load_prompt_function,
    official_label,
)
from memrecall.errors import MemrecallError
from memrecall.hashing import sha256_file, sha256_text
from memrecall.judge.stage import judge_answers, strict_disagreements

STANDIN = (
    Path(__file__).parent
    / "fixtures"
    / "official_standin"
    / "src"
    / "evaluation"
    / "evaluate_qa.py"
)

# question id, type, question, reference, hypothesis, the fake judge's reply
ITEMS = [
    ("q-ssu", "single-session-user", "Where did I buy the lamp?", "IKEA", "At IKEA.", "Yes."),
    ("q-ms", "multi-session", "How many plants do I have?", "5", "You have 4.", "no"),
    (
        "q-tr",
        "temporal-reasoning",
        "How many days ago did I fly?",
        "10 days",
        "11 days ago",
        "The answer is yes",
    ),  # official: yes; strict parse: unparseable
    (
        "q-ku",
        "knowledge-update",
        "Where do I work now?",
        "Acme",
        "At Globex, before Acme.",
        "No, yes it mentions Acme",
    ),  # official: yes (any 'yes'); strict: no
    (
        "q-ssp",
        "single-session-preference",
        "Any dinner ideas?",
        "The user would prefer vegan recipes.",
        "Try a lentil curry.",
        "YES",
    ),
    (
        "q-ssa_abs",
        "single-session-assistant",
        "What did you say about Mars?",
        "You never asked about Mars.",
        "We never discussed Mars.",
        "yes",
    ),
    ("q-empty", "single-session-user", "What is my cat called?", "Luna", "Luna", ""),
]
REPLY = {hyp: reply for _, _, _, _, hyp, reply in ITEMS}


def fake_official_judge(messages):
    text = last_user(messages)
    hyp = text.split("Reply under test: ", 1)[1].split("\n", 1)[0]
    return REPLY[hyp]


def tables():
    q = pl.DataFrame(
        [
            {
                "question_id": i,
                "question_type": t,
                "is_abstention": i.endswith("_abs"),
                "question": qq,
                "answer": a,
            }
            for i, t, qq, a, _, _ in ITEMS
        ]
    )
    a = pl.DataFrame(
        [{"question_id": i, "hypothesis": h, "error": None} for i, _, _, _, h, _ in ITEMS],
        schema={"question_id": pl.String, "hypothesis": pl.String, "error": pl.String},
    )
    return q, a


def test_prompt_function_is_taken_without_importing_the_script():
    assert "backoff" not in sys.modules  # the stand-in imports it at module level
    fn, sha = load_prompt_function(STANDIN)
    assert "backoff" not in sys.modules and "openai" not in fn.__globals__
    assert sha == sha256_file(STANDIN)
    p = fn("temporal-reasoning", "Q?", "A", "R", abstention=False)
    assert p.startswith("STAND-IN temporal check") and "Q: Q?\nGold: A\nReply under test: R" in p
    assert fn("multi-session", "Q?", "A", "R", abstention=True).startswith("STAND-IN unanswerable")


@pytest.mark.parametrize(
    "content,why",
    [
        (None, "missing"),
        ("import os\n\ndef other():\n    return 1\n", "no function"),
        ("def get_anscheck_prompt(task, question):\n    return ''\n", "wrong signature"),
        ("def broken(:\n", "not Python"),
    ],
)
def test_clear_error_names_the_official_repository(tmp_path, content, why):
    path = tmp_path / "evaluate_qa.py"
    if content is not None:
        path.write_text(content)
    with pytest.raises(MemrecallError) as e:
        load_prompt_function(path)
    msg = str(e.value)
    assert OFFICIAL_REPO in msg and "src/evaluation/evaluate_qa.py" in msg, msg
    assert "judge.official_script" in msg
    with pytest.raises(MemrecallError, match=OFFICIAL_REPO.replace(".", r"\.")):
        load_prompt_function(None)


def test_official_label_rule():
    assert official_label("Yes.") and official_label("The answer is YES")
    assert official_label("no, but yes-ish")  # the official rule, verbatim: any 'yes'
    assert not official_label("No.") and not official_label("Correct.")


def test_official_judge_sends_exactly_the_scripts_prompts(fresh_cache, fake_key):
    fn, sha = load_prompt_function(STANDIN)
    q, a = tables()
    with FakeOpenAIServer(answer=fake_official_judge) as srv:
        cfg = group(
            "judge",
            "official",
            official_script=str(STANDIN),
            **srv.runtime(concurrency=2),
        )
        v = judge_answers(LME, q, a, cfg)
        bodies = list(srv.bodies)

    expected = sorted(fn(t, qq, ans, h, abstention="_abs" in i) for i, t, qq, ans, h, _ in ITEMS)
    assert sorted(b["messages"][0]["content"] for b in bodies) == expected
    assert all(len(b["messages"]) == 1 and b["messages"][0]["role"] == "user" for b in bodies)
    assert {b["model"] for b in bodies} == {"gpt-4o-2024-08-06"}
    assert {b["temperature"] for b in bodies} == {0.0} and {b["max_tokens"] for b in bodies} == {10}

    got = {r["question_id"]: r for r in v.iter_rows(named=True)}
    assert [got[i]["label"] for i, *_ in ITEMS] == [True, False, True, True, True, True, None]
    assert [got[i]["strict_label"] for i, *_ in ITEMS] == [
        True,
        False,
        None,
        False,
        True,
        True,
        None,
    ]
    assert got["q-empty"]["error"] == "judge returned an empty reply"  # a failure, not a "no"
    assert got["q-tr"]["raw"] == "The answer is yes"
    assert strict_disagreements(v) == 2


def test_official_judge_stage_records_the_script_hash(tmp_path, fresh_cache, fake_key):
    from memrecall.artifacts import read_meta, write_table
    from memrecall.judge.stage import run_judge
    from tables import write_downloaded

    q, a = tables()
    qp, ap = tmp_path / "questions.parquet", tmp_path / "answers.parquet"
    q = q.with_columns(
        pl.lit("2023/05/30 (Tue) 10:00").alias("question_date"),
        pl.lit([]).cast(pl.List(pl.String)).alias("haystack_session_ids"),
        pl.lit([]).cast(pl.List(pl.String)).alias("answer_session_ids"),
    )
    write_downloaded(q, qp, table="questions")
    a = a.with_columns(
        pl.lit("m").alias("model"),
        pl.lit("p").alias("prompt_id"),
        pl.lit(None, dtype=pl.String).alias("request_hash"),
        pl.lit(0).alias("input_tokens"),
        pl.lit(0).alias("output_tokens"),
        pl.lit(0).alias("reasoning_tokens"),
        pl.lit(0.0).alias("cost_usd"),
        pl.lit(0.0).alias("latency_s"),
        pl.lit(False).alias("refused"),
    )
    write_table(a, ap, table="answers", stage="read")
    with FakeOpenAIServer(answer=fake_official_judge) as srv:
        cfg = group(
            "judge",
            "official",
            official_script=str(STANDIN),
            **srv.runtime(concurrency=2),
        )
        run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts.parquet")
    meta = read_meta(tmp_path / "verdicts.parquet")
    assert meta["official_script_sha256"] == sha256_file(STANDIN)
    # The templates the script gave, one per (type, abstention) judged, for MLflow's registry:
    # with the question, reference and reply filled in, each is the prompt that was sent.
    prompts = meta["prompts"]
    names = sorted(p["name"] for p in prompts.values())
    assert names == sorted(
        [
            "official-single-session-user",
            "official-multi-session",
            "official-temporal-reasoning",
            "official-knowledge-update",
            "official-single-session-preference",
            "official-single-session-assistant-abstention",
        ]
    )
    fn, _ = load_prompt_function(STANDIN)
    for pid, rec in prompts.items():
        assert rec["stage"] == "judge" and rec["script_sha256"] == sha256_file(STANDIN)
        assert pid == f"{rec['name']}:{sha256_text(rec['template'])[:12]}"
    rec = next(r for r in prompts.values() if r["name"] == "official-multi-session")
    _, _, q, ref, hyp, _ = ITEMS[1]
    filled = (
        rec["template"].replace("{question}", q).replace("{answer}", ref).replace("{response}", hyp)
    )
    assert filled == fn("multi-session", q, ref, hyp, abstention=False)
    assert KEY not in str(prompts)  # the key never reaches the record
