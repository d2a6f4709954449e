"""Time-aware retrieval: relative time expressions → date ranges → a boost, only when a question
names a time."""

from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl
import pytest

from memrecall.errors import ConfigError
from memrecall.retrieval.retrieve import retrieve
from memrecall.retrieval.timeaware import boost, in_range_mask, time_ranges, time_settings
from test_retrieval_ranking import ECFG, RCFG, FixedEncoder, _embeddings

ASKED = "2023/04/18 (Tue) 16:50"  # a Tuesday


def _range(question, pad=3):
    found = time_ranges(question, ASKED, pad)
    assert len(found) == 1, found
    return found[0].start, found[0].end


@pytest.mark.parametrize(
    "question, start, end",
    [
        # N units ago: that day +- half a unit (at least the pad)
        ("Which book did I finish a week ago?", date(2023, 4, 8), date(2023, 4, 14)),
        ("What did I buy two weeks ago?", date(2023, 4, 1), date(2023, 4, 7)),
        ("Where was I 10 days ago?", date(2023, 4, 5), date(2023, 4, 11)),
        ("What did I start a couple of months ago?", date(2023, 2, 3), date(2023, 3, 5)),
        # the past N units: from then to the question date
        ("What trips did I take in the past three months?", date(2023, 1, 15), date(2023, 4, 18)),
        ("How much did I spend over the last 2 weeks?", date(2023, 4, 1), date(2023, 4, 18)),
        ("What did I cook in the past month?", date(2023, 3, 15), date(2023, 4, 18)),
        # a day, a weekend
        ("Who did I meet with during the lunch last Tuesday?", date(2023, 4, 8), date(2023, 4, 14)),
        ("What did I eat yesterday?", date(2023, 4, 14), date(2023, 4, 20)),
        ("Where did I go last weekend?", date(2023, 4, 12), date(2023, 4, 19)),
        # a month: the latest one begun by the question date, or the named year
        ("How many workshops did I attend in April?", date(2023, 3, 29), date(2023, 4, 18)),
        ("What was the first BBQ in June?", date(2022, 5, 29), date(2022, 7, 3)),
        ("What happened in May 2022?", date(2022, 4, 28), date(2022, 6, 3)),
    ],
)
def test_relative_expressions_resolve_against_the_question_date(question, start, end):
    assert _range(question) == (start, end)


@pytest.mark.parametrize(
    "question",
    [
        "How many days ago did I attend a baking class?",  # asks for a time, names none
        "How many days passed between the Sunday mass and the Ash Wednesday service?",
        "How many days ago did I read the March 15th issue of The New Yorker?",
        "What did I do on the last day of my trip?",
        "What did I pack for the last week of June?",
        "Which airline did I fly first?",
        "",
    ],
)
def test_no_time_named_no_range(question):
    assert time_ranges(question, ASKED, 3) == []


def test_unreadable_question_date_never_fires():
    assert time_ranges("What did I buy a week ago?", "sometime", 3) == []
    assert time_ranges("What did I buy a week ago?", None, 3) == []


def test_mask_and_boost():
    ranges = time_ranges("What did I buy a week ago?", ASKED, 3)
    mask = in_range_mask(
        ranges, ["2023/04/11 (Tue) 10:00", "2023/03/01 (Wed) 10:00", None, "not a date"]
    )
    assert mask.tolist() == [True, False, False, False]
    out = boost(np.array([0.2, 0.6, 0.4, -np.inf]), np.array([True, False, False, False]), 0.5)
    np.testing.assert_allclose(out[:3], [0.5, 1.0, 0.5])
    assert out[3] == -np.inf
    np.testing.assert_allclose(boost(np.array([3.0, 3.0]), np.array([False, True]), 1.0), [0, 1])


def test_settings_are_checked():
    assert time_settings({"time_aware": True, "time_boost": 1, "time_pad_days": 0}).boost == 1.0
    for bad, key in [
        ({"time_aware": "yes"}, "retrieval.time_aware"),
        ({"time_boost": -1}, "retrieval.time_boost"),
        ({"time_pad_days": 1.5}, "retrieval.time_pad_days"),
    ]:
        with pytest.raises(ConfigError, match=key):
            time_settings({"time_aware": True, "time_boost": 0.5, "time_pad_days": 3, **bad})


def test_retrieve_boosts_in_range_sessions_only_for_questions_that_name_a_time():
    emb = _embeddings(
        [
            ("old", "old", [1.0, 0.0], "a"),
            ("recent", "recent", [0.8, 0.6], "b"),
            ("other", "other", [0.0, 1.0], "c"),
        ]
    )
    hay = ["old", "recent", "other"]
    dates = ["2023/01/02 (Mon) 10:00", "2023/04/10 (Mon) 10:00", "2023/04/11 (Tue) 10:00"]
    q = pl.DataFrame(
        {
            "question_id": ["timed", "plain"],
            "question": ["Which book did I finish a week ago?", "Which book?"],
            "question_date": [ASKED, ASKED],
            "haystack_session_ids": [hay, hay],
            "haystack_dates": [dates, dates],
            "answer_session_ids": [["recent"]] * 2,
        }
    )
    enc = FixedEncoder([[1.0, 0.0], [1.0, 0.0]])
    session_keys = {**ECFG, "granularity": "session"}
    off = retrieve(q, emb, RCFG, session_keys, encoder=enc)
    assert off.filter(pl.col("question_id") == "timed")["session_id"].to_list() == [
        "old",
        "recent",
        "other",
    ]
    on = retrieve(
        q, emb, {**RCFG, "time_aware": True, "time_boost": 0.5}, session_keys, encoder=enc
    )
    # normalised cosines 1, 0.8, 0 → 'recent' 0.8 + 0.5 passes 'old'; 'other' 0 + 0.5 does not.
    assert on.filter(pl.col("question_id") == "timed")["session_id"].to_list() == [
        "recent",
        "old",
        "other",
    ]
    assert on.filter(pl.col("question_id") == "timed")["score"].to_list() == pytest.approx(
        [1.3, 1.0, 0.5]
    )
    # The question that names no time is untouched, raw scores and all.
    assert (
        on.filter(pl.col("question_id") == "plain").to_dicts()
        == off.filter(pl.col("question_id") == "plain").to_dicts()
    )
    # a boost above 1: every in-range session first
    hard = retrieve(
        q, emb, {**RCFG, "time_aware": True, "time_boost": 2.0}, session_keys, encoder=enc
    )
    assert hard.filter(pl.col("question_id") == "timed")["session_id"].to_list() == [
        "recent",
        "other",
        "old",
    ]
