"""Restatements (memrecall.audit.restate): the rule judge's verdicts do not depend on how a
reference answer is written, only on what it says."""

from __future__ import annotations

import pytest

from conftest import judge_cases
from memrecall.audit.restate import RESTATED, RESTATEMENTS
from memrecall.audit.variants import Labelled, verdict_changes
from memrecall.judge.rules import judge_one

CASES = judge_cases()["cases"]


def _verdict(case: dict, reference: str) -> bool | None:
    return judge_one(
        case["type"],
        case["question"],
        reference,
        case["hypothesis"],
        is_abstention=bool(case.get("abstention")),
    ).label


@pytest.mark.parametrize("name", sorted(RESTATEMENTS))
def test_rule_verdicts_survive_every_restatement(name):
    """Each hand-written case, its reference restated, keeps its expected verdict."""
    restate = RESTATEMENTS[name]
    wrong = [c["id"] for c in CASES if _verdict(c, restate(str(c["answer"]))) != c["expected"]]
    assert not wrong, f"against references {name}-restated, {wrong} get the other verdict"


def test_every_restatement_rewrites_some_case():
    """A restatement that rewrites no hand-written reference is checked by nothing above."""
    idle = [
        name
        for name, restate in RESTATEMENTS.items()
        if all(restate(str(c["answer"])) == str(c["answer"]) for c in CASES)
    ]
    assert not idle, f"no case's reference is rewritten by {idle}"


@pytest.mark.parametrize(
    "name, reference, restated",
    [
        ("money_words", "$800", "800 dollars"),
        ("money_words", "$0.75", "75 cents"),
        ("money_words", "$1,200 in total", "1,200 dollars in total"),
        ("money_words", "It was $2,000.", "It was 2,000 dollars."),
        ("money_words", "about $5,000, as planned", "about 5,000 dollars, as planned"),
        ("money_words", "$12.5", "12.5 dollars"),
        ("money_words", "$37-$50 saved", "37-50 dollars saved"),
        ("clock_form", "6:00 pm", "6 pm"),
        ("clock_form", "7:30 am.", "7:30 AM."),
        (
            "alternative_in_brackets",
            "7 days. 8 days (including the last day) is also acceptable.",
            "7 days (or 8 days, including the last day)",
        ),
        ("oxford_comma", "Rome, Paris, and Oslo", "Rome, Paris and Oslo"),
        ("oxford_comma", "Rome, Paris and Oslo", "Rome, Paris, and Oslo"),
        ("third_person", "You bought a Sony.", "The user bought a Sony."),
        ("third_person", "I recommended a Lager.", "The assistant recommended a Lager."),
        ("third_person", "Yours was the Sony.", "Yours was the Sony."),
        ("they_as_the_user", "They went camping.", "The user went camping."),
        ("approximation_word", "about two hours", "approximately two hours"),
        ("approximation_word", "approximately 20%", "about 20%"),
        ("approximation_word", "around the sink", "around the sink"),
        ("in_total", "132 points", "132 points in total"),
        ("in_total", "$185.", "$185 in total"),
        ("in_total", "7:30 pm", "7:30 pm"),
        ("trailing_period", "Target", "Target."),
        ("trailing_period", "Target.", "Target"),
        ("lower_case_opening", "Two weeks", "two weeks"),
        ("lower_case_opening", "Sony", "Sony"),
        ("unit_paraphrase", "Two weeks", "14 days"),
        ("number_words", "3 model kits", "three model kits"),
        (
            "number_words",
            "1) to identify, and 2) to investigate",
            "1) to identify, and 2) to investigate",
        ),
        ("rubric_dislike", "They may not prefer X.", "They would dislike X."),
        ("rubric_avoid", "The user might not prefer X.", "Responses should avoid X."),
        ("rubric_unhelpful", "They might not prefer X or Y.", "They would find X or Y unhelpful."),
        (
            "rubric_not_like",
            "They might not prefer generic tips.",
            "They would not like generic tips.",
        ),
    ],
)
def test_restatements_write_the_same_reference_otherwise(name, reference, restated):
    assert RESTATEMENTS[name](reference) == restated


def test_a_restatement_judges_against_the_restated_reference_and_counts_what_it_rewrote():
    """The variant replaces the record's reference and nothing else; a reference it leaves as it
    is counts no answer, and a verdict that reads the reference's wording is counted."""
    items = [
        Labelled("How much did I spend?", "$800", True, {"answer": "$800"}),
        Labelled("Where did I go?", "Rome", True, {"answer": "Rome"}),
        Labelled("How many?", "3", True, {"answer": 3}),  # a number, as JSON gives it
    ]
    changed = RESTATED["money_words"](items[0])
    assert (changed.question, changed.response, changed.label) == (
        "How much did I spend?",
        "$800",
        True,
    )
    assert changed.record == {"answer": "800 dollars"}

    def same_text(item):  # reads the reference's wording
        return item.response == item.record["answer"]

    c = verdict_changes(items, same_text, {"money": RESTATED["money_words"]})["money"]
    assert (c.n, c.changed, c.toward_label, c.away_from_label) == (1, 1, 0, 1)
