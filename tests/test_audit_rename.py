"""Renamings (memrecall.audit.rename): the rule judge reads no particular name of a question."""

from __future__ import annotations

import pytest

from conftest import judge_cases
from memrecall.audit.rename import made_up, question_names, rename, renamed
from memrecall.judge.rules import judge_one

CASES = judge_cases()["cases"]


@pytest.mark.parametrize(
    ("question", "reference", "names"),
    [
        ("Which camera brand do I use?", "You use a Sony camera.", {"sony"}),
        ("Where did I buy it?", "Target", {"target"}),  # a reference that is just a name
        ("What did I get before the Air Fryer?", "Instant Pot", {"instant", "pot"}),
        ("Who is my dentist?", "Dr. Alvarez", {"alvarez"}),  # not "Dr", nor a sentence start
        # the question writes it in lower case: a word, not a name ("airline", "Airlines")
        ("Which airline did I fly with the most?", "United Airlines", {"united"}),
        # calendar names, counts, parts, units and compounds of words are no question's own
        ("What is the shift of Admon?", "Admon works the 8 AM shift on Sundays.", {"admon"}),
        ("How many issues have I read?", "Five", set()),
        ("Which chapter was it?", "Chapter 4 of Book 1", set()),
        ("Which challenge did I join?", "A challenge called #PlankChallenge.", set()),
        ("What did I do on Valentine's Day?", "You went skating.", set()),
        # a sentence's first word is capitalised for the sentence
        ("What did I bake?", "Lemon cake.", set()),
    ],
)
def test_question_names_are_the_references_own_names(question, reference, names):
    assert question_names(question, reference) == names


def test_renamed_follows_a_name_in_every_form_it_is_written():
    text = "SugarBloom, Sugar Bloom's cakes, SUGAR blooms, Café Luna, lunatic"
    out = renamed(text, {"sugar", "bloom", "cafe", "luna"})
    sugar, bloom = made_up("sugar"), made_up("bloom")
    cafe, luna = made_up("cafe"), made_up("luna")
    assert out == (
        f"{sugar.capitalize()}{bloom.capitalize()}, {sugar.capitalize()} "
        f"{bloom.capitalize()}'s cakes, {sugar.upper()} {bloom}s, {cafe.capitalize()} "
        f"{luna.capitalize()}, lunatic"
    )


def test_made_up_names_are_fixed_and_distinct():
    assert made_up("sony") == made_up("sony")
    assert len({made_up(n) for n in ("sony", "luna", "target", "admon", "pot")}) == 5
    assert made_up("sony").isalpha() and made_up("sony").islower()


def test_rename_changes_question_reference_and_response_alike():
    r = rename("Which bakery made my cake?", "Sugar Bloom", "It was Sugar Bloom on 5th Avenue.")
    assert r.names == ("bloom", "sugar")
    made = f"{made_up('sugar').capitalize()} {made_up('bloom').capitalize()}"
    assert (r.reference, r.response) == (made, f"It was {made} on 5th Avenue.")
    assert rename("How many cakes?", "3", "Three.") is None


def test_rule_verdicts_survive_renaming():
    """Each hand-written case, its names made up, keeps its expected verdict."""
    renamed_cases = [
        (c, r)
        for c in CASES
        if (r := rename(c["question"], str(c["answer"]), c["hypothesis"])) is not None
    ]
    assert len(renamed_cases) > 100  # the check covers the cases that name something
    wrong = [
        c["id"]
        for c, r in renamed_cases
        if judge_one(
            c["type"],
            r.question,
            r.reference,
            r.response,
            is_abstention=bool(c.get("abstention")),
        ).label
        != c["expected"]
    ]
    assert not wrong, f"renaming changes the verdict of {wrong}"
