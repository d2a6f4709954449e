"""Restylings (memrecall.audit.restyle): the rule judge's verdicts do not depend on house style."""

from __future__ import annotations

import re

import pytest

from conftest import judge_cases
from memrecall.audit.restyle import RESTYLED, RESTYLINGS
from memrecall.audit.variants import Labelled, verdict_changes
from memrecall.judge.rules import judge_one

CASES = judge_cases()["cases"]


@pytest.mark.parametrize("name", sorted(RESTYLINGS))
def test_rule_verdicts_survive_every_restyling(name):
    """Each hand-written case, dressed in the style, keeps its expected verdict."""
    restyle = RESTYLINGS[name]
    wrong = [
        c["id"]
        for c in CASES
        if not c.get("styled")
        and judge_one(
            c["type"],
            c["question"],
            str(c["answer"]),
            restyle(c["question"], c["hypothesis"]),
            is_abstention=bool(c.get("abstention")),
        ).label
        != c["expected"]
    ]
    assert not wrong, f"{name} changes the verdict of {wrong}"


def test_restylings_keep_the_response_words():
    """A restyling dresses the response: every word of it is still there."""
    response = (
        "You bought **3 plants** on March 25, 2023 - about 2 weeks ago, at the garden centre. "
        "They're:\n"
        "a fern, a cactus and a snake plant, not a palm."
    )
    words = re.findall(r"[a-z0-9]+", response.lower())
    for name, restyle in RESTYLINGS.items():
        dressed = restyle("How many plants did I buy?", response)
        assert dressed != response, name
        # the symbols two styles write for a word: "~2 weeks", "a cactus & a snake plant"
        spelled = dressed.lower().replace("~", "about ").replace("&", "and")
        found = re.findall(r"[a-z0-9]+", spelled)
        assert sorted(set(words) - set(found)) == [], name


def test_verdict_changes_counts_toward_and_away_from_the_label():
    # A judge that reads only the first word: a greeting before the answer moves it.
    def first_word_yes(item):
        return item.response.split()[0].strip(",.!").lower() == "yes"

    items = [
        Labelled("Did I go?", "Yes, you went.", True),  # right, then wrong once dressed
        Labelled("Did I go?", "Yes, you went.", False),  # wrong, then right once dressed
        Labelled("Did I go?", "No.", False),  # stays
        Labelled("Did I go?", "Yes.", None),  # unlabelled: counted as changed only
    ]
    changes = verdict_changes(items, first_word_yes, {"greeting": RESTYLED["greeting"]})
    c = changes["greeting"]
    assert (c.n, c.changed, c.toward_label, c.away_from_label) == (4, 3, 1, 1)


def test_verdict_changes_names_the_answers_it_changed_when_given_a_key():
    """With `key`, each changed answer is named (a run and a question id), so a change can be
    read; an answer whose verdict stays is not listed, and without `key` none is."""

    def first_word_yes(item):
        return item.response.split()[0].strip(",.!").lower() == "yes"

    items = [
        Labelled("Did I go?", "Yes, you went.", True, {"question_id": "q1"}, source="run_a"),
        Labelled("Did I go?", "No.", False, {"question_id": "q2"}, source="run_a"),
        Labelled("Did I go?", "Yes.", True, {"question_id": "q1"}, source="run_b"),
    ]
    greeting = {"greeting": RESTYLED["greeting"]}
    named = verdict_changes(
        items, first_word_yes, greeting, key=lambda i: (i.source, i.record["question_id"])
    )["greeting"]
    assert named.answers == [("run_a", "q1"), ("run_b", "q1")]
    assert verdict_changes(items, first_word_yes, greeting)["greeting"].answers == []
