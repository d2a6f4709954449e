"""Quantities: counts, durations, money, percentages, measures (length, mass) and times of day,
with unit conversion (weeks<->days, years<->months, hours<->minutes, dozens<->a count, miles<->km,
pounds<->kg, a measure in another unit rounded as written; weeks and days against months
and years to the nearest whole unit, "8 weeks" ~ 2 months), a compound duration ("4 years and
9 months") as one number; dates, ordinals and years are not read as counts, nor a number that labels
a part of the history or of the reasoning ("Session 3", "Step 2") or that is added up ("8 + 6 =
14"), nor the "one" that picks an item out of a group ("one of several", "one of the highlights";
"only one of them" counts). A hedge over two counts ("one or two") is a range, like "1-2": either
end. A message's timestamp ("2023/05/20 (Sat) 06:42") is not a time of day the response reports, nor
is a confidence note ("Confidence: 3 out of 5") or a citation marker ("[3]") an answer.
A reference is read in the unit the question counts in where it is a whole number of it ("14 days"
for "How many weeks ...?"), cents are hundredths of a dollar and "£30" is 30 pounds; a count in
dozens is a count unless the question asks in dozens; a time without am/pm ("25:50") may be a
run's time, in minutes and seconds.
temporal-reasoning accepts off-by-one for day/week/month/year counts (in the finer unit), and the
reference's own "N is also acceptable" alternatives and "from A to B" ranges."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ...abstention import says_missing
from .normalise import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    STOPWORDS,
    days_of_month,
    fmt,
    normalize,
    split_acceptable,
    tokens,
)
from .phrases import (
    LABEL_WORDS,
)
from .response import asked_part, conclusion, replaced_by, sentences, settled_answer, without_asides
from .updates import asks_current, asks_earlier, value_context
from .verdict import RuleVerdict

_UNIT_WORDS = {
    "second": "second",
    "seconds": "second",
    "minute": "minute",
    "minutes": "minute",
    "min": "minute",
    "mins": "minute",
    "hour": "hour",
    "hours": "hour",
    "hr": "hour",
    "hrs": "hour",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "wk": "week",
    "wks": "week",
    "month": "month",
    "months": "month",
    "mo": "month",
    "mos": "month",
    "year": "year",
    "years": "year",
    "yr": "year",
    "yrs": "year",
    "time": "time",
    "times": "time",
    "dollar": "dollar",
    "dollars": "dollar",
    "cent": "cent",
    "cents": "cent",
    "usd": "dollar",
    "bucks": "dollar",
    "percent": "percent",
    "%": "percent",
    "dozen": "dozen",
    "mile": "mile",
    "miles": "mile",
    "mi": "mile",
    "km": "km",
    "kms": "km",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "foot": "foot",
    "feet": "foot",
    "ft": "foot",
    "pound": "pound",
    "pounds": "pound",
    "lb": "pound",
    "lbs": "pound",
    "kg": "kg",
    "kgs": "kg",
    "kilo": "kg",
    "kilos": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "ounce": "ounce",
    "ounces": "ounce",
    "oz": "ounce",
}
# unit -> (family, size in the family's base unit); conversions only within a family.
_UNIT_SCALE = {
    "second": ("clock", 1 / 60),
    "minute": ("clock", 1),
    "hour": ("clock", 60),
    "day": ("days", 1),
    "week": ("days", 7),
    "month": ("months", 1),
    "year": ("months", 12),
    "time": ("times", 1),
    "dollar": ("money", 1),
    "cent": ("money", 0.01),
    "percent": ("percent", 1),
    "dozen": ("count", 12),  # a bare count is the family's base unit: "2 dozen" = 24
    # measures: "12 km" is no answer for 12 miles, "19 km" is (rounded as it is written)
    "mile": ("length", 1609.344),
    "km": ("length", 1000),
    "foot": ("length", 0.3048),
    "pound": ("mass", 453.59237),
    "kg": ("mass", 1000),
    "ounce": ("mass", 28.349523125),
}
_MEASURES = frozenset({"length", "mass"})
_RATE = re.compile(r"\s*(?:per\b|/\s*[a-z]|an? (?:hour|day|week|month|year|gallon|liter|litre)\b)")
_CALENDAR_UNITS = frozenset({"day", "week", "month", "year"})
_FILLER_BEFORE_UNIT = frozenset(
    {
        "more",
        "additional",
        "full",
        "whole",
        "straight",
        "consecutive",
        "total",
        "extra",
        "separate",
        "different",
        "calendar",
    }
)
_MONTHS = frozenset(MONTHS) | frozenset(MONTH_ABBREVIATIONS)


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str | None = None  # canonical unit (see _UNIT_SCALE) or None for a bare count
    clock: bool = False  # a time of day; value = minutes after midnight
    ampm_known: bool = True  # False for "6:00" without am/pm (compared modulo 12 hours)
    bare_clock: bool = False  # "27:45" without am/pm: a time of day, or a run's time (durations)
    counts_noun: bool = False  # a bare number that counts the noun after it ("2 events")
    former: bool = False  # called a former value: "previously 4", "from 25:50 to 24:30"
    current: bool = False  # labelled the value now: "Current: 3", "Latest: 1,300"
    ago: bool = False  # a time before now ("three weeks ago"): when something was, no duration
    denied: bool = False  # named to be denied: "not 3", "rather than 3", "it wasn't 3"
    said_on: tuple[int, int, int] | None = None  # the dated clause's (year, month, day); 0: none
    of_history: str | None = None  # the part of the history it counts ("2 messages": "messag")


# An age before its number: "around age 27", "aged 27", "at the age of 27".
_AGE_BEFORE = re.compile(r"\b(?:age|aged|age of)[ \t*_]+$")


def _word_before(s: str, pos: int) -> str:
    """The word just before `pos`, with only spaces or emphasis between: in "on 17 may, 14 days
    later" the 14 follows a comma and counts days; it is no day of May."""
    m = re.search(r"([a-z]+)[ \t*_]+$", s[:pos])
    return m.group(1) if m else ""


# A score out of its scale ("a GPA of 3.83/4.0", "rated 8.5/10"): a decimal is no day of a date
# nor a fraction's numerator, so the number before the slash is the score.
_OUT_OF_SCALE = re.compile(r"/\s?(?:4|5|10|100)(?:\.0)?\b(?!/)")

# A line that opens with a number and a full stop or bracket: a list's marker when the list has
# another ("1. Paris\n2. Rome") or starts there ("1. "); a lone "2. You told me about them." is an
# answer.
_LIST_MARKER = re.compile(r"(?m)^[ \t*>#-]*\d+[.)][ \t]+\S")


# A table's row-number column: a header whose first cell is "#" (or "No."), then rows whose first
# cell is only a number. Those numbers count rows, as a list's "1." does.
_NUMBERED_TABLE = re.compile(
    r"(?m)^[ \t]*\|[ \t]*(?:#|no\.?|nr\.?)[ \t]*\|.*\n[ \t]*\|[ \t:|-]+\|?[ \t]*\n"
    r"(?:[ \t]*\|.*(?:\n|$))+"
)
_ROW_NUMBER = re.compile(r"(?m)^([ \t]*\|[ \t]*)(\d+)(?=[ \t]*\|)")


def _without_row_numbers(s: str) -> str:
    return _NUMBERED_TABLE.sub(
        lambda t: _ROW_NUMBER.sub(lambda m: m.group(1) + " " * len(m.group(2)), t.group(0)), s
    )


# "$ 40", "USD 2,500", "US$40": dollars named before the amount
_DOLLARS_BEFORE = re.compile(r"(?:\$|\busd|\bus\$) ?$")


def quantities(text: str, *, keep_years: bool = False, targets: bool = False) -> list[Quantity]:
    """Numbers with their units, skipping dates ("March 15"), ordinals ("15th"), years and,
    unless `targets`, numbers named as a target ("hoping to reach 1,300")."""
    s = normalize(text)
    s = re.sub(r"\b(?:a|an)\s+(?=(?:single\s+)?(?:minute|hour|day|week|month|year)\b)", "1 ", s)
    s = without_picking_one(s)  # "1 of the highlights" picks one and counts none
    s = _without_row_numbers(s)  # "| 4 | Charity Golf Tournament |" numbers a row
    out: list[Quantity] = []
    unit_end: int | None = None  # where the last unit word ended (a compound continues there)
    listed = None  # whether two lines open with a list marker; read when a number opens a line
    for m in re.finditer(r"\d+(?:\.\d+)?", s):
        start, end = m.span()
        prev = s[start - 1] if start else " "
        glued = prev == "-" and start > 1 and s[start - 2].isalpha()
        if prev.isalnum() or prev in ".:/" or glued:
            continue  # part of a token like "gr-90", "1.5" tail or a date "6/3"
        rest = s[end:]
        if re.match(r"[.)][ \t]+\S", rest) and re.search(r"(?:^|\n)[ \t*>#-]*$", s[:start]):
            if listed is None:
                listed = len(_LIST_MARKER.findall(s)) > 1
            if m.group() == "1" or listed:
                continue  # a list marker ("2. **Swimming**"), not a count
        before_it = s[max(0, start - 40) : start]
        if not targets and _AIMED_AT.search(before_it) and not _REACHED.search(before_it):
            continue  # "hoping to reach 1,300", "a goal of 25:50": a target, not a value had
        ampm = re.match(r"(?::(\d{2}))?\s?(am|pm)\b", rest)
        colon = re.match(r":(\d{2})\b", rest)
        if (ampm or colon) and _STAMPED.search(s[max(0, start - 30) : start]):
            continue  # "2023/05/20 (Sat) 06:42": when a message was sent, not a time it reports
        if ampm or colon:
            hour = int(float(m.group(0)))
            minute = int((ampm or colon).group(1) or 0)
            if ampm:
                hour = hour % 12 + (12 if ampm.group(2) == "pm" else 0)
            out.append(
                Quantity(
                    hour * 60 + minute,
                    clock=True,
                    ampm_known=bool(ampm) or hour > 12,
                    bare_clock=not ampm,
                    **value_context(s, start, end),
                )
            )
            continue
        if re.match(r"/\d", rest) and not ("." in m.group() and _OUT_OF_SCALE.match(rest)):
            continue  # a date or a fraction ("7/22", "3/4"), not a count
        if re.match(r"(?:st|nd|rd|th)\s+birthday\b", rest):
            # "on your 18th birthday": an age, in years
            out.append(Quantity(float(m.group(0)), "year", **value_context(s, start, end)))
            continue
        if re.match(r"(?:st|nd|rd|th)\b", rest) or re.match(r"[a-z]", rest):
            continue  # ordinal, or glued to letters ("5k", "200mm")
        if _word_before(s, start) in _MONTHS or re.match(
            r"\s+(?:of\s+)?(?:" + "|".join(_MONTHS) + r")\b", rest
        ):
            continue  # a date
        if re.search(r"[+×]\s*~?\$?$", s[max(0, start - 5) : start]) or re.match(
            r"(?:\s*[a-z]+){0,2}\s*[+×]\s*~?\$?\d", rest
        ):
            continue  # "8 days + 6 days = 14 days": an operand; the result is the answer
        if _SHORT_OF.search(s[max(0, start - 20) : start]):
            continue  # "close to 1,300", "almost 5": less than the number, not the number
        before = s[max(0, start - 40) : start]
        if _RATED_BEFORE.search(before) or _RATED_AFTER.match(rest):
            continue  # "Confidence: 3 out of 5", "80% confident": rates, counts nothing
        value = float(m.group(0))
        if re.match(r"\s?%", rest):
            out.append(Quantity(value, "percent", **value_context(s, start, end)))
            continue
        if prev == "$" or _DOLLARS_BEFORE.search(s[max(0, start - 6) : start]):
            out.append(Quantity(value, "dollar", **value_context(s, start, end)))
            continue
        if _AGE_BEFORE.search(s[max(0, start - 16) : start]):  # "around age 27": in years
            out.append(Quantity(value, "year", **value_context(s, start, end)))
            continue
        if prev == "£":  # "£30" is 30 pounds, as the response may write it
            out.append(Quantity(value, "pound", **value_context(s, start, end)))
            continue
        unit = None
        # (up to the next number: "Answer 1: approximately 5 weeks" gives weeks to the 5)
        for w in list(re.finditer(r"[a-z]+", re.split(r"\d", rest[:40], maxsplit=1)[0]))[:3]:
            if w.group(0) in _UNIT_WORDS:
                unit, end = _UNIT_WORDS[w.group(0)], end + w.end()
                break
            if w.group(0) not in _FILLER_BEFORE_UNIT:
                break
        if unit and _UNIT_SCALE[unit][0] in _MEASURES and _RATE.match(s[end:]):
            unit = None  # "30 miles per gallon", "5 km an hour": a rate, not a length
        if unit is None:
            tail = _RANGE_TAIL.match(rest)
            if tail and tail.group(1) in _UNIT_WORDS:
                unit = _UNIT_WORDS[tail.group(1)]  # "10 to 12 hours": both ends are hours
        if unit is None and _LABEL_BEFORE.search(s[max(0, start - 20) : start]):
            continue  # "Session 24", "Step 2": names a part of the history or of the reasoning
        if unit is None and not keep_years and 1900 <= value <= 2100 and value.is_integer():
            continue  # a year, not a count
        nxt = re.match(r"[ \t]+([a-z]+)", rest)  # the noun it counts, on its line
        if (
            m.group() == "1"
            and _PRONOUN_ONE.search(s[:start])
            and (re.match(r"\s*(?:[^\w\s$]|$)", rest) or (nxt and nxt.group(1) in STOPWORDS))
        ):
            continue  # "the current one is", "the old one, 4,": a pronoun, no count
        noun = (
            unit is None
            and nxt is not None
            and nxt.group(1) not in STOPWORDS
            and nxt.group(1) not in _FILLER_BEFORE_UNIT
            and nxt.group(1) not in _WHEN_NOT_NOUN
        )
        ago = unit is not None and re.match(r"[\s*_]+ago\b", s[end:]) is not None
        part = _HISTORY_PART.match(rest) if unit is None else None
        q = Quantity(
            value,
            unit,
            counts_noun=noun,
            ago=ago,
            of_history=tokens(part.group(1))[0] if part else None,
            **value_context(s, start, m.end()),
        )
        prev_q = out[-1] if out else None
        if (
            prev_q is not None
            and unit is not None
            and unit_end is not None
            and _COMPOUND_JOIN.fullmatch(s[unit_end:start])
            and _UNIT_SCALE[unit][0] == _UNIT_SCALE.get(prev_q.unit or "", ("",))[0]
            and _UNIT_SCALE[unit][1] < _UNIT_SCALE[prev_q.unit][1]
        ):
            # "4 years and 9 months" is one duration (57 months), not 4 years and 9 months.
            q = Quantity(
                prev_q.value * _UNIT_SCALE[prev_q.unit][1] / _UNIT_SCALE[unit][1] + value, unit
            )
            out.pop()
        out.append(q)
        unit_end = end if unit is not None else None
    return out


# A count of the history's own parts ("mentioned in 2 messages", "across 3 separate
# conversations"): where the response found its answer, not the answer, unless the question
# counts those parts ("How many sessions of the support group did I attend?").
_HISTORY_PART = re.compile(
    r"[ \t*_]+(?:(?:separate|different|other|distinct|retrieved|relevant)[ \t]+)?"
    r"(messages|conversations|chats|excerpts|snippets|chunks|sources|sessions|mentions)\b"
)
# "the current one", "your old one": a determiner and an adjective before "one" make it a
# pronoun ("the only one" still counts one).
_PRONOUN_ONE = re.compile(
    r"\b(?:the|a|an|this|that|your|my|his|her|their|our|its) (?!only |single |sole )[a-z]+ $"
)
# Words after a number that say when, not what it counts: "20 now", "4 before", "7 total".
_WHEN_NOT_NOUN = frozenset(
    "now currently today then before after earlier later previously initially originally "
    "overall altogether total".split()
)


def _current(values: list[Quantity]) -> list[Quantity]:
    """A knowledge update's answer among `values`: "Previously 4, now 3" answers 3. A value the
    response calls former is not its answer when it gives another one (the judges accept the
    reference among several values otherwise)."""
    now = [q for q in values if q.current and not q.former]
    if now:
        return now
    # a value dated before another one is the older ("5 as of August 2023, then 4 by October")
    latest = [q for q in values if not q.former and not _dated_before_another(q, values)]
    return latest or [q for q in values if not q.former] or values


def _earlier(values: list[Quantity]) -> list[Quantity]:
    """An earlier value asked for among `values`: "Your previous goal was 150; you later
    updated it to 100" answers 150. The value the response gives as now is not its answer when
    it gives another one."""
    then = [q for q in values if q.former and not q.current]
    return then or [q for q in values if not q.current] or values


def _dated_before_another(q: Quantity, values: list[Quantity]) -> bool:
    return q.said_on is not None and any(
        o.said_on is not None and o.value != q.value and _before(q.said_on, o.said_on)
        for o in values
    )


def _before(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Is date `a` surely before date `b`? A part one of them lacks (0) cannot order them."""
    for x, y in zip(a, b, strict=True):
        if not x or not y or x != y:
            return bool(x and y and x < y)
    return False


# The high end of a range whose unit follows it: "10 to 12 hours", "between 2 and 3 weeks",
# "1 or 2 days" (the low end "10-12 hours" is read with its unit already).
_RANGE_TAIL = re.compile(r"\s*(?:-|to|and|or)\s*\d+(?:\.\d+)?\s*([a-z%]+)")


# Words that put a number just out of reach: "close to 1,300" followers is fewer than 1,300.
_SHORT_OF = re.compile(
    r"\b(?:close to|nearly|almost|just under|just shy of|approaching|not quite)\s+\$?\s?$"
)


# Words that make a number a target: "hoping to reach 1,300" followers, "aiming for 25:50", "a
# goal of 10,000 steps". The response does not say the number was reached.
_AIMED_AT = re.compile(
    r"\b(?:(?:hop(?:e|es|ed|ing)|aim(?:s|ed|ing)?|try(?:ing)?|tried|want(?:s|ed|ing)?|plan(?:s|ned|"
    r"ning)?) to (?:reach|hit|beat|break|get to|get under|get below|achieve)|"
    r"aim(?:s|ed|ing)? for|(?:goal|target) (?:of|is|was)|(?:goal|target)[:]?)\s+\$?\s?$"
)


# ... unless the response says it was reached: "you hit your goal of 10,000 steps".
_REACHED = re.compile(
    r"\b(?:reached|hit|met|achieved|beat|exceeded|surpassed|made|smashed|crushed) "
    r"(?:your |the |my |a |that )?(?:\w+ )?(?:goal|target)\b"
)
_ASKS_TARGET = re.compile(
    r"\b(?:goals?|targets?|aim(?:s|ed|ing)?|hop(?:e|es|ed|ing)|plan(?:s|ned|ning)?|want(?:s|ed)?|"
    r"trying|tried|try)\b",
    re.IGNORECASE,
)


# What a message's timestamp puts before its time of day: a year ("May 20, 2023 06:42", from
# the haystack's "2023/05/20 (Sat) 06:42") or a weekday in brackets ("(Sat) 06:42"). A time a
# response reports comes after a word ("at 6:42", "woke up 6:42").
_STAMPED = re.compile(r"(?:\b(?:19|20)\d{2},?|\((?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\))\s*$")


# A number that rates the response, not an answer: a confidence note ("Confidence: 0.8",
# "confidence level: 3 out of 5", "I'm 80% confident"). (A citation marker, "[3]", is gone
# before the rules read: normalise.as_markdown.)
_RATED_BEFORE = re.compile(
    r"\b(?:confidence|certainty)(?:\s+(?:level|score|rating))?\s*(?:[:=]|is|of)?\s*[~≈]?"
    r"(?:\d+(?:\.\d+)?\s*(?:out of|/)\s*)?$"
)
_RATED_AFTER = re.compile(r"\s?(?:%|percent)\s*(?:confident|certain|sure)\b")


# "One of several", "one of the highlights", "one of them": the "one" picks an item out of a
# group and counts nothing, unless it says that one alone ("only one of them", "just one of the
# four") is how many there are.
_ONE_OF = re.compile(
    r"\s+of\s+(?:the|them|those|these|several|many|various|multiple|my|your|his|her|our|their|its)\b"
)
_JUST = re.compile(r"\b(?:only|just|exactly|precisely|merely)\s+$")


def without_picking_one(text: str) -> str:
    """The text without the "one" that picks an item out of a group ("any one of its
    hexagons"), which counts nothing; "only one of them" keeps its count."""
    return re.sub(
        r"(?<![\d.])\b(?:one|1)(?=" + _ONE_OF.pattern + ")",
        lambda m: m.group(0) if _JUST.search(text[: m.start()].lower()) else " ",
        text,
        flags=re.IGNORECASE,
    )


# "Session 24" of the history, "Step 2" of a reasoning transcript: the number names, not counts
# ("the session 3 weeks ago" still gives 3 weeks).
_LABEL_BEFORE = re.compile(rf"\b(?:{LABEL_WORDS})[\s*_#]*$")


# Between the parts of one compound duration: "4 years and 9 months", "1 hour, 30 minutes".
_COMPOUND_JOIN = re.compile(r"\s*(?:,\s*)?(?:and\s+)?")


def _convert(q: Quantity, unit: str) -> float | None:
    if q.unit == unit:
        return q.value
    fam_q, fam_u = _UNIT_SCALE.get(q.unit or ""), _UNIT_SCALE.get(unit)
    if fam_q and fam_u and fam_q[0] == fam_u[0]:
        return q.value * fam_q[1] / fam_u[1]
    return None


# Days in a calendar unit, to read a period in the other family: weeks and days against months
# and years ("8 weeks" is about 2 months, "a month" about 30 days, "365 days" a year).
_DAYS_IN = {"day": 1, "week": 7, "month": 365.25 / 12, "year": 365.25}
# ... and the fewest and most it holds: "a month ago" less "a week ago" is three weeks, or 21 to
# 24 days
DAYS_LEAST_MOST = {"day": (1, 1), "week": (7, 7), "month": (28, 31), "year": (365, 366)}


def _calendar(q: Quantity, unit: str) -> float | None:
    """A period across the two calendar families (days and weeks; months and years), in
    `unit`, to the nearest whole one: about as much as a month holds, no more exact than that."""
    if q.unit in _DAYS_IN and unit in _DAYS_IN and _UNIT_SCALE[q.unit][0] != _UNIT_SCALE[unit][0]:
        return float(round(q.value * _DAYS_IN[q.unit] / _DAYS_IN[unit]))
    return None


QUANTITY_QUESTION = re.compile(
    r"\bhow (?:many|much|long|old|far)\b|\bwhat time\b|\bwhat percentage\b|"
    r"\b(?:total|combined) (?:number|amount|cost|count)\b|\bwhat(?:'s| is| was) the (?:total|sum|"
    r"difference|number|amount|price|cost)\b",
    re.IGNORECASE,
)
# "How many weeks ...?", or the unit named after a "how long" ("How long ago did I go, in
# weeks?", "How long (in days) did it take?").
_QUESTION_UNIT = re.compile(r"\bhow (?:many|much) ([a-z]+)\b|\(in ([a-z]+)\)|,? in ([a-z]+)\W*$")


def _question_unit(question: str) -> str | None:
    """The unit the question counts in, for a reference that gives a bare number ("How many
    miles did I run?" - "26.2")."""
    q = normalize(asked_part(question))
    for m in _QUESTION_UNIT.finditer(q):
        word = next(w for w in m.groups() if w)
        if word in _UNIT_WORDS:
            return _UNIT_WORDS[word]
    if re.search(r"\bhow old\b|\byears? older\b|\byears? younger\b|\bages?\b", q):
        return "year"
    return None


def _reading_unit(gold: Quantity, question: str) -> str | None:
    """The unit a reference is read in: the one the question counts in, where the reference
    converts to a whole number of it ("14 days" for "How many weeks ...?" is 2 weeks: a bare "2"
    answers it, and the off-by-one tolerance is one week); else the reference's own. A count in
    dozens that the question does not ask in dozens is a count ("a dozen" eggs: "12 eggs")."""
    asked = _question_unit(question)
    if gold.unit and _UNIT_SCALE[gold.unit][0] == "count" and asked != gold.unit:
        return asked
    if not gold.unit or not asked:
        return gold.unit or asked
    value = _convert(gold, asked)
    return asked if value is not None and abs(value - round(value)) < 1e-9 else gold.unit


# A question that counts back from now ("How many weeks ago ...?", "How many months have passed
# since ...?", "How many weeks back ...?") is answered by "3 weeks ago"; any other duration is
# not.
_ASKS_BACK_FROM_NOW = re.compile(
    rf"\b(?:ago|since)\b|\b(?:{'|'.join(sorted(_CALENDAR_UNITS))})s? back\b", re.IGNORECASE
)


_OR_ASIDE = re.compile(r"\(\s*or\s+([^()]*)\)", re.IGNORECASE)


# "2 weeks for A, 4 weeks for B and 2 for C, so a total of 8 weeks": a reference that adds up
# its parts is answered by the sum, not by its first part.
_SUMMED = re.compile(
    r"\b(?:(?:so|for) (?:a |the )?total(?: of)?|in total|altogether|in all)\b", re.IGNORECASE
)


def _asked_parts(question: str, reference: str) -> list[tuple[str, str]]:
    """'How many did I lead when I started? How many do I lead now?' with a reference that
    answers each in a sentence of its own: the (question, reference) pairs, in order."""
    # the last question may go without its mark ("... before? How many do I lead now")
    asked = [q.strip() for q in re.findall(r"[^?]+\??", question) if QUANTITY_QUESTION.search(q)]
    if len(asked) < 2:
        return []
    answered = [s for s in re.split(r"(?<=[.;])\s+", reference.strip()) if quantities(s)]
    return list(zip(asked, answered)) if len(answered) == len(asked) else []


def quantity_verdict(
    question_type: str, question: str, answer: str, hypothesis: str
) -> RuleVerdict | None:
    main, alts_text = split_acceptable(answer)
    # Two quantities asked in two questions: the response must answer both ("4 then, 5 now";
    # "4 then, and still 4" answers only the first).
    parts = _asked_parts(question, main)
    if parts:
        verdicts = [quantity_verdict(question_type, q, a, hypothesis) for q, a in parts]
        if all(v is not None for v in verdicts):
            missed = next((v for v in verdicts if not v.label), None)
            matched = "; ".join(v.reason.removeprefix("quantity: ") for v in verdicts)
            return missed or RuleVerdict(True, f"quantity: each one asked ({matched})")
    gold_qs = quantities(main, keep_years=True, targets=True)
    if not gold_qs or days_of_month(without_asides(main)):
        return None  # no quantity, or a date ("7 May 2023"): its day and month go together
    summed = _SUMMED.search(main)
    sums = quantities(main[summed.end() :], keep_years=True, targets=True) if summed else []
    gold = (sums or gold_qs)[0]
    # A question about a goal ("What is my daily step goal?") is answered by the target.
    targets = bool(_ASKS_TARGET.search(asked_part(question)))
    hyp_qs = quantities(hypothesis, keep_years=gold.value >= 1900, targets=targets)
    concluded = quantities(conclusion(hypothesis), keep_years=gold.value >= 1900, targets=targets)
    if concluded and len(concluded) < len(hyp_qs):
        # A reasoning transcript ("Step 1: extract ... Step 3: conclusion: 1 project") answers
        # in its conclusion; the numbers in the evidence it lists are not its answer.
        hyp_qs = concluded
    asked = set(tokens(question))
    hyp_qs = [q for q in hyp_qs if q.of_history is None or q.of_history in asked]
    current_asked = asks_current(question_type, question)
    earlier_asked = asks_earlier(question_type, question)
    if gold.clock:
        clocks = [q for q in hyp_qs if q.clock and not q.denied]
        for q in _current(clocks) if current_asked else clocks:
            if same_time_of_day(q, gold):
                return RuleVerdict(True, f"quantity: time of day {_clock(gold)} matched")
        if gold.bare_clock:  # "27:45" for a run: "27 minutes and 45 seconds" says it too
            readings = [d.value for d in _durations(gold)]
            for q in hyp_qs:
                v = None if q.clock or q.denied or not q.unit else _convert(q, "minute")
                if v is not None and any(abs(v - r) < 1e-9 for r in readings):
                    return RuleVerdict(
                        True, f"quantity: {fmt(q.value)} {q.unit} is {_clock(gold)} as a duration"
                    )
        return RuleVerdict(False, f"quantity: no time of day equal to {_clock(gold)}")
    unit = _reading_unit(gold, question)
    if gold.unit and unit != gold.unit:
        gold = replace(gold, value=_in_unit(gold, unit), unit=unit)
    alts, ranges = _alternatives(alts_text, unit)
    # "11 days (or 12 days, if April 15th to 22nd is counted as 8)": a value the reference
    # also accepts, as "12 days is also acceptable" would be
    for other in _OR_ASIDE.findall(main):
        alts += _alternatives(other, unit)[0][:1]  # its first number; the rest is its condition
    tol = 1.0 if (question_type == "temporal-reasoning" and unit in _CALENDAR_UNITS) else 0.0
    counts = [q for q in hyp_qs if not q.clock]
    if unit == "time":
        # "How many times ...": "10 rides", "12 games", "4 baking sessions" count the same
        # occurrences; "times" is how the question counts, not a unit to convert. "A dozen
        # times" is 12 of them.
        pool = [
            replace(q, value=_in_unit(q, None), unit=None) if q.unit == "dozen" else q
            for q in counts
            if q.unit in ("time", "dozen", None)
        ]
    elif unit in _UNIT_SCALE:
        pool = [
            q
            for q in counts
            if q.unit and (_convert(q, unit) is not None or _calendar(q, unit) is not None)
        ]
        # A bare number counts only when it is the whole answer ("14", "It was 14.", "14 ...
        # so, 14"), not when it counts something else ("between those 2 events"). A count the
        # question gives ("my three road trips") is said again, not answered. So is one equal
        # to the reference in a response that says what is asked is missing: "I found no two
        # events on consecutive days" for "How many months since my two events on consecutive
        # days?" (2) names the events, not the months.
        if not pool:
            asked = {q.value for q in quantities(question)}
            if not says_missing(hypothesis, instead=False):
                asked.discard(gold.value)
            said = [q for q in counts if not (q.unit is None and q.value in asked) and not q.denied]
            # "It went from 23 to 20", "You first mentioned 5, but a later message corrects
            # that, so it's 3": the other stands alone once one is former or replaced, unless
            # the question asks for an earlier value (which only a correction replaces).
            if not earlier_asked:
                said = _current(said)
            later = quantities(
                settled_answer(hypothesis, earlier=earlier_asked) or "", targets=targets
            )
            if len({q.value for q in said}) > 1 and later:
                said = [q for q in later if not q.denied]
            one_number = len({q.value for q in said}) == 1
            pool = [q for q in said if q.unit is None and one_number and not q.counts_noun]
        # "the most likely answer is 33": a bare number the response gives as its answer is
        # in the unit asked
        pool += [Quantity(float(m.group(1)), unit) for m in _ANSWER_IS.finditer(hypothesis)]
        if unit == "second":  # a run's time in minutes and seconds: "27:45" says it too
            pool += [d for q in hyp_qs if q.clock and q.bare_clock for d in _durations(q)[1:]]
    else:
        pool = [q for q in counts if q.unit is None or _UNIT_SCALE[q.unit][0] == "count"]
    pool = [q for q in pool if not q.denied]  # "not 3: it was 5" answers 5
    if not _ASKS_BACK_FROM_NOW.search(question):
        # "How long had I used the rug when ...?": "a month ago" says when, not how long
        pool = [q for q in pool if not q.ago]
    if current_asked:
        pool = _current(pool)
    elif question_type == "knowledge-update" and earlier_asked:
        # (elsewhere an earlier value is a term of the answer: "How much more than my initial
        # goal did I raise?") A correction replaces even an earlier value: "You originally
        # said level 150, but you corrected it later: level 100" gives the previous goal as 100.
        corrected = quantities(replaced_by(hypothesis, earlier=True) or "", targets=targets)
        corrected_to = {q.value for q in corrected if not q.denied}
        pool = [q for q in pool if q.value in corrected_to] if corrected_to else _earlier(pool)
    label_unit = f" {unit}" if unit else ""
    # Exact readings first, the one-off tolerance after: "3 months ... so about 2 months" is
    # the reference matched, not 3 months off by one.
    near = None
    for q in pool:
        v = _in_unit(q, unit)
        if v is None:
            approx = _calendar(q, unit) if unit and q.unit else None
            if approx is not None and abs(approx - gold.value) <= tol + 1e-9:
                verdict = RuleVerdict(
                    True,
                    f"quantity: {fmt(q.value)} {q.unit} is about {fmt(approx)}{label_unit}"
                    + (" (temporal-reasoning allows one off)" if approx != gold.value else ""),
                )
                if approx == gold.value:
                    return verdict
                near = near or verdict
            continue
        if abs(v - gold.value) < 1e-9:
            return RuleVerdict(True, f"quantity: {fmt(gold.value)}{label_unit} matched")
        for a in alts:
            if abs(v - a) < 1e-9:
                return RuleVerdict(
                    True, f"quantity: the reference's alternative {fmt(a)}{label_unit} matched"
                )
        for lo, hi in ranges:
            if lo - 1e-9 <= v <= hi + 1e-9:
                return RuleVerdict(
                    True,
                    f"quantity: {fmt(v)}{label_unit} in the reference's "
                    f"accepted range {fmt(lo)}-{fmt(hi)}",
                )
        if _rounded_conversion(q, gold.value, unit):
            return RuleVerdict(
                True, f"quantity: {fmt(q.value)} {q.unit} is {fmt(gold.value)}{label_unit}, rounded"
            )
        # "0 weeks: you bought it and received it the same day" says no time passed; that is
        # no near miss of "1 week", whatever the off-by-one tolerance forgives.
        if tol and near is None and v > 0 and _off_by_one(q, v, gold.value, unit):
            near = RuleVerdict(
                True,
                f"quantity: {fmt(q.value)}{' ' + (q.unit or unit)} is "
                f"off by one from {fmt(gold.value)}{label_unit} "
                f"(temporal-reasoning allows it)",
            )
    if near is not None:
        return near
    if unit is None and gold.value in _ordinal_counts(hypothesis, question):
        return RuleVerdict(True, f"quantity: an ordinal of what is asked counts {fmt(gold.value)}")
    # "5 tomato plants and 3 cucumber plants" for 8: a question about two things ("How many
    # plants did I plant for tomatoes and cucumbers?") answered by its two parts, the total left
    # to the reader (the official prompt accepts the intermediate steps). Not when the response
    # says a part is missing: then the parts are what it found, not its answer.
    parts = list(dict.fromkeys(_in_unit(q, unit) for q in pool))
    if (
        len(parts) == 2
        and None not in parts
        and abs(sum(parts) - gold.value) < 1e-9
        and re.search(r"\w and \w", question)
        and not says_missing(hypothesis, instead=False)
    ):
        return RuleVerdict(True, f"quantity: the parts given add up to {fmt(gold.value)}")
    # "You rearranged the furniture three weeks ago, and you got the rug a month ago" for "How
    # long had I been using the rug?": the two times it gives are the intermediate steps, and
    # how far apart they are is the answer (the official prompt accepts the steps). Only when it
    # states no duration of its own, gives exactly two times, and says nothing is missing.
    if not pool and unit in _CALENDAR_UNITS and not says_missing(hypothesis, instead=False):
        apart = _ago_apart([q for q in hyp_qs if q.ago and not q.denied], unit)
        if apart is not None and apart[0] - tol - 1e-9 <= gold.value <= apart[1] + tol + 1e-9:
            return RuleVerdict(
                True,
                f"quantity: the two times it gives are about {fmt(gold.value)}{label_unit} apart",
            )
    seen = ", ".join(f"{fmt(q.value)}{' ' + q.unit if q.unit else ''}" for q in pool) or "none"
    tol_note = " ±1" if tol else ""
    return RuleVerdict(
        False, f"quantity: expected {fmt(gold.value)}{label_unit}{tol_note}; found {seen}"
    )


# "the most likely answer is **33**": a bare number given as the answer (one with its unit,
# "the answer is 33 years", is read with it)
# (read in the response as written: normalising it again would cost more than the rest)
_ANSWER_IS = re.compile(
    r"\banswer (?:is|would be|will be)\W{0,4}(\d+(?:\.\d+)?)(?![\w%/$]|[.,:]\d|\s*[a-z])",
    re.IGNORECASE,
)

_ORDINAL_BEFORE_NOUN = re.compile(r"\b(\d+)(?:st|nd|rd|th)\s+([a-z]+)")


def _ordinal_counts(hypothesis: str, question: str) -> set[float]:
    """N for each "Nth <thing>" whose thing the question counts ("How many projects have I
    completed?": "you just finished your 5th project" has completed 5). Written in digits only:
    "a second bike" or "no mention of a second bike" is another bike, not a count of two."""
    if not re.match(r"\s*how many\b", asked_part(question), re.IGNORECASE):
        return set()
    asked = set(tokens(question))
    return {
        float(m.group(1))
        for m in _ORDINAL_BEFORE_NOUN.finditer(hypothesis.lower())
        if (thing := tokens(m.group(2))) and thing[0] in asked
    }


def _durations(q: Quantity) -> list[Quantity]:
    """A time written h:mm without am/pm read as a duration, in minutes: "1:30" as an hour and
    a half, and as a minute and a half ("27:45", a run's time, as 27 minutes 45 seconds)."""
    hours, minutes = divmod(q.value, 60)
    as_duration = replace(q, clock=False, bare_clock=False, unit="minute")
    return [as_duration, replace(as_duration, value=hours + minutes / 60)]


def _in_unit(q: Quantity, unit: str | None) -> float | None:
    """The quantity in the reference's unit (None when it does not convert); a count as a
    number ("2 dozen" is 24)."""
    if unit and q.unit:
        return _convert(q, unit)
    return q.value * (_UNIT_SCALE[q.unit][1] if q.unit else 1)


def _alternatives(text: str, unit: str | None) -> tuple[list[float], list[tuple[float, float]]]:
    """Values the reference also accepts, in the reference's unit: '31 days ... also
    acceptable' -> [31]; 'ranging from 7 days to 10 days' -> a range (7, 10)."""
    if not text:
        return [], []
    ranges = []
    for m in re.finditer(r"from (.+?) to (.+?)(?= are\b| is\b|[.;]|$)", normalize(text)):
        lo, hi = quantities(m.group(1), keep_years=True), quantities(m.group(2), keep_years=True)
        if lo and hi:
            lo_v = _convert(lo[0], unit) if (unit and lo[0].unit) else lo[0].value
            hi_v = _convert(hi[0], unit) if (unit and hi[0].unit) else hi[0].value
            if lo_v is not None and hi_v is not None:
                ranges.append((lo_v, hi_v))
    if ranges:
        return [], ranges
    values = []
    for q in quantities(text, keep_years=True):
        v = _convert(q, unit) if (unit and q.unit) else q.value
        if v is not None and not q.clock:
            values.append(v)
    return values, []


def _ago_apart(agos: list[Quantity], unit: str) -> tuple[float, float] | None:
    """How far apart two different times before now ("a month ago", "three weeks ago") are, in
    `unit`: the least and the most, as many days as their months can hold; None unless there
    are exactly two."""
    spans = {
        tuple(q.value * days for days in DAYS_LEAST_MOST[q.unit])
        for q in agos
        if q.unit in DAYS_LEAST_MOST
    }
    if len(spans) != 2 or len(agos) != 2:
        return None
    (a_lo, a_hi), (b_lo, b_hi) = sorted(spans)
    return max(0.0, b_lo - a_hi) / _DAYS_IN[unit], (b_hi - a_lo) / _DAYS_IN[unit]


def _rounded_conversion(q: Quantity, gold: float, unit: str | None) -> bool:
    """A measure in another unit of its family, converted from the reference and rounded as the
    response writes it: "19 km" and "19.3 km" for 12 miles, "5.4 kg" for 12 pounds."""
    if not (unit and q.unit and q.unit != unit and _UNIT_SCALE[q.unit][0] in _MEASURES):
        return False
    exact = _convert(Quantity(gold, unit), q.unit)
    decimals = 0 if q.value.is_integer() else len(repr(q.value).split(".")[1])
    return exact is not None and round(exact, decimals) == q.value


def _off_by_one(q: Quantity, value: float, gold: float, unit: str) -> bool:
    """Off by one in the finer of the two units: 20 days for '3 weeks' is off by one day,
    but 4 days for '1 week' is not off by one week."""
    if q.unit is None or q.unit == unit:
        return abs(value - gold) <= 1 + 1e-9
    fine = min((q.unit, unit), key=lambda u: _UNIT_SCALE[u][1])
    a = _convert(q, fine)
    b = _convert(Quantity(gold, unit), fine)
    return a is not None and b is not None and abs(a - b) <= 1 + 1e-9


_TWELVE_HOUR = re.compile(
    r"\b(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))? ?([ap])(?:\.m\.|\.?m\b)", re.IGNORECASE
)
# A 24-hour time that says so: an hour past 12, or one written with its leading zero ("06:00")
_TWENTY_FOUR_HOUR = re.compile(
    r"(?<![\d:.])(0\d|1[3-9]|2[0-3]):([0-5]\d)(?![\d:]| ?[ap]\.?m\b)", re.IGNORECASE
)


def times_of_day_one_way(text: str) -> str:
    """Every time of day that says which half of the day it is, written the same way: "6:00
    AM", "6am" and "06:00" as "6 am", "14:30" and "2.30 p.m." as "2:30 pm". "9:30" alone may be
    either, so it stays. ("at 6 a.m. Then" keeps its sentence's full stop.)"""

    def twelve(hour: int, minutes: str | None, half: str) -> str:
        return f"{hour}{':' + minutes if minutes and minutes != '00' else ''} {half}m"

    def written(m: re.Match) -> str:
        ends = m[0].endswith(".") and re.match(r"\s+[A-Z]|\s*$", m.string[m.end() :])
        return twelve(int(m[1]), m[2], m[3].lower()) + ("." if ends else "")

    text = _TWELVE_HOUR.sub(written, text)
    return _TWENTY_FOUR_HOUR.sub(
        lambda m: twelve(int(m[1]) % 12 or 12, m[2], "p" if int(m[1]) >= 12 else "a"), text
    )


def same_time_of_day(a: Quantity, b: Quantity) -> bool:
    """Two times of day that are the same clock time: "9:30 pm", "21:30" and "9.30pm"; "9:30"
    without am or pm is either."""
    return (a.value - b.value) % (1440 if a.ampm_known and b.ampm_known else 720) == 0


def _clock(q: Quantity) -> str:
    return f"{int(q.value) // 60:02d}:{int(q.value) % 60:02d}"


# A sentence that works a quantity out: "This would suggest about 21 days", "4 + 8 = 12 days",
# "So you had made $120", "that's 3 weeks", "then about 2 months would have passed".
_WORKS_OUT = re.compile(
    r"\b(?:would (?:be|suggest|mean|make|give|come to)|would have (?:passed|elapsed|gone by|been)|"
    r"suggests?|comes? to|adds? up to|"
    r"total|that(?:'s| is) (?:about |approximately |roughly |around )?\d|so\b)|="
)


def worked_out_verdict(
    question_type: str, question: str, answer: str, hypothesis: str
) -> RuleVerdict | None:
    """Accept a response that hedges or declines but works the asked quantity out on the way
    ("I can't say exactly. You started on March 2 and finished on March 18, which would suggest
    about 16 days"): the official prompt counts a response that contains all the intermediate
    steps to the correct answer as correct. None when it works out no matching quantity."""
    if not QUANTITY_QUESTION.search(question):
        return None
    worked = [s for s in sentences(hypothesis) if _WORKS_OUT.search(s.lower())]
    verdict = (
        quantity_verdict(question_type, question, answer, "\n".join(worked)) if worked else None
    )
    if verdict is None or not verdict.label:
        return None
    return RuleVerdict(True, f"declines but works the quantity out: {verdict.reason}")
