"""Turned answers: a right response made wrong by swapping, throughout it, what decides it.

A published response labelled right often names the value it replaced or the option it ruled out
beside its answer: "In May you had 3 bikes; in October, 4. So you own 4 now", "You got the
Samsung first (Feb 20), the Dell later (Feb 25)". Swap the two everywhere and the response is
as long and as sure as before, its evidence moved with its names, and wrong: it settles on the
other value or option. A judge that still accepts it reads that the reference is named
somewhere, not that it is the answer. Planted answers (planting.py) are written from the
reference; these are real responses. Variants (variants.py) keep the label; a turn makes it
wrong.

- swapped_values: the reference is one number; the response writes it and exactly one other
  number, each in digits or words ("one" aside: it is more often a pronoun), and each mention
  becomes the other in its own form. A year, a day of a month and a list's marker are no
  values. A knowledge update's response is the case: the old value and the new. An either-or
  question has none: its answer is an option.
- swapped_options: an either-or question whose reference picks one option, and a response
  whose every word of either option's own words stands in a whole mention of an option ("the
  tomatoes", "Tomato seeds"): each mention becomes the other option.

Each turn returns None where it cannot swap cleanly: a half-swapped response could still be
right ("four-wheel", "your fourth bike", "$4" or "4 pm" would be left saying the answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..judge.rules.normalise import ORDINAL_WORDS
from ..judge.rules.order import ORDER_QUESTION, SEQUENCE
from .planting import (
    MONTH,
    WORD_NUMBER,
    chosen_option,
    either_or,
    is_year,
    number_value,
    number_words,
    option_words,
    stem,
    stems,
)
from .variants import Labelled

# (a number alone: not part of a date "7/22", a time "7:30" or "2 AM", an amount "$40", a range
# "10-12")
_NUMBER = re.compile(
    r"(?<![\w.:/,$–-])\d+(?:\.\d+)?(?![\w:/%–-]|[.,]\d|\s?[ap]\.?m\b)", re.IGNORECASE
)
_DAY_OF_MONTH = re.compile(MONTH + r"\s+$", re.IGNORECASE)
# (a list's marker numbers an item: "2. **2023-05-25** — You mentioned ...")
_LIST_MARKER = re.compile(r"(?<![^\n])\d+[.)]\s")


def _values(text: str) -> list[tuple[re.Match, float]]:
    """The numbers of `text` that count something, in digits or words ("3", "three"; "one" is
    more often a pronoun), with their values: not a year, not a day of a month."""
    found = [
        (m, float(m.group(0)))
        for m in _NUMBER.finditer(text)
        if not is_year(m.group(0))
        and not _DAY_OF_MONTH.search(text[: m.start()])
        and not _LIST_MARKER.match(text, m.start())
    ]
    found += [(m, number_value(m.group(0))) for m in WORD_NUMBER.finditer(text)]
    return sorted(found, key=lambda f: f[0].start())


def _written(value: float, like: str) -> str | None:
    """`value` written as `like` is: in digits, or in words with its capital."""
    if like[:1].isdigit():
        return f"{value:g}"
    words = number_words(int(value)) if value.is_integer() else None
    return words and (words.capitalize() if like[:1].isupper() else words)


def swapped_values(question: str, reference: str, response: str) -> str | None:
    """The response with the reference's number and the one other number it writes swapped,
    each in the form it had there ("3" for "4", "three" for "four")."""
    said = _values(reference)
    if len(said) != 1 or either_or(question):  # (an either-or question's answer is an option)
        return None
    gold = said[0][1]
    found = _values(response)
    values = {v for _, v in found}
    if gold not in values or len(values) != 2:
        return None
    (other,) = values - {gold}
    # an ordinal of either ("your fourth bike", "the 3rd one") would be left behind
    if any(re.search(rf"\b{v:g}(?:st|nd|rd|th)\b", response) for v in values) or any(
        _ORDINAL_WORD.get(v) and re.search(rf"\b{_ORDINAL_WORD[v]}\b", response, re.IGNORECASE)
        for v in values
    ):
        return None
    out, rest, at = [], [], 0
    for m, v in found:
        new = _written(other if v == gold else gold, m.group(0))
        if new is None:
            return None
        out += [response[at : m.start()], new]
        rest += [response[at : m.start()], " "]
        at = m.end()
    # the reference's number in a form not swapped ("$4", "4 pm", "May 4", "nine-month") could
    # still answer
    left = rf"(?<![\d.]){re.escape(f'{gold:g}')}(?!\d|\.\d)"
    words = number_words(int(gold)) if gold.is_integer() else None
    if words:
        left += rf"|\b{words}\b"
    if re.search(left, "".join(rest) + response[at:], re.IGNORECASE):
        return None
    return "".join(out) + response[at:]


# (its ordinal in words: the judge's own list of them, "first" to "twentieth")
_ORDINAL_WORD = {float(n): w for w, n in ORDINAL_WORDS.items()}


def _apart(a: str, b: str) -> tuple[str, str]:
    """The two options without the words they share at either end: "the charity gala" and "the
    charity bake sale" are "gala" and "bake sale"."""
    wa, wb = a.split(), b.split()
    head = 0
    while head < min(len(wa), len(wb)) and wa[head].lower() == wb[head].lower():
        head += 1
    tail = 0
    while tail < min(len(wa), len(wb)) - head and wa[-1 - tail].lower() == wb[-1 - tail].lower():
        tail += 1
    return " ".join(wa[head : len(wa) - tail]), " ".join(wb[head : len(wb) - tail])


def _forms(option: str) -> list[str]:
    """The option as the question writes it, then without its plural ("tomatoes", "tomato")."""
    singular = re.sub(r"(?:(?<=o)es|(?<![su])s)$", "", option)
    return [option] if singular == option else [option, singular]


def swapped_options(question: str, reference: str, response: str) -> str | None:
    """The response with every mention of one option of an either-or question made the other."""
    options = either_or(question)
    chosen = chosen_option(question, reference)
    own = option_words(question)
    if not options or chosen is None or not own:
        return None
    a, b = _apart(*options)
    if not a or not b:
        return None
    forms_a, forms_b = _forms(a), _forms(b)
    other = {f.lower(): forms_b[min(i, len(forms_b) - 1)] for i, f in enumerate(forms_a)}
    other |= {f.lower(): forms_a[min(i, len(forms_a) - 1)] for i, f in enumerate(forms_b)}
    mention = re.compile(
        r"(?<!\w)(?:"
        + "|".join(re.escape(f) for f in sorted(other, key=len, reverse=True))
        + r")(?!\w)",
        re.IGNORECASE,
    )
    spans = [m.span() for m in mention.finditer(response)]
    chosen_forms = {f.lower() for f in (forms_a, forms_b)[chosen]}
    if not any(response[s:e].lower() in chosen_forms for s, e in spans):
        return None  # the response never names its answer
    words = own[0] | own[1]
    for w in re.finditer(r"[A-Za-z0-9]+", response):
        if stem(w.group(0).lower()) in words and not any(s <= w.start() < e for s, e in spans):
            return None  # an option named some other way ("the lens" for "the prime lens")

    def swap(m: re.Match) -> str:
        new = other[m.group(0).lower()]
        return new[:1].upper() + new[1:] if m.group(0)[:1].isupper() else new

    return mention.sub(swap, response)


# Where a reference's order question lists its next item: a sequence word, a list's number or a
# comma ("First, I X. Then, I Y. Finally, I Z."; "A, B, C"; "1. A, 2. B").
_NEXT_ITEM = re.compile(rf"{SEQUENCE.pattern}|\d+[.)]\s|[,;.]", re.IGNORECASE)
_LIST_LINE = re.compile(r"^([ \t]*(?:\d+[.)]|[-*•])[ \t]+)(.*)$")
# Words that place an item in the order by themselves: a list that writes them ("1. **3rd** -
# Alex") would still say the order with its lines reversed.
_PLACES = re.compile(
    r"(?i)\b(?:first|second|third|fourth|fifth|last|earliest|latest|\d+(?:st|nd|rd|th))\b|"
    r"[\U0001F947-\U0001F949]"
)


def _items(reference: str) -> list[set[str]]:
    """The words each item of an ordered reference has to itself."""
    parts = [stems(p) for p in _NEXT_ITEM.split(reference)]
    parts = [p for p in parts if p]
    own = [p - set().union(*(q for q in parts if q is not p)) for p in parts]
    return [o for o in own if o]


def reversed_order(question: str, reference: str, response: str) -> str | None:
    """An order question's response with the list that closes it (one item of the reference a
    line, every line another) read from its last line to its first: the order it settles on,
    reversed, whatever evidence it listed before."""
    if not ORDER_QUESTION.search(question):
        return None
    items = _items(reference)
    if len(items) < 2:
        return None

    def named(text: str) -> list[int]:
        said = stems(text)
        return [k for k, words in enumerate(items) if said & words]

    lines = response.split("\n")
    runs: list[list[int]] = []
    for i, line in enumerate(lines):
        if _LIST_LINE.match(line):
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
    closing = [
        run
        for run in runs
        if len(run) >= 2
        and all(len(named(lines[i])) == 1 for i in run)
        and len({named(lines[i])[0] for i in run}) == len(run)
    ]
    if not closing:
        return None
    run = closing[-1]
    if named("\n".join(lines[run[-1] + 1 :])) or any(_PLACES.search(lines[i]) for i in run):
        return None  # the order said again after the list, or in its lines' own words
    heads = [_LIST_LINE.match(lines[i]).group(1) for i in run]
    bodies = [_LIST_LINE.match(lines[i]).group(2) for i in run]
    for i, head, body in zip(run, heads, reversed(bodies), strict=True):
        lines[i] = head + body
    return "\n".join(lines)


Turn = Callable[[str, str, str], str | None]
TURNS: dict[str, Turn] = {
    "swapped_values": swapped_values,
    "swapped_options": swapped_options,
    "reversed_order": reversed_order,
}


def turned(item: Labelled, turn: Turn) -> Labelled | None:
    """The answer turned wrong (its label False), or None where the turn does not apply. The
    record's "answer" is the reference."""
    response = turn(item.question, str(item.record["answer"]), item.response or "")
    if response is None or response == item.response:
        return None
    return Labelled(item.question, response, False, record=item.record, source=item.source)
