"""Rewordings (memrecall.audit.reword): the rule judge's verdicts do not depend on how a question
is worded, only on what it asks."""

from __future__ import annotations

import re

import pytest

from conftest import judge_cases
from memrecall.audit.reword import REWORDED, REWORDINGS
from memrecall.audit.variants import Labelled, verdict_changes
from memrecall.judge.rules import judge_one

CASES = judge_cases()["cases"]


@pytest.mark.parametrize("name", sorted(REWORDINGS))
def test_rule_verdicts_survive_every_rewording(name):
    """Each hand-written case, its question reworded, keeps its expected verdict."""
    reword = REWORDINGS[name]
    wrong = [
        c["id"]
        for c in CASES
        if judge_one(
            c["type"],
            reword(c["question"]),
            str(c["answer"]),
            c["hypothesis"],
            is_abstention=bool(c.get("abstention")),
        ).label
        != c["expected"]
    ]
    assert not wrong, f"{name} changes the verdict of {wrong}"


def _words(text: str) -> list[str]:
    """The words, contractions written out and in lower case."""
    text = text.lower().replace("'ve", " have").replace("'m", " am").replace("n't", " not")
    return re.findall(r"[a-z0-9]+", text.replace("what's", "what is"))


@pytest.mark.parametrize(
    "question",
    [
        "Which did I buy first, the blender or the toaster?",
        "What is the total I have not spent?",
        "Do I go to the gym more often than I did before?",
        "How many weeks ago did I start the course?",
    ],
)
def test_rewordings_keep_the_question_words(question):
    """A rewording adds words around a question or changes how its words are written; every word
    of it is still there, in its order (but for the two that place words otherwise)."""
    words = _words(question)
    for name, reword in REWORDINGS.items():
        found = _words(reword(question))
        if name == "options_swapped":  # the same words, the options placed otherwise
            assert sorted(found) == sorted(words)
            continue
        if name == "back_for_ago":  # "weeks back" for "weeks ago"
            found = ["ago" if w == "back" else w for w in found]
        if name == "unit_after" and found != words:  # "How long ago ..., in weeks?"
            assert sorted(found) == sorted(["in", *("long" if w == "many" else w for w in words)])
            continue
        at = 0
        for w in words:  # in order, with the rewording's own words between
            at = found.index(w, at) + 1 if w in found[at:] else -1
            assert at > 0, (name, w)


def test_options_swapped_names_the_two_options_the_other_way_round():
    swap = REWORDINGS["options_swapped"]
    assert swap("Which came first, the blender or the mug?") == (
        "Which came first, the mug or the blender?"
    )
    assert swap("Who did I meet first, Mark and Sarah or Tom?") == (
        "Who did I meet first, Tom or Mark and Sarah?"
    )
    # not two options after a comma: as it was
    for question in ("How many bikes did I service or fix?", "Which came first, A, B or C?"):
        assert swap(question) == question


def test_a_rewording_that_leaves_a_question_as_it_is_counts_no_answer():
    """Answers a rewording does not rewrite (a yes/no question asked indirectly stays) are not
    among its answers; an answer whose verdict moves with the question's wording is counted."""

    def wh_opening(item):  # reads whether the question opens with a wh-word
        return bool(re.match(r"(which|what|how)\b", item.question, re.IGNORECASE))

    items = [
        Labelled("Which one did I buy?", "The blender.", True),
        Labelled("Did I buy it?", "Yes.", True),
    ]
    c = verdict_changes(items, wh_opening, {"indirect": REWORDED["remind_me_indirect"]})["indirect"]
    assert (c.n, c.changed, c.toward_label, c.away_from_label) == (1, 1, 0, 1)
