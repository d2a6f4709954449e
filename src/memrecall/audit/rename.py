"""Renamings: a question's own names made up, the same way in its question, reference and response.

Runs held out from a judge's development still answer the questions it was written from. Other
questions name other people, places and brands, so a rule that reads a particular name (a brand
a reference gives, a place it knows) is tuned to the questions it was written from. Re-judging
labelled answers with their names made up counts the verdicts that change: every change is a
rule reading a name as more than a name. The label of a renamed answer is its original's.

A name here is a capitalised word of the reference that the question and reference never write
in lower case: "Sony", "Luna", "Instant Pot" ("pot" in "my pot" makes it a word). Calendar
names (months, weekdays, fixed holidays) are general knowledge, not a question's own, and a
capitalised word before a number labels a part ("Book 1", "Session 3"), so neither is renamed.
"""

from __future__ import annotations

import calendar
import hashlib
import re
import unicodedata
from dataclasses import dataclass

from .planting import number_words

_CALENDAR = frozenset(
    w.lower()
    for w in [*calendar.month_name[1:], *calendar.month_abbr[1:], *calendar.day_name]
    + "Christmas Easter Halloween Thanksgiving Valentine Hanukkah Diwali Eid Ramadan".split()
) | {"new", "year", "eve", "day", "st", "patrick"}
# Words capitalised for a sentence, a heading or a count, not for a name: "I", "The", "Five".
_COMMON = frozenset(
    """i a an the and or but of to in on at for with from by as is was it its this that these
    those yes no not you your my we our he she they his her their what which who when where why
    how did do does have has had dr mr mrs ms""".split()
) | {w for n in range(100) for w in re.split(r"[\s-]", number_words(n) or "")}
# A run of capitalised words ("Instant Pot", "Fender Stratocaster", "GPS")
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
# A number after it labels a part ("Book 1", "Chapter IV", "Season 2"); one before it makes it a
# unit ("8 AM", "5K")
_NUMBER_AFTER = re.compile(r"\s+(?:\d|[IVXLC]+\b)")
_NUMBER_BEFORE = re.compile(r"\d\s*$")
# (not the dot of "Dr. Smith")
_SENTENCE_START = re.compile(r"(?:^|(?<!\b[DM]r)(?<!\bMrs)(?<!\bMs)[.!?:;\n]\s*|[\"'“(]\s*)$")


def _forms(word: str) -> set[str]:
    """A lower-case word with and without a plural ending: "airlines" is "airline" too."""
    singular = {word, word[:-1]} if word.endswith("s") and len(word) > 3 else {word}
    if word.endswith("es") and len(word) > 4:
        singular.add(word[:-2])
    return singular | {w + "s" for w in singular} | {w + "es" for w in singular}


def question_names(question: str, reference: str) -> set[str]:
    """The names (lower case) a question and its reference give: capitalised words of the
    reference, not at a sentence's start unless the reference is just the name ("Target",
    "Instant Pot"), that neither text ever writes in lower case."""
    texts = f"{question}\n{reference}"
    bare = len(reference.split()) <= 4 and all(w[:1].isupper() for w in reference.split())
    names: set[str] = set()
    for text in (question, reference):
        for run in _CAPITALISED_RUN.finditer(text):
            if _NUMBER_AFTER.match(text, run.end()) or _NUMBER_BEFORE.search(text[: run.start()]):
                continue
            starts = bool(_SENTENCE_START.search(text[: run.start()]))
            if starts and not (bare and text is reference) and " " not in run.group(0).strip():
                continue
            for word in re.findall(r"[A-Za-z][A-Za-z'’]*", run.group(0)):
                word = re.sub(r"['’]s?$", "", word)
                low = word.lower()
                if (
                    not word[:1].isupper()
                    or re.search(r"[a-z][A-Z]", word)  # "PlankChallenge": a compound of words
                    or _forms(low) & (_CALENDAR | _COMMON)
                    or not re.search(rf"(?i)\b{re.escape(low)}", reference)
                    or any(re.search(rf"\b{re.escape(f)}\b", texts) for f in _forms(low))
                ):
                    continue
                names.add(low)
    return names


_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


def made_up(name: str) -> str:
    """A made-up word for `name`, the same every time: three consonant-vowel syllables."""
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    syllables = []
    for _ in range(3):
        h, c = divmod(h, len(_CONSONANTS))
        h, v = divmod(h, len(_VOWELS))
        syllables.append(_CONSONANTS[c] + _VOWELS[v])
    return "".join(syllables)


def _folded(word: str) -> str:
    """A word lower-cased without its accents: "Café" is "cafe"."""
    return "".join(
        c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c)
    )


def _parts(word: str, names: set[str]) -> list[str] | None:
    """`word` (folded) as names run together ("sugarbloom": sugar, bloom), the last one with a
    plural ending allowed; None when it is not."""
    if word in names:
        return [word]
    for end in ("s", "es"):
        if word.endswith(end) and word[: -len(end)] in names:
            return [word[: -len(end)], end]
    for i in range(len(word) - 1, 2, -1):
        rest = _parts(word[i:], names) if word[:i] in names else None
        if rest:
            return [word[:i], *rest]
    return None


def renamed(text: str, names: set[str]) -> str:
    """`text` with each of `names` made up wherever it is written: in any case, with accents
    ("Café"), a plural or possessive ending, or run together with another ("SugarBloom"); each
    part in the case it was written in."""
    if not names:
        return text

    def swap(m: re.Match) -> str:
        word = m.group(0)
        parts = _parts(_folded(word), names)
        if parts is None:
            return word
        out, at = [], 0
        for part in parts:
            written = word[at : at + len(part)]
            at += len(part)
            new = part if part in ("s", "es") else made_up(part)
            if written.isupper() and len(written) > 1:
                new = new.upper()
            elif written[:1].isupper():
                new = new.capitalize()
            out.append(new)
        return "".join(out)

    return re.sub(r"[^\W\d_]+", swap, text)


@dataclass(frozen=True)
class Renaming:
    """One labelled answer with its names made up."""

    names: tuple[str, ...]
    question: str
    reference: str
    response: str


def rename(question: str, reference: str, response: str) -> Renaming | None:
    """The answer with its question's names made up throughout; None when it names none."""
    names = question_names(question, reference)
    if not names:
        return None
    return Renaming(
        tuple(sorted(names)),
        renamed(question, names),
        renamed(reference, names),
        renamed(response, names),
    )
