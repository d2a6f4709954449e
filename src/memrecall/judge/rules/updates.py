"""Knowledge updates: what a response says of a value (the value now, a former one, one it
denies, and the date its clause gives it), and whether a question asks for the value now or for
an earlier one. numbers.py picks among a response's quantities by what is said here."""

from __future__ import annotations

import re

from .normalise import DAY_OF_MONTH, MONTHS
from .phrases import (
    CHANGED,
    CHANGED_FROM,
    CURRENT_LABEL,
    DENIED_BEFORE,
    FORMER_AFTER,
    FORMER_MARKER,
    NEW_THEN_FROM,
    TURN_TO_NOW,
)
from .response import asked_part, without_asides


def value_context(s: str, start: int, end: int) -> dict[str, bool | tuple[int, int, int] | None]:
    """What the response says of the number at s[start:end]: a former value, the value now, or
    one it denies, and the date its clause gives it."""
    return {
        "former": _called_former(s, start, end),
        "current": _called_current(s, start, end),
        "denied": bool(DENIED_BEFORE.search(s[max(0, start - 40) : start])),
        "said_on": _said_on(s, start, end),
    }


# When a value held, by the date its clause gives it: "5 projects as of August 2023, and then 4
# by October 9, 2023", "As of August 11, 2023, you had had Luna for 9 months". Only a date with
# its year: "in December ..., in January ..." has no order without one. A date a count runs
# from or to ("since August 2023") dates no value, nor does today's: "to today (March 29, 2026),
# roughly 3 years" counts on from the history, it reports nothing the user said.
_CLAUSE_DATE = re.compile(
    rf"\b({'|'.join(MONTHS)})(?: (?:the )?(\d{{1,2}})(?:st|nd|rd|th)?)?,? ((?:19|20)\d\d)\b"
)
_NOT_WHEN_SAID = re.compile(r"\b(?:since|starting|until|till|today)[\s(*_,:]*$")
# What ends a value's clause on the way to a date: another number, a turn, a sequence word.
_CLAUSE_BREAK = re.compile(
    r"[;\d]|\b(?:and|but|then|while|whereas|though|although|later|earlier)\b"
)


def _said_on(s: str, start: int, end: int) -> tuple[int, int, int] | None:
    """The date of the clause of the number at s[start:end], when it has exactly one."""
    before = _SENTENCE_END.split(s[:start])[-1]
    after = _SENTENCE_END.split(s[end:], maxsplit=1)[0]

    def dates(text: str, *, precede: bool):
        for m in _CLAUSE_DATE.finditer(text):
            between = text[m.end() :] if precede else text[: m.start()]
            if not _CLAUSE_BREAK.search(between) and not _NOT_WHEN_SAID.search(text[: m.start()]):
                yield m

    found = [*dates(before, precede=True), *dates(after, precede=False)]
    if len(found) != 1:
        return None
    month, day, year = found[0].groups()
    return int(year), MONTHS.index(month) + 1, int(day or 0)


def _called_current(s: str, start: int, end: int) -> bool:
    """Is the number at s[start:end] one the response labels the value now ("Current: 3",
    "Latest: 1,300", "currently it's 3", "The current count is 3", "3 now", "3 is the current
    one"), or that its sentence gives as the value now ("So the most up-to-date count is 3")?"""
    return (
        bool(_CURRENT_BEFORE.search(s[max(0, start - 40) : start]))
        or bool(_CURRENT_AFTER.match(s[end : end + 40]))
        or _declared_current(s, start, end)
    )


# A sentence that says it gives the value now: "So the most up-to-date count from your
# conversations is 3", "As of your most recent conversation, you own 3 bikes", "you currently
# own 3", "now you own 3", "the current count may be 38". The value is the first number after
# those words (a date, a year or what is in brackets aside): in "the most recent session (May
# 28, 2023) says 4, up from 3", 4.
_RECENCY = re.compile(
    r"\b(?:most recent(?:ly)?|latest|(?:most )?up[- ]to[- ]date|current(?:ly)?|now|"
    r"as of (?:now|today))\b"
)
# ... or says what it became: "bringing your total to 4", "which took the count up to 7", "your
# count had increased to 27"
_CHANGED_TO = re.compile(
    rf"\b(?:bring(?:s|ing)?|brought|tak(?:es|ing)|took|rais(?:es|ing)|{CHANGED})\b"
    r"[^.\d\n]{0,30}?\bto[\s*_$~]*$"
)


def _declared_current(s: str, start: int, end: int) -> bool:
    """Does the sentence of the number at s[start:end] say that it is the value now? Not of a
    number in brackets ("(from May 30)" is an aside), nor of what a value changed to when
    another follows it ("corrected it to 125, then later said 120")."""
    if _CHANGED_TO.search(s[max(0, start - 50) : start]):
        return not re.search(r"\d", _undated(_SENTENCE_END.split(s[end:], maxsplit=1)[0]))
    sentence = _SENTENCE_END.split(s[:start])[-1]
    said = list(_RECENCY.finditer(sentence))
    if not said or sentence.count("(") > sentence.count(")"):
        return False
    # (a word at least between them: "the most recent one" is no value of 1)
    between = _undated(sentence[said[-1].end() :])
    return not re.search(r"\d", between) and bool(re.search(r"[a-z]", between))


def _undated(text: str) -> str:
    """`text` without its dates, years and asides in brackets: what says when, not how many."""
    return _DATED.sub(" ", without_asides(text))


# Where a sentence ends. A line break ends one only before a blank line, a bullet, a heading or
# a table's row; elsewhere it wraps one.
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n(?=[ \t]*(?:[-*•+]\s|[>#|\n]))")
# When something was said: "may 28, 2023" (the normalised text names a date so), a year.
_DATED = re.compile(rf"{DAY_OF_MONTH.pattern}(?:,? \d{{4}})?|\b(?:19|20)\d\d\b")


_CURRENT_BEFORE = re.compile(CURRENT_LABEL + r"[\s*_($~|]*$")
# "you're at 7 now.", "7 these days", "7 is the current one"; not "7 now and then"
_CURRENT_AFTER = re.compile(
    r"^[a-z' -]{0,15}?(?:\b(?:now|currently|these days|at the moment|at present)\s*(?:[.;,!()]|$)"
    r"|\b(?:is|'s) (?:the |your )?(?:current|latest|new|updated|most recent) "
    r"(?:one|1|value|count|total|number|figure|answer|amount)\b)"
)


def _called_former(s: str, start: int, end: int) -> bool:
    """Is the number at s[start:end] one the response calls a former value ("previously 4",
    "your old record of 27:12", "from 25:50 to 24:30", "up from 25", "25 at first", "4 → 7",
    "raised it to 7 from 4", "4 initially, later updated to 7", "it was 4, but it's since
    become 7")?"""
    return (
        bool(_FORMER_BEFORE.search(s[max(0, start - 40) : start]))
        or bool(
            re.search(r"\bfrom\s+\$?$", s[max(0, start - 8) : start])
            and re.match(r"(?::\d{2})?\s*(?:[a-z%]+\s+){0,2}to\s+\$?\d", s[end:])
        )
        or bool(_CHANGED_FROM.search(s[max(0, start - 40) : start]))
        or bool(_NEW_THEN_FROM.search(s[max(0, start - 40) : start]))
        or bool(FORMER_AFTER.match(s[end : end + 50]))
        or _declared_former(s, start)
    )


# A sentence that says it gives an earlier value: "Earlier, on May 24, you had completed 30",
# "Prior to that, on May 24, you were on episode 50", "an earlier message from August 11
# mentioned 10 times", "You first mentioned 3, and later updated that you had tried 2" (one
# earlier telling: "our previous conversations" are the whole history). The value is the
# first number after those words (a date, a year or what is in brackets aside), unless a word
# between turns to the value now ("earlier 3, but now 4").
_EARLIER = re.compile(
    rf"{FORMER_MARKER}|\b(?:a|an|one|the) (?:earlier|older|previous|prior) (?:message|session|"
    r"conversation|chat|mention)\b|\b1st (?:mentioned|said|told|shared|noted|stated|reported)\b"
)
_TURNS_TO_NOW = re.compile(rf"\b{TURN_TO_NOW}\b|{_RECENCY.pattern}")


def _declared_former(s: str, start: int) -> bool:
    """Does the sentence of the number at s[start:] say that it is an earlier value?"""
    sentence = _SENTENCE_END.split(s[:start])[-1]
    said = list(_EARLIER.finditer(sentence))
    # (the words and the value in one aside or outside any: "(In an earlier session you had
    # mentioned 25.)" is one)
    after = sentence[said[-1].end() :] if said else ""
    if not said or after.count("(") > after.count(")"):
        return False
    between = _undated(after)
    # (a clause of its own between them: "4 was your earlier answer; 7 is the current one")
    return not re.search(r"[\d;]", between) and not _TURNS_TO_NOW.search(between)


# "up from 25", "after updating from 25": what it changed from
_CHANGED_FROM = re.compile(
    CHANGED_FROM + r"(?:\s+(?:the|a|an|your|my))?"
    # ("up from the earlier-mentioned six", "from your previous 4")
    r"(?:\s+(?:earlier|previous|prior|original|initial|old|former)(?:-\w+)?)?[\s*_:$~]*$"
)
_NEW_THEN_FROM = re.compile(NEW_THEN_FROM)


_ASKS_FORMER = re.compile(
    r"(?i)\b(?:previous(?:ly)?|before|prior|original(?:ly)?|initial(?:ly)?|at first|first|"
    r"used to|old|earlier|formerly|start(?:ed|ing)?|began|begin)\b"
)


# Where a count runs from ("since I started collecting again", "since starting painting
# classes"): the question asks for the total now, not for an earlier value.
_SINCE_START = re.compile(
    r"(?i)\bsince (?:i |we )?(?:first )?(?:start(?:ed|ing)?|began|beginning)\b"
)


def asks_current(question_type: str, question: str) -> bool:
    """A knowledge update asks for the value now (a total "since I started ..." too), unless it
    asks for an earlier one ("How many engineers did I lead when I first started?")."""
    return question_type == "knowledge-update" and not _asks_former(question)


def asks_earlier(question_type: str, question: str) -> bool:
    """Does the question ask for an earlier value ("my previous goal", "when I first started",
    "my last name before I changed it")? Then the value the response says was replaced answers
    it. A knowledge update's facts change, so any word of an earlier time asks for one; of other
    questions, only a word that calls a value former does: there "first" orders events ("Which
    did I start first?") and "old" asks an age."""
    if question_type == "knowledge-update":
        return _asks_former(question)
    return bool(_NAMES_FORMER.search(_COMPARED_WITH.sub(" ", asked_part(question))))


# What a question measures against: "How much more did I raise than my initial goal?", "How
# much faster than my previous year's time?", "How much more after the initial quote?". The
# earlier value there is a term of the answer, not the value asked for.
_COMPARED_WITH = re.compile(
    r"(?i)\b(?:than|compared (?:to|with)|versus|vs\.?|relative to|after)\b[^?.;]*"
)


_NAMES_FORMER = re.compile(
    r"(?i)\b(?:previous(?:ly)?|prior|original(?:ly)?|initial(?:ly)?|at first|used to|formerly|"
    r"(?:my|your) old|before (?:i|we|you) (?:\w+ed|got|made|took|began)\b)"
    r"(?![\s*_]+(?:conversation|session|chat|message|discussion|exchange|interaction)s?\b)"
)


def _asks_former(question: str) -> bool:
    return bool(_ASKS_FORMER.search(_SINCE_START.sub(" ", asked_part(question))))


# A former value's marker, up to three words before its number: "previously 4", "your previous
# best was 25:50", "earlier you mentioned 4", "no longer 23", "you started with 4". "before" alone
# is not one ("before 7 am"), nor are the history's own "previous conversations"; and its reach
# stops at a turn to the value now ("initially 4, later updated to 7": 7 is no former value).
_FORMER_BEFORE = re.compile(
    rf"(?:{FORMER_MARKER}|\bno longer\b|\bstart(?:ed|ing)? (?:out )?(?:with|at)\b)"
    rf"(?:[\s,*_]+(?!{TURN_TO_NOW}\b)[a-z']+){{0,3}}"
    r"[\s,*_:($~]*$"
)
