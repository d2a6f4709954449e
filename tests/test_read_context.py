"""Reader context: top_k_context sessions sorted by date, each dated, cut to
max_chars_per_session, as JSON or plain text; the question date given as today."""

from __future__ import annotations

import json

import polars as pl
import pytest

from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.errors import ConfigError, InputError
from memrecall.read.context import (
    NO_HISTORY,
    TRUNCATED,
    ContextSession,
    format_session,
    render_history,
    select_sessions,
)
from memrecall.read.reader import answer_messages, build_contexts, notes_messages, reader_settings

DATES = {
    "a": "2023/01/05 (Thu) 10:00",
    "b": "2023/02/01 (Wed) 09:00",
    "c": "2023/03/01 (Wed) 08:00",
    "d": "2022/12/31 (Sat) 23:59",
    "b2": "2023/02/01 (Wed) 09:00",
}


def test_select_top_k_by_rank_then_sort_by_date():
    # Rank order c, a, b, d: top 3 are c, a, b (d is dropped although it is the oldest).
    assert select_sessions(["c", "a", "b", "d"], 3, DATES) == ["a", "b", "c"]
    # Same date: rank order decides; duplicates count once.
    assert select_sessions(["b2", "b", "b2", "a"], 3, DATES) == ["a", "b2", "b"]
    # An undated session goes after the dated ones.
    assert select_sessions(["x", "c"], 5, DATES) == ["c", "x"]


def test_nl_format_and_truncation():
    turns = [("user", " I adopted a dog. "), ("assistant", "Congratulations!")]
    assert format_session(turns, "nl", 1000) == (
        "user: I adopted a dog.\n\nassistant: Congratulations!"
    )
    assert format_session(turns, "nl", 30) == "user: I adopted a dog." + TRUNCATED
    assert format_session(turns, "nl", 50) == (
        "user: I adopted a dog.\n\nassistant: Congratul" + TRUNCATED
    )


def test_json_format_stays_valid_within_budget():
    turns = [
        ("user", "Ich wohne in Köln."),
        ("assistant", 'He said "hi"\n' + "x" * 300),
        ("user", "never shown"),
    ]
    full = format_session(turns[:1], "json", 1000)
    assert full == '[{"role": "user", "content": "Ich wohne in Köln."}]'
    for budget in (60, 80, 120, 200):
        text = format_session(turns, "json", budget)
        assert len(text) <= budget
        items = json.loads(text)
        assert items[0] == {"role": "user", "content": "Ich wohne in Köln."}
        if len(items) == 2:
            assert items[1]["role"] == "assistant"
            assert items[1]["content"].endswith(TRUNCATED)
        assert all(i["content"] != "never shown" for i in items)
    assert json.loads(format_session(turns, "json", 10_000))[2]["content"] == "never shown"


def test_unknown_history_format():
    with pytest.raises(ConfigError, match="reader.history_format"):
        format_session([("user", "x")], "markdown", 100)


def test_render_history_exact():
    sessions = [
        ContextSession("a", DATES["a"], "user: one"),
        ContextSession("b", DATES["b"], "user: two"),
    ]
    assert render_history(sessions) == (
        "### Session 1:\nSession Date: 2023/01/05 (Thu) 10:00\nSession Content:\nuser: one\n\n"
        "### Session 2:\nSession Date: 2023/02/01 (Wed) 09:00\nSession Content:\nuser: two"
    )
    assert render_history([]) == NO_HISTORY


def tables():
    questions = pl.DataFrame(
        {
            "question_id": ["q2", "q1"],
            "question_type": ["multi-session", "knowledge-update"],
            "is_abstention": [False, False],
            "question": ["How many dogs?", "Where do I live?"],
            "answer": ["2", "Berlin"],
            "question_date": ["2023/05/01 (Mon) 12:00", "2023/04/01 (Sat) 08:00"],
            "haystack_session_ids": [["a", "b", "c"], ["a", "b", "c"]],
            "answer_session_ids": [["a"], ["b"]],
        }
    )
    sessions = pl.DataFrame(
        {"session_id": list("abc"), "date": [DATES[s] for s in "abc"], "content_hash": ["h"] * 3}
    )
    turns = pl.DataFrame(
        {
            "session_id": ["a", "a", "b", "c", "b"],
            "turn_index": [1, 0, 0, 0, 1],
            "role": ["assistant", "user", "user", "user", "assistant"],
            "content": ["Nice!", "I got a dog.", "I moved to Berlin.", "Second dog!", "Welcome."],
            "has_answer": [False, True, True, False, False],
        }
    )
    # q2 (multi-session): ranks c, a, b; q1 has no candidates at all.
    cands = pl.DataFrame(
        {
            "question_id": ["q2"] * 3,
            "rank": [3, 1, 2],
            "session_id": ["b", "c", "a"],
            "score": [0.1, 0.9, 0.5],
        }
    )
    return questions, sessions, turns, cands


def settings(**over):
    cfg = {
        "prompt": "type_aware",
        "history_format": "nl",
        "reading": "direct",
        "top_k_context": 2,
        "max_chars_per_session": 1000,
        **over,
    }
    return reader_settings(cfg, LME)


def test_build_contexts_and_exact_messages():
    ctxs = build_contexts(settings(), *tables())
    assert [c.question_id for c in ctxs] == ["q1", "q2"]
    q1, q2 = ctxs
    assert q1.sessions == [] and q1.today == "2023/04/01 (Sat) 08:00"
    # top 2 by rank are c and a; shown in date order a, c; turns in turn order.
    assert [s.session_id for s in q2.sessions] == ["a", "c"]
    assert q2.sessions[0] == ContextSession(
        "a", DATES["a"], "user: I got a dog.\n\nassistant: Nice!"
    )
    [msg] = answer_messages(settings(), q2)
    assert msg["role"] == "user"
    assert msg["content"].endswith(
        "History Chats:\n"
        "### Session 1:\nSession Date: 2023/01/05 (Thu) 10:00\nSession Content:\n"
        "user: I got a dog.\n\nassistant: Nice!\n\n"
        "### Session 2:\nSession Date: 2023/03/01 (Wed) 08:00\nSession Content:\nuser: Second dog!"
        "\n\nCurrent Date: 2023/05/01 (Mon) 12:00\nQuestion: How many dogs?\nAnswer:"
    )
    assert "remove duplicates" in msg["content"]  # type_aware, multi-session
    assert NO_HISTORY in answer_messages(settings(), q1)[0]["content"]


def test_truncation_and_json_in_context():
    ctxs = build_contexts(settings(history_format="json", max_chars_per_session=40), *tables())
    assert ctxs[1].sessions[0].content == '[{"role": "user", "content": "I [...]"}]'
    assert ctxs[1].sessions[1].content == '[{"role": "user", "content": "S [...]"}]'


def test_chain_of_note_messages():
    st = settings(prompt="con", reading="con", history_format="json")
    q2 = build_contexts(st, *tables())[1]
    notes = notes_messages(q2)
    assert len(notes) == 2
    text = notes[0][0]["content"]
    assert "Session Date: 2023/01/05 (Thu) 10:00" in text
    assert '"content": "I got a dog."' in text
    assert text.endswith(
        "Current Date: 2023/05/01 (Mon) 12:00\nQuestion: How many dogs?\nReading notes:"
    )
    [msg] = answer_messages(st, q2, notes=["user has a dog", "empty"])
    assert '{"reading_notes": "user has a dog"}' in msg["content"]
    assert "I got a dog." not in msg["content"]
    assert msg["content"].endswith("Notes:")


def test_unknown_candidate_session_is_an_input_error():
    q, s, t, c = tables()
    c = c.with_columns(
        pl.when(pl.col("rank") == 1)
        .then(pl.lit("zz"))
        .otherwise(pl.col("session_id"))
        .alias("session_id")
    )
    with pytest.raises(InputError) as e:
        build_contexts(settings(), q, s, t, c, "artifacts/candidates_rewrite.parquet")
    msg = str(e.value)
    assert (
        "'zz'" in msg
        and "candidates_rewrite.parquet" in msg
        and "'q2'" in msg
        and "session_id" in msg
    )


def test_each_question_sees_its_own_haystack_date_for_a_shared_session():
    """The same session can carry different dates in different haystacks (202 sessions of the
    dev file do): the reader must show each question its own date, and order by it."""
    questions, sessions, turns, _ = tables()
    questions = questions.with_columns(
        pl.Series(
            "haystack_dates",
            [
                ["2023/04/20 (Thu) 09:00", "2023/01/02 (Mon) 09:00", "2023/02/01 (Wed) 09:00"],
                ["2023/01/05 (Thu) 10:00", "2023/02/01 (Wed) 09:00", "2023/03/01 (Wed) 08:00"],
            ],
        )
    )
    cands = pl.DataFrame(
        {
            "question_id": ["q2", "q2", "q1", "q1"],
            "rank": [1, 2, 1, 2],
            "session_id": ["a", "c", "a", "c"],
            "score": [0.9, 0.5, 0.9, 0.5],
        }
    )
    q1, q2 = build_contexts(settings(), questions, sessions, turns, cands)
    assert [(s.session_id, s.date) for s in q2.sessions] == [
        ("c", "2023/02/01 (Wed) 09:00"),
        ("a", "2023/04/20 (Thu) 09:00"),
    ]
    assert [(s.session_id, s.date) for s in q1.sessions] == [
        ("a", "2023/01/05 (Thu) 10:00"),
        ("c", "2023/03/01 (Wed) 08:00"),
    ]
