"""Rewordings: a question asked in other words, its meaning unchanged.

People open a question with a few words of their own ("Quick question: ...", "Hi! ..."), ask it
indirectly ("Can you remind me which ...?"), thank after it, contract or leave off its question
mark, name its two options the other way round, ask "How long ago ..., in weeks?" for "How many
weeks ago ...?", or say "weeks back" for "weeks ago". A judge reads the question to know what is
asked: the unit it counts in, the options it offers, the claim a yes/no question makes. Its
verdict should not depend on those words, so each rewording below keeps what the question asks
and changes only how it is put, and `REWORDED` are the same as variants (variants.py), which
count the verdicts a rewording changes. Held-out runs answer the very questions the rules were
written from; a rewording is a question put as other questions are, and a change under one is
a rule fitted to how these 500 were worded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .restyle import lower_first
from .variants import Variant

_WH_QUESTION = re.compile(r"(?:which|what|who|where|when|how)\b", re.IGNORECASE)

# Each full form and its contraction, as people write them.
_CONTRACTIONS = (
    ("I have been", "I've been"),
    ("I am", "I'm"),
    ("did not", "didn't"),
    ("do not", "don't"),
    ("have not", "haven't"),
    ("is not", "isn't"),
    ("What is", "What's"),
    ("what is", "what's"),
)


def _swap(question: str, pairs) -> str:
    for a, b in pairs:
        question = re.sub(rf"\b{re.escape(a)}\b", b, question)
    return question


def _indirect(opening: str) -> Callable[[str], str]:
    """ "Which ...?" asked as "<opening> which ...?"; a question not opening with a wh-word stays
    (an indirect yes/no question is another sentence: "Can you remind me whether ...")."""
    return lambda q: f"{opening} {lower_first(q)}" if _WH_QUESTION.match(q) else q


# "Which ... first, A or B?": the options after the comma, one each side of a single "or".
_TWO_OPTIONS = re.compile(
    r"^(?P<frame>(?:which|who)\b[^,?]*,\s*)(?P<a>[^?,]+?),? or (?P<b>[^,?]+)\?$", re.IGNORECASE
)


def _options_swapped(question: str) -> str:
    """ "Which came first, A or B?" asked "Which came first, B or A?"; other questions stay."""
    m = _TWO_OPTIONS.match(question.strip())
    if not m or " or " in m["a"]:  # "A or B or C": more than two
        return question
    return f"{m['frame']}{m['b']} or {m['a']}?"


# "How many weeks ago did I ...?" asked "How long ago did I ..., in weeks?" ("How long back"
# is not said).
_CALENDAR_COUNT = re.compile(r"^How many (days|weeks|months|years) (?!back\b)(.*?)\?$")


def _unit_after(question: str) -> str:
    """A count of days, weeks, months or years asked as "How long ..., in <unit>?"."""
    m = _CALENDAR_COUNT.match(question.strip())
    return f"How long {m[2]}, in {m[1]}?" if m else question


# name -> question -> the question reworded
REWORDINGS: dict[str, Callable[[str], str]] = {
    "quick_question": lambda q: "Quick question: " + q,
    "greeting": lambda q: "Hi! " + q,
    "context_sentence": lambda q: "I'm trying to remember something. " + q,
    "remind_me_colon": lambda q: "Can you remind me: " + lower_first(q),
    "remind_me_indirect": _indirect("Can you remind me"),
    "remember_indirect": _indirect("Do you remember"),
    "thanks": lambda q: q + " Thanks!",
    "trailing_sentence": lambda q: q + " I can't remember.",
    "please": lambda q: re.sub(r"\?\s*$", ", please?", q.strip()),
    "no_question_mark": lambda q: re.sub(r"\?\s*$", "", q.strip()),
    "contractions": lambda q: _swap(q, _CONTRACTIONS),
    "expanded": lambda q: _swap(q, [(b, a) for a, b in _CONTRACTIONS]),
    "lower_case": lambda q: q.lower(),
    "options_swapped": _options_swapped,
    "unit_after": _unit_after,
    "back_for_ago": lambda q: re.sub(r"\b(days|weeks|months|years) ago\b", r"\1 back", q),
}


def worded(reword: Callable[[str], str]) -> Variant:
    """The variant that asks an answer's question in a rewording."""
    return lambda item: replace(item, question=reword(item.question))


REWORDED: dict[str, Variant] = {name: worded(f) for name, f in REWORDINGS.items()}
