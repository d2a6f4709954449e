"""Restatements: a reference answer written in other words, its meaning unchanged.

Held-out runs answer the very questions the rules were written from, so they are judged against
the very reference answers the rules were written from. Other questions come with references
their annotators wrote their own way: "five" for "5", "14 days" for "two weeks", "800 dollars"
for "$800", "7:30 PM" for "7:30 pm", "The user bought ..." for "You bought ..." or "They ...",
an alternative in brackets rather than in a sentence of its own, "about" for "approximately",
"132 points in total" for "132 points", a rubric that says "prefers" for "would prefer" or
"would dislike" for "might not prefer", and the notations of notation.py ("12k" for "12,000",
"27:45" for "27 minutes and 45 seconds"). Each restatement below keeps what the reference says
and changes only how it is written, and `RESTATED` are the same as variants (variants.py),
which count the verdicts a restatement changes: a rule that reads a reference's wording as its
meaning.

One restatement can change what the official judge itself would read: a period in another unit
where the question names none ("How long had I been a member?": "Two weeks" or "14 days") moves
the off-by-one tolerance of temporal questions from a week to a day. A change there is a
tolerance read in the reference's unit, as the official prompt reads it, not a misreading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .notation import NOTATIONS
from .planting import date_format, number_words_variant, unit_paraphrase
from .variants import Variant


def _or_same(rewrite: Callable[[str], str | None]) -> Callable[[str], str]:
    """A planting rewrite that gives None where it has nothing to work on, as a restatement that
    leaves such a reference as it is."""
    return lambda reference: rewrite(reference) or reference


# "7 days. 8 days (including the last day) is also acceptable."
_ALTERNATIVE_SENTENCE = re.compile(r"^(.*?)\.\s+(.*?)\s*\((.*?)\) is also acceptable\.?$")


def _alternative_in_brackets(reference: str) -> str:
    """ "7 days. 8 days (including the last day) is also acceptable." as "7 days (or 8 days,
    including the last day)"."""
    m = _ALTERNATIVE_SENTENCE.match(reference.strip())
    return f"{m[1]} (or {m[2]}, {m[3]})" if m else reference


def _oxford_comma(reference: str) -> str:
    """A list's last comma taken out ("A, B, and C" as "A, B and C"), or put in."""
    without = reference.replace(", and ", " and ")
    return without if without != reference else re.sub(r"(, [^,]+) and ", r"\1, and ", reference)


_NUMBER_AHEAD = r"(?=[$~]?\d|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\b)"


def _approximation_word(reference: str) -> str:
    """ "about two hours" as "approximately two hours", or "approximately 20%" as "about 20%"."""
    approximately = re.sub(
        rf"\b(?:about|around|roughly) {_NUMBER_AHEAD}", "approximately ", reference
    )
    if approximately != reference:
        return approximately
    return re.sub(rf"\b([Aa])pproximately {_NUMBER_AHEAD}", r"\1bout ", reference)


def _in_total(reference: str) -> str:
    """A reference that is one amount ("$185", "132 points", "3") said to be a total."""
    amount = reference.strip().rstrip(".")
    return f"{amount} in total" if re.fullmatch(r"\$?\d[\d,.]*(?: [a-z]+)?", amount) else reference


def _third_person(reference: str) -> str:
    """A reference that opens with "You" or "I" written of the user or the assistant: "The
    user bought ...", "The assistant recommended ..."."""
    return re.sub(r"^I\b", "The assistant", re.sub(r"^You\b", "The user", reference))


def _trailing_period(reference: str) -> str:
    stripped = reference.strip()
    return stripped[:-1] if stripped.endswith(".") else stripped + "."


def _unhelpful(rubric: str) -> str:
    """ "They might not prefer X." as "They would find X unhelpful."."""
    return re.sub(
        r"\b(They|The user) (?:might|may|would) not prefer ([^.]*)",
        r"\1 would find \2 unhelpful",
        rubric,
    )


# An opening word written in capitals only because it opens the reference.
_OPENING_WORD = re.compile(r"(?:The|A|An|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)\b")

# name -> reference -> the reference restated
RESTATEMENTS: dict[str, Callable[[str], str]] = {
    "unit_paraphrase": _or_same(unit_paraphrase),
    "number_words": _or_same(number_words_variant),
    "date_format": _or_same(date_format),
    **NOTATIONS,  # "800 dollars" for "$800", "12k" for "12,000", "27:45" ...
    "alternative_in_brackets": _alternative_in_brackets,
    "oxford_comma": _oxford_comma,
    "ampersand": lambda r: r.replace(" and ", " & "),
    "approximation_word": _approximation_word,
    "in_total": _in_total,
    "third_person": _third_person,
    "they_as_the_user": lambda r: re.sub(r"\bThey\b", "The user", r),
    "trailing_period": _trailing_period,
    "capitalised": lambda r: r[:1].upper() + r[1:],
    "lower_case_opening": lambda r: r[:1].lower() + r[1:] if _OPENING_WORD.match(r) else r,
    # a preference rubric in other words
    "rubric_prefers": lambda r: r.replace("would prefer", "prefers"),
    "rubric_would_like": lambda r: re.sub(r"\bwould prefer\b", "would like", r),
    "rubric_not_like": lambda r: re.sub(r"\b(?:might|may|would) not prefer\b", "would not like", r),
    "rubric_dislike": lambda r: re.sub(r"\b(?:might|may|would) not prefer\b", "would dislike", r),
    "rubric_avoid": lambda r: re.sub(
        r"\b(?:They|The user) (?:might|may|would) not prefer\b", "Responses should avoid", r
    ),
    "rubric_unhelpful": _unhelpful,
}


def restated(restate: Callable[[str], str]) -> Variant:
    """The variant that judges an answer against its reference restated. The reference is the
    record's "answer" (the field every benchmark's question table names it by), read as text: a
    number the restatement leaves as it was ("3") leaves the answer unrewritten."""

    def variant(item):
        reference = str(item.record["answer"])
        again = restate(reference)
        return item if again == reference else replace(item, record=item.record | {"answer": again})

    return variant


RESTATED: dict[str, Variant] = {name: restated(f) for name, f in RESTATEMENTS.items()}
