"""Planted answers for a judge audit: made from each question's gold answer by rule, by class.

Planted wrong answers (a judge that accepts one is lenient):
- wrong_number: the gold's first count changed (n -> n + 2 below 10, else n * 1.5, or n * 2
  where n * 1.5 would read as a year; a range moved whole past its high end);
- wrong_date: a date or a period in the gold moved two units (days, weeks, months, years),
  one unit past the official off-by-one tolerance for counted days; a date that anchors a
  day or a period ("the Friday before <date>") moves by two of those, a range moves whole;
- swapped_entity: for an either-or question the other option, whole; else the gold's first
  name (a whole name or quoted title, never a word inside one) replaced by a name from the
  gold of a question on another history;
- vague: a non-answer that touches the question's topic ("something related to <its longest
  content word>", never a word of one option only) and commits to nothing;
- reasoning_then_wrong: a reasoning that names the gold answer, then concludes a wrong one
  ("..., so my final answer is: X", "..., though, the answer is X", "That leaves X", "but you
  corrected it later: X", "a more recent message updates that to X", ...);
- gold_plus_contradiction: the gold answer, then a claim that takes it back ("Actually, no",
  "Wait, I need to correct that", "On second thought", "Looking again at your messages");
- abstention: "the information is not there", on an answerable question;
- answers_unanswerable: on a question the history cannot answer (its gold says the information
  is missing), an answer given as if it could (in _IN_SENTENCE's wordings): the one the question
  is built to tempt where the benchmark records it (Benchmark.tempting_answer), else one option
  of an either-or question, else a value of the kind a quantity question asks for, else a name
  the gold says was mentioned instead of the asked one, else a name from another history's gold.
Planted right answers (a judge that rejects one is strict):
- unit_paraphrase: a period in another unit (3 weeks -> 21 days, 2 hours -> 120 minutes; a
  compound as a whole, 2 years and 3 months -> 27 months; a range at both ends);
- number_words: counts as words ("3" -> "three") or words as numbers; not the digits of a
  phone number, code, score, clock time or name;
- date_format: a date in another common format ("May 7, 2023" <-> "7 May 2023", ISO);
- in_sentence: the gold answer inside a longer sentence ("That would be X, based on what you
  said", "X. You mentioned it when ...", "As you mentioned earlier, X", ...);
- reasoning_then_right: reasoning_then_wrong's mirror, in the same wordings: it names a wrong
  answer first and concludes the gold one ("You originally said Y, but you corrected it later:
  X"), as a response does that tells an update apart from what it replaced.
- abstains_unanswerable: abstention's mirror, on a question the history cannot answer: the
  same wordings, and two that name what was mentioned instead, where the gold names it ("You
  mentioned Dr. Smith, but nothing about what you're asking").

A class applies only where its rule has something to work on (a number, a date, a name, an
either-or option, another answer to swap in); a question gets no planted answer of a class that
does not apply, and the report counts how many did. A question the history cannot answer gets
only the two classes made for it, and golds longer than MAX_GOLD_WORDS (rubrics, not answers)
get none. The worded classes read as the generator's own wordings below, or as a caller's
(`Wordings`: an audit in wordings a judge was not written against, bench/judge_wordings.py).
Nothing here names a question or holds a gold text: every planted answer is
computed from the question and gold it is given. Deterministic: choices (a replacement, a
wording) are made by sha256 of the question id, never by a random generator.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

from ..hashing import sha256_text

WRONG = (
    "wrong_number",
    "wrong_date",
    "swapped_entity",
    "vague",
    "reasoning_then_wrong",
    "gold_plus_contradiction",
    "abstention",
    "answers_unanswerable",
)
RIGHT = (
    "unit_paraphrase",
    "number_words",
    "date_format",
    "in_sentence",
    "reasoning_then_right",
    "abstains_unanswerable",
)
CLASSES = WRONG + RIGHT
MAX_GOLD_WORDS = 20


@dataclass(frozen=True)
class Planted:
    question_id: str  # the source question
    klass: str  # one of CLASSES
    answer: str
    should_accept: bool  # True for a planted right answer

    @property
    def planted_id(self) -> str:
        return f"{self.question_id}::{self.klass}"


# ---- numbers --------------------------------------------------------------------------------

_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUE = {w: i for i, w in enumerate(_SMALL)} | {
    w: 10 * i for i, w in enumerate(_TENS) if w != "_"
}
_NUM = re.compile(r"(?<![\w.:/-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w:/]|\.\d)")
# "one" is left out: more often a pronoun ("this one") than a count; nor inside hyphenated
# words ("one-on-one", "two-factor").
WORD_NUMBER = re.compile(
    r"(?<![\w-])("
    + "|".join(sorted(set(_WORD_VALUE) - {"one"}, key=len, reverse=True))
    + r")(?![\w-])",
    re.IGNORECASE,
)
_UNIT = r"(day|week|month|year|hour|minute)s?"
_COUNT = r"(\d+|" + "|".join(_SMALL[1:] + _TENS[2:]) + r")"
_PERIOD = re.compile(r"(?<![\w.])" + _COUNT + r"\s+" + _UNIT + r"\b", re.IGNORECASE)
_TO_SMALLER = {"week": ("day", 7), "hour": ("minute", 60), "year": ("month", 12)}
# A range "8-9" or "10 to 12" (low end first): both ends are the answer, never one of them alone.
_RANGE = re.compile(r"(?<![\w.,:/+-])(\d+)(?:\s?[-–]\s?|\s+to\s+)(\d+)(?![\d,:/]|\.\d)")
# A period that follows another in one compound ("2 years and 3 months", "3 hours, 20 minutes").
_COMPOUND_NEXT = re.compile(
    r"\s*(?:,\s*|,?\s+and\s+|\s+)" + _COUNT + r"\s+" + _UNIT + r"\b", re.IGNORECASE
)


def _range_at(text: str, start: int) -> re.Match | None:
    """The range "lo-hi" (lo < hi) whose low end starts at `start`, or None ("6-3" is a score,
    not a range)."""
    m = _RANGE.match(text, start)
    return m if m and int(m.group(1)) < int(m.group(2)) else None


def _range_before(text: str, end: int) -> re.Match | None:
    """The range whose high end ends at `end` ("8-9" of "8-9 hours"), or None."""
    for m in _RANGE.finditer(text[:end]):
        if m.end() == end and int(m.group(1)) < int(m.group(2)):
            return m
    return None


def _plural(unit: str, n: float) -> str:
    return unit if n == 1 else unit + "s"


def number_words(n: int) -> str | None:
    """0..999 in words; None outside."""
    if not 0 <= n < 1000:
        return None
    if n < 20:
        return _SMALL[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _SMALL[n % 10])
    rest = n % 100
    return f"{_SMALL[n // 100]} hundred" + ("" if rest == 0 else " " + number_words(rest))


def number_value(token: str) -> float:
    t = token.replace(",", "").lower()
    return float(_WORD_VALUE[t]) if t in _WORD_VALUE else float(t)


def _fmt(x: float, like: str) -> str:
    if float(x).is_integer():
        s = f"{int(x):,}" if "," in like else str(int(x))
    else:
        s = f"{x:.2f}".rstrip("0").rstrip(".")
    return s


def is_year(token: str) -> bool:
    return bool(re.fullmatch(r"(19|20)\d\d", token))


# ---- dates ----------------------------------------------------------------------------------

_MONTHS = [m for m in calendar.month_name if m]
# a whole word: the "Mar" of "2 Marvel movies" is no month
MONTH = r"\b(" + "|".join(_MONTHS) + r"|" + "|".join(m[:3] for m in _MONTHS) + r")\b\.?"
_MDY = re.compile(MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?", re.IGNORECASE)
_DMY = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH + r"(?:,?\s+(\d{4}))?", re.IGNORECASE
)
_NO_YEAR = 2001  # a year without 29 February, for dates written without one
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _month_number(name: str) -> int:
    return [m.lower()[:3] for m in _MONTHS].index(name.lower()[:3]) + 1


def _find_date(text: str):
    """(match, year, month, day, style) of the first full date in `text`, or None."""
    for rx, style in ((_MDY, "mdy"), (_DMY, "dmy"), (_ISO, "iso")):
        m = rx.search(text)
        if not m:
            continue
        if style == "mdy":
            y, mo, d = int(m.group(3) or _NO_YEAR), _month_number(m.group(1)), int(m.group(2))
        elif style == "dmy":
            y, mo, d = int(m.group(3) or _NO_YEAR), _month_number(m.group(2)), int(m.group(1))
        else:
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if 1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]:
            return m, y, mo, d, style
    return None


def _write_date(y: int, mo: int, d: int, style: str, year: bool = True) -> str:
    if style == "iso" and year:
        return f"{y:04d}-{mo:02d}-{d:02d}"
    if style == "dmy":
        return f"{d} {_MONTHS[mo - 1]}" + (f" {y}" if year else "")
    return f"{_MONTHS[mo - 1]} {d}" + (f", {y}" if year else "")


def _has_year(m: re.Match, style: str) -> bool:
    return style == "iso" or m.group(3) is not None


def _shift_days(y: int, mo: int, d: int, days: int) -> tuple[int, int, int]:
    from datetime import date, timedelta

    t = date(y, mo, d) + timedelta(days=days)
    return t.year, t.month, t.day


# ---- the classes ----------------------------------------------------------------------------


def _replace_span(text: str, m: re.Match, new: str, group: int = 0) -> str:
    return text[: m.start(group)] + new + text[m.end(group) :]


# A date that anchors another day or period ("the Friday before <date>", "the week of
# <date>"): the answer is the day or period it names, so the date moves by two of those.
_ANCHOR = re.compile(
    r"\b(day|week|weekend|month|year|"
    + "|".join(calendar.day_name)
    + r")s?\s+(?:before|after|of|following|preceding|prior\s+to)\s+$",
    re.IGNORECASE,
)


def _move_date(y: int, mo: int, d: int, anchor: re.Match | None) -> tuple[int, int, int]:
    """Two days later; two of what an anchor names ("the Friday before 9 September": two
    days later could name the same Friday, two weeks later cannot)."""
    unit = anchor.group(1).lower() if anchor else "day"
    if unit in ("month", "year"):
        y, mo = (y, mo + 2) if unit == "month" else (y + 2, mo)
        y, mo = y + (mo - 1) // 12, (mo - 1) % 12 + 1
        return y, mo, min(d, calendar.monthrange(y, mo)[1])
    return _shift_days(y, mo, d, 2 if unit == "day" else 14)


def wrong_date(gold: str) -> str | None:
    """The first date, period or year of the gold (the answer comes first; a later one is
    usually a condition on it) moved by two units."""
    found = _find_date(gold)
    period = _PERIOD.search(gold)
    year = re.search(r"\b(19|20)\d\d\b", gold)
    first = min((m.start() for m in (found[0] if found else None, period, year) if m), default=None)
    if first is None:
        return None
    if found and found[0].start() == first:
        m, y, mo, d, style = found
        moved = _move_date(y, mo, d, _ANCHOR.search(gold[: m.start()]))
        return _replace_span(gold, m, _write_date(*moved, style, _has_year(m, style)))
    if period and period.start() == first:
        rng = _range_before(gold, period.end(1))
        if rng:  # "8-9 hours" -> "11-12 hours": the whole range two units past its high end
            lo, hi = int(rng.group(1)), int(rng.group(2))
            return _replace_span(gold, rng, f"{hi + 2}-{2 * hi + 2 - lo}")
        n = number_value(period.group(1)) + 2
        new = f"{_fmt(n, period.group(1))} {_plural(period.group(2), n)}"
        planted = gold[: period.start()] + new + gold[period.end() :]
        return None if _still_there(gold, planted, period.group(1)) else planted
    return _replace_span(gold, year, str(int(year.group(0)) + 2))


def _wrong_count(n: float) -> float:
    return n + 2 if n < 10 else (round(n * 1.5) if n.is_integer() else round(n * 1.5, 2))


def wrong_number(gold: str) -> str | None:
    """The first count that is not part of a date or a period."""
    if _find_date(gold) or _PERIOD.search(gold):
        return None  # wrong_date's
    for rx in (_NUM, WORD_NUMBER):
        for m in rx.finditer(gold):
            tok = m.group(1)
            if is_year(tok):
                continue
            if tok.isalpha() and tok[0].isupper() and not _opens_sentence(gold, m.start(1)):
                continue  # a number word in a name ("The Nine Gates"), not a count
            rng = _range_at(gold, m.start(1))
            if rng:  # "3-4 scoops" -> "6-7 scoops": both ends, past the gold's high end
                hi = int(rng.group(2))
                new_lo = int(_wrong_count(float(hi)))
                return _replace_span(gold, rng, f"{new_lo}-{new_lo + hi - int(rng.group(1))}")
            n = number_value(tok)
            new = _wrong_count(n)
            word = tok.isalpha()
            if not word and is_year(_fmt(new, tok)):
                new = n * 2  # "1320" -> "2640", not "1980": a wrong count, not a year
            out = (number_words(int(new)) if word else None) or _fmt(new, tok)
            if word and tok[0].isupper():
                out = out[0].upper() + out[1:]  # "Two cats" -> "Four cats"
            planted = _replace_span(gold, m, out, 1)
            return None if _still_there(gold, planted, tok) else planted
    return None


_FUNCTION_WORDS = """i the a an it he she they we you my her his their yes no and but or in on at
for to of by with since likely not because maybe probably both none only also once never always
about after before from into over than that then there these this those what when where which
who why how would could should some""".split()
_NOT_NAMES = (
    set(_MONTHS)
    | {m[:3] for m in _MONTHS}
    | set(calendar.day_name)
    | {d + "s" for d in calendar.day_name}
    | {w.capitalize() for w in _FUNCTION_WORDS}
    | {"I"}
)
# A quoted span: 'A Title' or "A Title" (an apostrophe inside a word, "Joe's", opens none).
_QUOTED = re.compile(r"(?<![\w'’‘])['‘](?=\S)(.+?)(?<=\S)['’](?!\w)|[\"“](.+?)[\"”]")


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _QUOTED.finditer(text)]


def _outside(spans: list[tuple[int, int]], i: int) -> bool:
    return not any(a <= i < b for a, b in spans)


# A name: capitalised words (two letters or more, hyphened parts capitalised too), joined by
# spaces or by the small words inside a name ("Museum of the City", "Walk for Hope"), after a
# title where it has one ("Dr. Park": its dot ends no sentence); not after
# '#', '@' or '+' (a tag, a handle) nor before '+', a hyphen or a dot inside a word ("ABCD+",
# "Sony-made", "Mk.II").
_NAME_WORD = r"[A-Z][a-zA-Z'’]*[a-zA-Z](?:-[A-Z][a-zA-Z'’]*[a-zA-Z])*"
_CONNECTOR = r"(?:of|for|de|la|le|du|des|del|di|da|von|van|der)"
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|St)\.\s+)"
_NAME = re.compile(
    rf"(?<![\w#@+&/'’-]){_TITLE}?{_NAME_WORD}(?:(?:\s+{_CONNECTOR}(?:\s+the)?)?\s+{_NAME_WORD})*"
    r"(?![\w+#@&/-]|\.\w)"
)
_MAX_TITLE_WORDS = 12


def name_spans(text: str, *, mid_sentence_only: bool = False) -> list[tuple[int, int]]:
    """Where the names of `text` are, whole, in order: a quoted title ('The Quiet Field': the
    text inside the quotes, never a word of it alone), a capitalised run with its inner small
    words ("Bank of the West"), without the sentence words, months and days at its ends or a
    possessive "'s". Not a name: a run that opens a sentence (where any word is capitalised)
    unless it has two words or more ("Harbor Books opened ..."), a run after an opening
    bracket, or one beside a number (a unit, "500 Mbps", or a label, "Dark Tower 3"). A short
    text capitalised throughout ("Instant Pot", "Luna") is one name; `mid_sentence_only`
    keeps only names that neither open a sentence nor are such a text."""
    words = text.split()
    if (
        not mid_sentence_only
        and 0 < len(words) <= 4
        and all(re.fullmatch(r"[A-Z][a-zA-Z'’-]+", w) for w in words)
    ):
        return [(0, len(text))] if not any(w in _NOT_NAMES for w in words) else []
    quoted = _quoted_spans(text)
    out = []
    for m in _QUOTED.finditer(text):
        g = 1 if m.group(1) is not None else 2
        inner = m.group(g)
        if inner[0].isupper() or inner[0].isdigit():
            if len(inner.split()) <= _MAX_TITLE_WORDS and "(" not in inner:
                out.append(m.span(g))
    for m in _NAME.finditer(text):
        if not _outside(quoted, m.start()):
            continue  # a word of a quoted title
        before = text[: m.start()].rstrip()
        if before[-1:] == "(" or before[-1:].isdigit() or re.match(r"\s+\d", text[m.end() :]):
            continue
        opens = not before or before[-1] in ".!?:;"
        if opens and mid_sentence_only:
            continue
        toks = [
            (t.start() + m.start(), t.end() + m.start(), t.group())
            for t in re.finditer(r"\S+", m.group())
        ]
        run: list[tuple[int, int, str]] = []
        for tok in [*toks, None]:
            if tok is not None and tok[2] not in _NOT_NAMES:
                run.append(tok)
                continue
            while run and run[-1][2][0].islower():
                run.pop()  # a run ends on a name word, never on "of"
            while run and run[0][2][0].islower():
                run.pop(0)
            caps = sum(1 for t in run if t[2][0].isupper())
            if run and (caps >= 2 or not opens):
                a, b = run[0][0], run[-1][1]
                if text[b - 2 : b] in ("'s", "’s"):
                    b -= 2  # a possessive: "Dana's" names Dana
                out.append((a, b))
            run = []
    return sorted(out)


def names(text: str, *, mid_sentence_only: bool = False) -> list[str]:
    """The names of `text` (see name_spans)."""
    return [text[a:b] for a, b in name_spans(text, mid_sentence_only=mid_sentence_only)]


_OPTION_END = "?,.;!"
_AUX = re.compile(
    r"(?:did|do|does|is|are|was|were|would|will|should|could|can|have|has|had|am)\b", re.I
)


def either_or(question: str) -> tuple[str, str] | None:
    """The two options of an 'A or B?' question. "Which came first, A or B?": A is the clause
    after the comma, B runs to the question mark; a question without one ("Did I A or B the
    ...?") opens with an auxiliary verb and its options have as many words each as B has (up
    to 6, else one). None for a question that asks a quantity ("How many did I buy or sell?":
    its answer is a number, not an option) and for an 'or' inside a quoted title."""
    if asks_quantity(question):
        return None
    quoted = _quoted_spans(question)
    ors = [m.start() for m in re.finditer(r" or ", question, re.I) if _outside(quoted, m.start())]
    if not ors:
        return None
    i = ors[-1]
    j = i + 4
    while j < len(question) and (question[j] not in _OPTION_END or not _outside(quoted, j)):
        j += 1
    right = question[i + 4 : j].strip()
    starts = [
        m.end() for m in re.finditer(r"[.?!]\s+", question[:i]) if _outside(quoted, m.start())
    ]
    first = max(starts, default=0)
    sentence = question[first:i].rstrip(", ")
    cuts = [k for k, c in enumerate(sentence) if c in ",:;" and _outside(quoted, first + k)]
    if cuts:  # "Which came first, A or B?"
        left = sentence[cuts[-1] + 1 :].strip()
    elif _AUX.match(sentence.strip()):  # "Did I increase or decrease the limit?"
        rwords = right.split()
        if len(rwords) > 6:  # "increase or decrease the limit on ...": one word each side
            right = rwords[0]
        left = " ".join(sentence.split()[-len(right.split()) :])
    else:
        return None  # "Which bike did I fix or service?": the options are not the answers
    return (left, right) if left and right and left.lower() != right.lower() else None


_OPTION_STOP = set(
    "a an the my our your their his her its i you we me of to for in on at by with and from".split()
)


def stem(w: str) -> str:
    """'increased'/'increase', 'classes'/'class', 'posted'/'post'."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            return w[: -len(suffix)]
    return w


def stems(text: str) -> set[str]:
    """The stems of the text's words, its stopwords and possessives aside."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"['’]s\b", "", text.lower()))
    return {stem(w) for w in words if len(w) > 1 and w not in _OPTION_STOP}


def option_words(question: str) -> tuple[set[str], set[str]] | None:
    """The words that belong to one option only, per option (an either-or question)."""
    opts = either_or(question)
    if not opts:
        return None
    a, b = map(stems, opts)
    return a - b, b - a


def chosen_option(question: str, gold: str) -> int | None:
    """Which option (0, 1) of an either-or question the gold picks: it holds a word of that
    option and none that is only the other's ("Oat milk" picks "the oat milk" over "the almond
    butter"); None where it holds both or neither."""
    own = option_words(question)
    if not own or not all(own):
        return None
    g = stems(gold)
    hits = [bool(g & words) for words in own]
    return hits.index(True) if sum(hits) == 1 else None


def _says_word(text: str, words: str) -> bool:
    """Does `text` hold `words` whole, in any case ("Dr. Lee" in "see Dr. Lee?", not "Lee" in
    "Leeds")?"""
    return bool(re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text, re.IGNORECASE))


def swapped_entity(question: str, gold: str, pool: list[str], key: str) -> str | None:
    opts = either_or(question)
    if opts:  # the answer is an option: the planted one is the other option
        chosen = chosen_option(question, gold)
        return None if chosen is None else opts[1 - chosen]
    if asks_quantity(question):
        return None  # the answer is a number or a date; a name beside it is context
    if "(" in gold:
        return None  # a parenthetical restates the answer ("(UCLA)"): no consistent swap
    # A name the question already holds is context, not the answer; the answer's name comes
    # first, and is replaced where it stands, whole.
    own = [(a, b) for a, b in name_spans(gold) if not _says_word(question, gold[a:b])]
    if not own:
        return None
    taken = {gold[a:b].lower() for a, b in own}
    others = [p for p in pool if p.lower() not in gold.lower() and p.lower() not in taken]
    if not others:
        return None
    pick = others[int(sha256_text(key), 16) % len(others)]
    a, b = own[0]
    if re.search(r"\bthe\s+$", gold[:a], re.IGNORECASE) and pick.lower().startswith("the "):
        pick = pick[4:]  # "the The Quiet Field"
    return gold[:a] + pick + gold[b:]


_QUANTITY_Q = re.compile(
    r"^\W*(?:how (?:many|much|long|old|often|far)|when\b|what (?:time|year|"
    r"date|day|month)\b)",
    re.IGNORECASE,
)


def asks_quantity(question: str) -> bool:
    """A question whose answer is a number, a period or a date."""
    return bool(_QUANTITY_Q.search(question.strip()))


def _still_there(gold: str, planted: str, old: str) -> bool:
    """The changed value is still stated elsewhere ("1:10 ... ten parts", "25 minutes (or
    25:50)"): the planted answer would contradict itself, not be plainly wrong."""
    v = (
        number_value(old)
        if old.replace(",", "").replace(".", "").isdigit() or old.lower() in _WORD_VALUE
        else None
    )
    if v is None or not float(v).is_integer():
        return False
    forms = {str(int(v))} | ({number_words(int(v))} if number_words(int(v)) else set())
    return any(
        re.search(rf"(?<![\w.]){re.escape(f)}(?![\w.])", planted, re.IGNORECASE) for f in forms if f
    )


_TOPIC_STOP = set(
    """about above after again against anything before being below between
could did does doing during each ever from have having here how into just know many more most
much other over remember should some such than that their them then there these they this
those through under until very what when where which while who whom whose why with would your
yours recently previously mentioned told said last first""".split()
)

_VAGUE = (
    "It was something related to {topic}, as you mentioned before.",
    "You brought up {topic} a few times; it depends on how you look at it.",
    "There were a few possibilities around {topic}, so it could be one of several things.",
)
_ABSTAIN = (
    "I don't have enough information to answer that.",
    "That was never mentioned in our conversations.",
    "I can't find anything about that in what you've told me.",
)
# ... and where the gold of an unanswerable question names what was mentioned instead.
_ABSTAIN_NAMING = (
    "You mentioned {instead}, but nothing about what you're asking.",
    "I only have {instead} on record; there's nothing about this in our conversations.",
)
# Each class is written in several ways, so the audit measures the class and not one wording a
# judge may have been written against: how a reasoning reaches its conclusion, how a claim takes
# the gold back, how a sentence carries the gold. One wording per question, picked by the
# question id and the class.
# A reasoning names one answer ({named}) and settles on another ({settled}): the gold then a
# wrong one for reasoning_then_wrong, a wrong one then the gold for reasoning_then_right.
_REASONING = (
    "Let me go through what you told me. At first it looks like the answer is {named}. "
    "But a later message changes that, so my final answer is: {settled}.",
    "One message points to {named}. Looking at the later messages, though, the answer is "
    "{settled}.",
    "I first thought of {named}, but that does not fit what you said later. That leaves {settled}.",
    "You first mentioned {named}, but a later message corrects that, so it's {settled}.",
    "You originally said {named}, but you corrected it later: {settled}.",
    "Earlier you told me {named}; a more recent message updates that to {settled}.",
)
_CONTRADICTED = (
    "{core}. Actually, no, that is not right: it was {wrong}.",
    "{core}. Wait, I need to correct that: it was {wrong}.",
    "{core}. On second thought, I was mistaken: it was {wrong}.",
    "{core}. Hmm, no. Looking again at your messages, it was {wrong}.",
)
_TAKEN_BACK = (
    "{core}. Actually, no, that is not right.",
    "{core}. Wait, no, that is wrong.",
    "{core}. On second thought, I was mistaken about that.",
    "{core}. Hmm, no. Looking again at your messages, that is not what you said.",
)
_IN_SENTENCE = (
    "From what you told me, I'd say {core}, if I remember our chats correctly.",
    "{core}. You mentioned it when we talked about your plans.",
    "That would be {core}, based on what you said.",
    "As you mentioned earlier, {core}.",
)


# The placeholders each family's wordings must hold, and only those.
_PLACEHOLDERS = {
    "reasoning": {"named", "settled"},
    "contradicted": {"core", "wrong"},
    "taken_back": {"core"},
    "in_sentence": {"core"},
    "abstain": set(),
    "vague": {"topic"},
}


@dataclass(frozen=True)
class Wordings:
    """How the planted answers of the worded classes read: reasoning_then_wrong and
    reasoning_then_right (`reasoning`), gold_plus_contradiction (`contradicted`, or `taken_back`
    where no wrong answer can be made), in_sentence and answers_unanswerable (`in_sentence`),
    abstention and abstains_unanswerable (`abstain`) and vague. An audit in wordings a judge was
    not written against checks that it reads the class, not the generator's phrases."""

    reasoning: tuple[str, ...] = _REASONING
    contradicted: tuple[str, ...] = _CONTRADICTED
    taken_back: tuple[str, ...] = _TAKEN_BACK
    in_sentence: tuple[str, ...] = _IN_SENTENCE
    abstain: tuple[str, ...] = _ABSTAIN
    vague: tuple[str, ...] = _VAGUE

    @classmethod
    def from_mapping(cls, data: dict, source: str = "wordings") -> Wordings:
        """Wordings from {family: [wording, ...]}; a family left out keeps the generator's
        own. A family this does not know, an empty list, or a wording with a placeholder
        other than its family's ({named} and {settled} for reasoning, ...) is an error that
        names the source, the family and the wording."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected a mapping of family -> list of wordings")
        given = {}
        for family, wordings in data.items():
            if family not in _PLACEHOLDERS:
                raise ValueError(
                    f"{source}: unknown family {family!r} (known: {', '.join(_PLACEHOLDERS)})"
                )
            if not isinstance(wordings, list) or not wordings:
                raise ValueError(f"{source}: {family}: expected a non-empty list of wordings")
            for i, w in enumerate(wordings):
                held = set(re.findall(r"\{(\w*)\}", w)) if isinstance(w, str) else None
                if held != _PLACEHOLDERS[family]:
                    want = ", ".join(f"{{{p}}}" for p in sorted(_PLACEHOLDERS[family])) or "none"
                    raise ValueError(
                        f"{source}: {family}[{i}] {w!r}: its placeholders must be exactly {want}"
                    )
            given[family] = tuple(wordings)
        return cls(**given)


GENERATOR_WORDINGS = Wordings()


def topic(question: str) -> str | None:
    """The question's longest lower-case content word (names are who, not what about); never a
    word of one option only of an either-or question ("the persistent cough or the skin tag
    removal": not "persistent", which reads as choosing the cough)."""
    own = option_words(question) or (set(), set())
    words = [
        w
        for w in re.findall(r"[A-Za-z]{4,}", question)
        if w.islower() and w not in _TOPIC_STOP and stem(w.lower()) not in own[0] | own[1]
    ]
    return max(words, key=lambda w: (len(w), w)) if words else None


def _pick(options: tuple[str, ...], key: str) -> str:
    return options[int(sha256_text(key), 16) % len(options)]


def unit_paraphrase(gold: str) -> str | None:
    """The gold's first period in another unit; a compound ("2 years and 3 months") as a whole
    in its smaller unit (27 months), a range ("8-9 hours") with both ends converted."""
    m = _PERIOD.search(gold)
    if not m:
        return None
    n, unit = number_value(m.group(1)), m.group(2).lower()
    start, end = m.start(), m.end()
    nxt = _COMPOUND_NEXT.match(gold, end)
    rng = _range_before(gold, m.end(1))
    if unit in _TO_SMALLER:
        small, factor = _TO_SMALLER[unit]
        if rng:
            start = rng.start()
            lo = _fmt(int(rng.group(1)) * factor, "")
            new = f"{lo}-{_fmt(n * factor, '')} {small}s"
        elif nxt:
            if nxt.group(2).lower() != small:
                return None  # "3 years and 1 week": no one unit to write it in
            end = nxt.end()
            total = n * factor + number_value(nxt.group(1))
            new = f"{_fmt(total, '')} {_plural(small, total)}"
        else:
            new = f"{_fmt(n * factor, '')} {small}s"
    elif unit == "day" and n % 7 == 0 and n >= 7 and not rng and not nxt:
        w = int(n // 7)
        new = f"{w} {_plural('week', w)}"
    else:
        return None
    return gold[:start] + new + gold[end:]


def _digit_string(text: str) -> bool:
    """Digits that are not counts: a phone number, a code or an ID ("+1 (555) 010 / 22"), a
    score ("6-3"): numbers joined by spaces, slashes, brackets or dashes (a range "8-9" is a
    quantity), or a number behind a plus or a number sign."""
    if re.search(r"[+#]\s?\d", text):
        return True
    nums = list(re.finditer(r"\d+", text))
    for a, b in zip(nums, nums[1:]):
        between = text[a.end() : b.start()]
        if re.fullmatch(r"[\s/()+\-–]+", between):
            if re.fullmatch(r"\s?[-–]\s?", between) and int(a.group()) < int(b.group()):
                continue  # a range
            return True
    return False


_CLOCK = re.compile(r"\s?[ap]\.?m\b\.?", re.IGNORECASE)


def _in_name(text: str, start: int, end: int) -> bool:
    """The number at text[start:end] is part of a name or a label ("Level 4", "Galaxy 7 Pro"):
    right after a capitalised word, and not followed by a lower-case word it counts; or it
    numbers what follows it ("12. Nf3", a list item: "1) to identify ..., and 2) to ...",
    "..., 3. Music festival")."""
    opens_item = _opens_sentence(text, start) or re.search(r"(?:,|\band)\s*$", text[:start])
    if opens_item and re.match(r"[.)]\s+\S", text[end:]):
        return True
    prev = re.search(r"(\S+)\s+$", text[:start])
    if not prev or not any(c.isupper() for c in prev.group(1)):
        return False
    return not re.match(r"\s+[a-z]", text[end:])


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:;"


def number_words_variant(gold: str) -> str | None:
    """Counts as words ("3" -> "three"), or, where there are none, number words as digits.
    Digits that are not counts keep them: years, decimals, sums of money, clock times, numbers
    in names or labels, and a gold with a phone number, a code or a score gets none."""
    changed, out = False, gold

    def spelled(tok: str, start: int) -> str | None:
        if is_year(tok) or "." in tok or "," in tok or gold[max(0, start - 1)] in "$£€":
            return None  # years, decimals and sums of money keep their digits
        end = start + len(tok)
        if _CLOCK.match(gold, end) or _in_name(gold, start, end):
            return None
        return number_words(int(tok))

    if _find_date(gold):
        return None  # a date's digits are date_format's
    if _digit_string(gold):
        return None
    parts, pos = [], 0
    for m in _NUM.finditer(gold):
        if m.start() < pos:
            continue
        rng = _range_at(gold, m.start(1))
        if rng:  # "8-9 hours" -> "eight to nine hours": both ends or neither ("35-80mm")
            lo, hi = spelled(rng.group(1), rng.start(1)), spelled(rng.group(2), rng.start(2))
            if lo is not None and hi is not None and not gold[rng.end() :][:1].isalpha():
                parts += [gold[pos : rng.start()], f"{lo} to {hi}"]
                pos, changed = rng.end(), True
            continue
        w = spelled(m.group(1), m.start(1))
        if w is not None:
            percent = gold[m.end(1) : m.end(1) + 1] == "%"  # "20%" -> "twenty percent"
            parts += [gold[pos : m.start(1)], w + (" percent" if percent else "")]
            pos, changed = m.end(1) + percent, True
    out = "".join(parts) + gold[pos:]
    if not changed:

        def to_digits(m):
            nonlocal changed
            if m.group(1)[0].isupper() and not _opens_sentence(gold, m.start(1)):
                return m.group(0)  # capitalised mid-sentence: part of a name ("The Nine Gates")
            changed = True
            return str(_WORD_VALUE[m.group(1).lower()])

        out = WORD_NUMBER.sub(to_digits, gold)
    return out if changed else None


def date_format(gold: str) -> str | None:
    found = _find_date(gold)
    if not found:
        return None
    m, y, mo, d, style = found
    other = {"mdy": "dmy", "dmy": "mdy", "iso": "mdy"}[style]
    return _replace_span(gold, m, _write_date(y, mo, d, other, _has_year(m, style)))


_ALSO_ACCEPTABLE = re.compile(r"[^.]*\b(?:also|is|are) acceptable\b[^.]*\.?", re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\s*\(or\b[^()]*\)", re.IGNORECASE)


def _core(gold: str) -> str:
    """The answer itself: a note on what else the grader accepts ("8 days is also
    acceptable", "(or 9 days, counting both ends)") is for the judge, not part of an answer;
    left in a planted wrong answer, it would still state an accepted one."""
    core = _ALTERNATIVE.sub("", _ALSO_ACCEPTABLE.sub("", gold))
    return core.strip().rstrip(".").strip()


def plant(
    question_id: str,
    question: str,
    gold: str,
    pool: list[str],
    wordings: Wordings = GENERATOR_WORDINGS,
) -> list[Planted]:
    """Every planted answer this question admits (see the module docstring); `pool`: names
    from the other questions' golds, to swap in."""
    gold = (gold or "").strip()
    if not gold or len(gold.split()) > MAX_GOLD_WORDS:
        return []
    core = _core(gold)
    options = either_or(question) is not None  # the answer is an option, not its numbers
    wrong = {
        "wrong_number": None if options else wrong_number(core),
        "wrong_date": None if options else wrong_date(core),
        "swapped_entity": swapped_entity(question, core, pool, question_id),
    }
    alternative = next((w for w in wrong.values() if w), None)
    t = topic(question)
    vague = _pick(wordings.vague, question_id).format(topic=t) if t else None
    if vague and core.lower() in vague.lower():
        vague = None
    wrong["vague"] = vague

    def worded(klass: str, wordings: tuple[str, ...]) -> str:
        return _pick(wordings, f"{question_id}::{klass}").format(core=core, wrong=alternative)

    def reasoning(klass: str, named: str, settled: str) -> str:
        return _pick(wordings.reasoning, f"{question_id}::{klass}").format(
            named=named, settled=settled
        )

    if alternative:
        wrong["reasoning_then_wrong"] = reasoning("reasoning_then_wrong", core, alternative)
        wrong["gold_plus_contradiction"] = worded("gold_plus_contradiction", wordings.contradicted)
    else:
        wrong["reasoning_then_wrong"] = None
        wrong["gold_plus_contradiction"] = worded("gold_plus_contradiction", wordings.taken_back)
    wrong["abstention"] = _pick(wordings.abstain, question_id)
    right = {
        "unit_paraphrase": unit_paraphrase(core),
        "number_words": number_words_variant(core),
        "date_format": date_format(core),
        "in_sentence": worded("in_sentence", wordings.in_sentence),
        "reasoning_then_right": (
            reasoning("reasoning_then_right", alternative, core) if alternative else None
        ),
    }
    out = [Planted(question_id, k, v, False) for k, v in wrong.items() if v and v != core]
    out += [Planted(question_id, k, v, True) for k, v in right.items() if v and v != core]
    order = {k: i for i, k in enumerate(CLASSES)}
    return sorted(out, key=lambda p: order[p.klass])


# A value of the kind a quantity question asks for, read from how it opens; first match wins,
# and any other quantity question gets a count ("3").
_QUANTITY_GUESS = tuple(
    (re.compile(r"^\W*(?:" + opening + ")", re.IGNORECASE), value)
    for opening, value in (
        (
            r"how much\b.*\b(?:cost|spen[dt]|sav(?:e|ed|ing)|pa(?:y|id)|price|money|budget)\b",
            "$120",
        ),
        (r"what (?:is|was|will be) the (?:total )?(?:cost|price|amount)\b", "$120"),
        (r"how much time\b", "2 hours"),
        (r"how long\b", "3 months"),
        (r"how far\b", "3 miles"),
        (r"how often\b", "twice a week"),
        (r"how old\b", "34"),
        (r"what time\b", "7 pm"),
        (r"what year\b", "2021"),
        (r"what month\b", "March"),
        (r"when\b|what (?:date|day)\b", "May 5"),
    )
)


def _quantity_guess(question: str) -> str | None:
    guess = next((v for opening, v in _QUANTITY_GUESS if opening.search(question)), None)
    return guess or ("3" if asks_quantity(question) else None)


def mentioned_instead(question: str, gold: str) -> str | None:
    """The first name an unanswerable question's gold gives that the question does not ("You
    mentioned seeing Dr. Smith but not Dr. Johnson": Dr. Smith): what was said instead."""
    for name in names(gold, mid_sentence_only=True):
        if not _says_word(question, name):
            return name
    return None


def committed_answer(
    question_id: str, question: str, gold: str, pool: list[str], tempting: str | None = None
) -> str | None:
    """An answer to an unanswerable question given as if the history held one (see the module
    docstring, answers_unanswerable)."""
    if tempting and tempting.strip():
        return _core(tempting)
    options = either_or(question)
    if options:
        return _pick(options, question_id)
    guess = _quantity_guess(question)
    if guess:
        return guess
    instead = mentioned_instead(question, gold)
    if instead:
        return instead
    others = [p for p in pool if not _says_word(question, p)]
    return others[int(sha256_text(question_id), 16) % len(others)] if others else None


def plant_unanswerable(
    question_id: str,
    question: str,
    gold: str,
    pool: list[str],
    tempting: str | None = None,
    wordings: Wordings = GENERATOR_WORDINGS,
) -> list[Planted]:
    """The planted answers of a question the history cannot answer: a committed answer (wrong)
    and an abstention (right)."""
    out = []
    committed = committed_answer(question_id, question, gold, pool, tempting)
    if committed:
        wording = _pick(wordings.in_sentence, f"{question_id}::answers_unanswerable")
        out.append(
            Planted(question_id, "answers_unanswerable", wording.format(core=committed), False)
        )
    instead = mentioned_instead(question, gold)
    abstaining = wordings.abstain + (
        tuple(w.format(instead=instead) for w in _ABSTAIN_NAMING) if instead else ()
    )
    out.append(
        Planted(
            question_id,
            "abstains_unanswerable",
            _pick(abstaining, f"{question_id}::abstains_unanswerable"),
            True,
        )
    )
    return out


def plant_all(
    rows: list[dict],
    tempting: dict[str, str | None] | None = None,
    wordings: Wordings = GENERATOR_WORDINGS,
) -> tuple[list[Planted], dict]:
    """Planted answers for question rows ({question_id, question, answer, is_abstention}, and
    haystack_session_ids where the benchmark has them), and counts of what was left out and
    why. `tempting`: question id -> the answer an unanswerable question is built to tempt, where
    the benchmark records one (Benchmark.tempting_answer). A question's swap pool holds the
    names of the golds of questions on other histories: a name from a question on the same
    conversation (every question of a benchmark that asks many of one conversation, or two
    questions asked of one history) may be true of this one too."""
    tempting = tempting or {}
    usable = [r for r in rows if not r.get("is_abstention")]
    # Names seen mid-sentence only: a short gold capitalised throughout may be a name or not.
    own_names = [set(names(_core(r.get("answer") or ""), mid_sentence_only=True)) for r in usable]
    sessions = [set(r.get("haystack_session_ids") or ()) for r in usable]

    def pool_for(history: set) -> list[str]:
        return sorted(
            {n for j, ns in enumerate(own_names) if not history & sessions[j] for n in ns}
        )

    planted, too_long = [], 0
    for i in sorted(range(len(usable)), key=lambda i: usable[i]["question_id"]):
        r = usable[i]
        gold = (r.get("answer") or "").strip()
        if len(gold.split()) > MAX_GOLD_WORDS:
            too_long += 1
            continue
        planted += plant(
            r["question_id"], r.get("question") or "", gold, pool_for(sessions[i]), wordings
        )
    unanswerable = sorted(
        (r for r in rows if r.get("is_abstention")), key=lambda r: r["question_id"]
    )
    for r in unanswerable:
        history = set(r.get("haystack_session_ids") or ())
        planted += plant_unanswerable(
            r["question_id"],
            r.get("question") or "",
            (r.get("answer") or "").strip(),
            pool_for(history),
            tempting.get(r["question_id"]),
            wordings,
        )
    return planted, {
        "questions": len(rows),
        "unanswerable_questions": len(unanswerable),
        "gold_too_long": too_long,
    }
