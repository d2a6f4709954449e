"""Notations (memrecall.audit.notation): the rule judge's verdicts do not depend on how a
response writes its quantities ("12k", "45 mins", "27:45", "a dozen"), only on their values."""

from __future__ import annotations

import pytest

from conftest import judge_cases
from memrecall.audit.notation import NOTATIONS, RENOTATED
from memrecall.audit.variants import Labelled
from memrecall.judge.rules import judge_one

CASES = judge_cases()["cases"]


def _verdict(case: dict, response: str) -> bool | None:
    return judge_one(
        case["type"],
        case["question"],
        str(case["answer"]),
        response,
        is_abstention=bool(case.get("abstention")),
    ).label


@pytest.mark.parametrize("name", sorted(NOTATIONS))
def test_rule_verdicts_survive_every_notation_of_the_response(name):
    """Each hand-written case, its response's quantities written another way, keeps its
    expected verdict."""
    notate = NOTATIONS[name]
    wrong = [c["id"] for c in CASES if _verdict(c, notate(c["hypothesis"])) != c["expected"]]
    assert not wrong, f"with responses in {name} notation, {wrong} get the other verdict"


def test_every_notation_rewrites_some_response():
    """A notation that rewrites no hand-written response is checked by nothing above."""
    idle = [
        name
        for name, notate in NOTATIONS.items()
        if all(notate(c["hypothesis"]) == c["hypothesis"] for c in CASES)
    ]
    assert not idle, f"no case's response is rewritten by {idle}"


@pytest.mark.parametrize(
    "name, text, written",
    [
        ("thousands_suffix", "about 12,000 people", "about 12k people"),
        ("thousands_suffix", "$1,200 and 1300 followers", "$1.2k and 1.3k followers"),
        ("thousands_suffix", "in 2023, 1,234 pages", "in 2023, 1,234 pages"),  # a year; no hundreds
        ("thousands_suffix", "2,500,000 views, 12.5 miles", "2,500,000 views, 12.5 miles"),
        ("thousands_suffix", "session answer_4000_1", "session answer_4000_1"),
        ("unit_abbreviation", "45 minutes and 3 hours", "45 mins and 3 hrs"),
        ("unit_abbreviation", "1 hour, 10 pounds, 15 kilometers", "1 hr, 10 lbs, 15 km"),
        ("unit_abbreviation", "a few minutes", "a few minutes"),
        ("clock_24h", "at 9:30 pm, 7 am and 12:15 a.m.", "at 21:30, 07:00 and 00:15."),
        ("clock_24h", "12 PM, 6:05pm", "12:00, 18:05"),
        ("clock_24h", "3 ampules, 2 pm. Then", "3 ampules, 14:00. Then"),
        ("clock_24h", "at 6 a.m. on Monday", "at 06:00 on Monday"),
        ("currency_code", "$2,500 or $ 3", "USD 2,500 or $ 3"),
        (
            "spaced_thousands",
            "12,000 steps, 1,234,567 views",
            "12\u202f000 steps, 1\u202f234\u202f567 views",
        ),
        ("spaced_thousands", "in 2023, 1,5 kg", "in 2023, 1,5 kg"),
        ("percent_word", "20% off", "20 percent off"),
        ("percent_word", "20 percent off", "20% off"),
        ("duration_clock", "27 minutes and 45 seconds", "27:45"),
        ("duration_clock", "25 minutes, 5 seconds", "25:05"),
        ("duration_clock", "3 hours and 10 minutes", "3 hours and 10 minutes"),
        ("dozen", "12 eggs and 24 cupcakes", "a dozen eggs and two dozen cupcakes"),
        ("dozen", "12 days, 12 times, $12 cookies", "12 days, 12 times, $12 cookies"),
    ],
)
def test_notations_write_the_same_quantities_otherwise(name, text, written):
    assert NOTATIONS[name](text) == written


def test_a_notation_rewrites_the_response_only():
    item = Labelled("How many people came?", "About 12,000 people.", True, {"answer": "12,000"})
    changed = RENOTATED["thousands_suffix"](item)
    assert changed.response == "About 12k people."
    assert (changed.question, changed.label, changed.record) == (
        item.question,
        True,
        {"answer": "12,000"},
    )
    unwritten = Labelled("Where did I go?", "Rome", True, {"answer": "Rome"})
    assert RENOTATED["thousands_suffix"](unwritten) is unwritten
