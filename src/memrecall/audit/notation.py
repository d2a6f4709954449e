"""Notations: a quantity written another way, its value unchanged.

"$800" is "800 dollars" and "USD 800", "6:00 pm" is "6 pm" and "18:00", "12,000" is "12k" and
"12 000", "45 minutes" is "45 mins", "20%" is "20 percent", "27 minutes and 45 seconds" is
"27:45", "12 eggs" is "a dozen eggs". The 500 references and the published responses use some
of these ways more than others, so a rule may read only the ones it was written from. Each
notation below rewrites a text and keeps its values; restate.py applies them to references, and
`RENOTATED` (variants, variants.py) to responses, so that every verdict one changes is a rule
that reads how a quantity is written as what it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .variants import Variant


def _money_words(text: str) -> str:
    """ "$800" as "800 dollars", "$0.75" as "75 cents"."""

    def words(m: re.Match) -> str:
        amount = m.group(1)
        cents = re.fullmatch(r"0\.(\d\d)", amount)
        return f"{int(cents.group(1))} cents" if cents else f"{amount} dollars"

    # the amount ends on a digit: "$2,000." and "$5,000, as" keep their punctuation
    amount = r"((?:\d[\d,]*)?\d(?:\.\d+)?)"
    ranged = re.sub(rf"\${amount}(\s?[-–]\s?|\s+to\s+)\${amount}", r"\1\2\3 dollars", text)
    return re.sub(rf"\${amount}", words, ranged)


def _clock_form(text: str) -> str:
    """ "6:00 pm" as "6 pm"; other times of day in capitals ("7:30 pm" as "7:30 PM")."""
    on_the_hour = re.sub(r"\b(\d{1,2}):00 ?([ap])m\b", r"\1 \2m", text, flags=re.IGNORECASE)
    if on_the_hour != text:
        return on_the_hour
    return re.sub(
        r"\b(\d{1,2}(?::\d\d)?) ?([ap])\.?m\b",
        lambda m: f"{m[1]} {m[2].upper()}M",
        text,
        flags=re.IGNORECASE,
    )


def _clock_24h(text: str) -> str:
    """ "9:30 pm" as "21:30", "7 am" as "07:00", "12:15 a.m." as "00:15": the 24-hour clock.
    (A sentence that ends on "a.m." keeps its full stop.)"""

    def hours(m: re.Match) -> str:
        hour = int(m[1]) % 12 + (12 if m[3].lower() == "p" else 0)
        ends = m[0].endswith(".") and re.match(r"\s+[A-Z]|\s*$", m.string[m.end() :])
        return f"{hour:02d}:{m[2] or '00'}" + ("." if ends else "")

    return re.sub(
        r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))? ?([ap])(?:\.m\.|\.?m\b)", hours, text, flags=re.I
    )


# A whole number of hundreds from 1,000 to 999,900, with or without its separators; not a part of
# a date, a time, a decimal or an identifier.
_THOUSANDS = re.compile(r"(?<![\w.:/,-])(\$?)(\d{1,3}(?:,\d{3})+|\d{4,6})(?![\w:/,]|\.\d)")


def _thousands_suffix(text: str) -> str:
    """ "12,000" as "12k", "$1,200" as "$1.2k"; a year ("2023") stays."""

    def suffixed(m: re.Match) -> str:
        value = int(m[2].replace(",", ""))
        if not m[1] and "," not in m[2] and 1900 <= value <= 2100:
            return m[0]
        if value < 1000 or value >= 1_000_000 or value % 100:
            return m[0]
        return f"{m[1]}{value / 1000:.1f}".rstrip("0").rstrip(".") + "k"

    return _THOUSANDS.sub(suffixed, text)


# unit -> (its abbreviation for one, for several)
_ABBREVIATIONS = {
    "hour": ("hr", "hrs"),
    "minute": ("min", "mins"),
    "second": ("sec", "secs"),
    "week": ("wk", "wks"),
    "year": ("yr", "yrs"),
    "kilometer": ("km", "km"),
    "kilometre": ("km", "km"),
    "kilogram": ("kg", "kg"),
    "pound": ("lb", "lbs"),
    "mile": ("mi", "mi"),
}
_UNIT_AFTER_NUMBER = re.compile(
    r"\b(\d+(?:\.\d+)?) (" + "|".join(_ABBREVIATIONS) + r")(s?)\b", re.IGNORECASE
)


def _unit_abbreviation(text: str) -> str:
    """ "45 minutes" as "45 mins", "10 pounds" as "10 lbs", "15 kilometers" as "15 km"."""
    return _UNIT_AFTER_NUMBER.sub(
        lambda m: f"{m[1]} {_ABBREVIATIONS[m[2].lower()][bool(m[3])]}", text
    )


def _percent_word(text: str) -> str:
    """ "20%" as "20 percent", or "20 percent" as "20%"."""
    worded = re.sub(r"(?<=\d)\s?%", " percent", text)
    return worded if worded != text else re.sub(r"(?<=\d) per ?cent\b", "%", text)


def _duration_clock(text: str) -> str:
    """ "27 minutes and 45 seconds" as "27:45", as a run's time is written."""
    return re.sub(
        r"\b(\d{1,2}) minutes?,? (?:and )?(\d{1,2}) seconds?\b",
        lambda m: f"{m[1]}:{int(m[2]):02d}",
        text,
    )


_DOZENS = {12: "a dozen", 24: "two dozen", 36: "three dozen", 48: "four dozen"}
# A noun that a number of dozens would not count: units, and "times" (a dozen times is no
# notation of a count of times anyone writes for 24).
_NOT_COUNTED_IN_DOZENS = (
    r"(?:(?:second|minute|hour|day|week|month|year|time|percent|point|dollar|cent|mile|pound|"
    r"kilometer|km|kg|lb|ft)s?|inch(?:es)?|feet)\b"
)


def _dozen(text: str) -> str:
    """ "12 eggs" as "a dozen eggs", "24 cupcakes" as "two dozen cupcakes"."""
    return re.sub(
        rf"(?<![\w.,:/$-])(12|24|36|48)(?= (?!{_NOT_COUNTED_IN_DOZENS})[a-z]+s\b)",
        lambda m: _DOZENS[int(m[1])],
        text,
    )


def _currency_code(text: str) -> str:
    """ "$2,500" as "USD 2,500"."""
    return re.sub(r"\$(?=\d)", "USD ", text)


def _spaced_thousands(text: str) -> str:
    """ "12,000" as "12 000", its groups apart by a narrow no-break space (as SI style writes
    them)."""
    return re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "\u202f", text)


# name -> text -> the text with its quantities written that other way
NOTATIONS: dict[str, Callable[[str], str]] = {
    "money_words": _money_words,
    "clock_form": _clock_form,
    "clock_24h": _clock_24h,
    "thousands_suffix": _thousands_suffix,
    "spaced_thousands": _spaced_thousands,
    "currency_code": _currency_code,
    "unit_abbreviation": _unit_abbreviation,
    "percent_word": _percent_word,
    "duration_clock": _duration_clock,
    "dozen": _dozen,
}


def renotated(notate: Callable[[str], str]) -> Variant:
    """The variant that judges an answer's response with its quantities written another way."""

    def variant(item):
        again = notate(item.response)
        return item if again == item.response else replace(item, response=again)

    return variant


RENOTATED: dict[str, Variant] = {name: renotated(f) for name, f in NOTATIONS.items()}
