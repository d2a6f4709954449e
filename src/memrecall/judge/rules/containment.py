"""The general rule: normalised containment. Every content word of the reference that the question
does not already contain must appear in the response (so a subset of a list is wrong, and extra
information is fine). Parenthetical asides are optional; "(UCLA)"-style acronyms and a closing "(or
25:50)" are other forms, as is the part of a reference before a restatement ("1:10, meaning one
part to ten parts"), a named place without the "in/at <Name>" that locates it, a quoted title
without the "by <Name>" that credits it, the parts of "a mix of Irish and Italian" without the mix,
and a two-unit duration as a clock reading ("27:45"); "Book I" is "Book 1". "The user" and "the
assistant" in a reference name who spoke, as "you" and "I" do, and "approximately" or "in total"
around its number frame it. A reference of four words or more may miss one word in four that is
neither a number nor a name ("Planted 12 tomato saplings" for "planting 12 new tomato saplings").
The "one" that picks an item out of a group ("any one of its hexagons") asks for no 1. A fault the
reference describes ("not functioning correctly") restates a question about an issue, and a
reference the response names only to deny it ("Instagram, not TikTok") is not its answer."""

from __future__ import annotations

import re

from .normalise import (
    content_tokens,
    days_of_month,
    normalize,
    split_acceptable,
    stem,
    tokens,
    without_quantity_framing,
)
from .numbers import times_of_day_one_way, without_picking_one
from .phrases import (
    CHANGED_FROM,
    CURRENT_LABEL,
    DENIED_BEFORE,
    FORMER_AFTER,
    FORMER_MARKER,
    LIST_NUMBER,
    NEW_THEN_FROM,
    TURN_TO_NOW,
)
from .response import without_asides, without_label_numbers
from .verdict import RuleVerdict

_OPTIONAL_PAREN = re.compile(
    r"^\s*(?:e\.g\.|i\.e\.|from|including|such as|for example|or|"
    r"about|approx|roughly|which|that|as)\b",
    re.IGNORECASE,
)


def _acronym_form(text: str, paren: re.Match) -> str | None:
    """'fluid catalytic cracking (FCC), ...' -> 'FCC, ...' when the letters spell the acronym."""
    acronym = paren.group(1).strip()
    if not re.fullmatch(r"[A-Z]{2,6}", acronym):
        return None
    words = list(re.finditer(r"[A-Za-z]+", text[: paren.start()]))
    picked, i = [], len(words) - 1
    for ch in reversed(acronym.lower()):
        while i >= 0 and words[i].group(0).lower() in ("of", "and", "the", "for", "de"):
            i -= 1
        if i < 0 or words[i].group(0)[0].lower() != ch:
            return None
        picked.append(words[i])
        i -= 1
    return text[: picked[-1].start()] + acronym + text[paren.end() :]


# The numbers that enumerate a reference's items ("1) to identify ..., 2) to investigate ...")
# count nothing: a response may list the same items with bullets. Only a run from 1 is an
# enumeration; "28. Kg3" is a chess move's number.
_ITEM_MARK = re.compile(LIST_NUMBER)


def _without_item_marks(text: str) -> str:
    marks = [int(m.group(0)[:-1]) for m in _ITEM_MARK.finditer(text)]
    if len(marks) < 2 or marks != list(range(1, len(marks) + 1)):
        return text
    return _ITEM_MARK.sub(" ", text)


# A reference written of the user or the assistant in the third person ("The user bought a
# Sony", "The assistant recommended a Lager") names who spoke, as "you" and "I" do.
_SPEAKER = re.compile(r"\bthe (?:user|assistant)\b", re.IGNORECASE)


def _gold_forms(answer: str) -> list[str]:
    """The reference without its parenthetical asides, plus one form per acronym alias."""
    main, _ = split_acceptable(answer)
    main = _SPEAKER.sub("you", without_quantity_framing(_without_item_marks(main)))
    # "Mod Podge or another sealant": the open alternative adds nothing to look for.
    main = (
        re.sub(
            r",?\s+or (?:another|any other|some other|other|a similar|similar)\b[^.;,]*",
            "",
            main,
            flags=re.IGNORECASE,
        )
        or main
    )
    forms = [without_asides(main)]
    # "1:10, meaning one part to ten parts": what follows "meaning", "i.e." or "that is" says
    # again what precedes it, so the part before it is a form of its own.
    restated = re.split(r",\s*(?:meaning|which means|i\.e\.,?|that is,)\s", main, maxsplit=1)
    if len(restated) == 2 and content_tokens(restated[0]):
        forms.append(without_asides(restated[0]))
    # "University of Melbourne in Australia", "The Sugar Factory at Icon Park": a named place
    # that a trailing "in/at <Name>" locates is named without it too.
    located = _LOCATED.match(main.strip())
    if located and re.search(r"\s[A-Z]", located.group(1)) and len(located.group(1).split()) <= 6:
        forms.append(without_asides(located.group(1)))
    # "'The Nightingale' by Kristin Hannah": the quoted title names the work; "by" credits it.
    titled = _TITLE_BY.match(main.strip())
    if titled:
        forms.append(titled.group(1))
    # "A mix of Irish and Italian": a mix is named by its parts ("Irish and Italian descent").
    mixed = _MIX_OF.match(main)
    if mixed:
        forms.append(without_asides(mixed.group(1)))
    # "27 minutes and 45 seconds" is written "27:45" too (as a reference's own "(or 25:50)" says).
    # Its numbers may be written as words ("twenty-seven minutes and forty-five seconds").
    spelled_out = normalize(main)
    if _DURATION_PAIR.search(spelled_out):
        forms.append(without_asides(_DURATION_PAIR.sub(_clock_form, spelled_out)))
    for p in re.finditer(r"\(([^()]*)\)", main):
        alt = re.match(r"\s*or\s+(.+)", p.group(1))
        if alt and not main[p.end() :].strip(" ."):
            forms.append(alt.group(1))  # "25 minutes and 50 seconds (or 25:50)": another form
            continue
        if _OPTIONAL_PAREN.match(p.group(1)):
            continue
        alias = _acronym_form(main, p)
        if alias is not None:
            forms.append(without_asides(alias))
        elif not main[p.end() :].strip(" .") and len(p.group(1).split()) <= 3:
            forms.append(p.group(1))  # "X (Y)" at the end: Y alone may name the same thing
    return forms


_MIX_OF = re.compile(r"^\s*(?:an? )?(?:mix|mixture|combination|blend) of\s+(.+)$", re.IGNORECASE)
_TITLE_BY = re.compile(
    r"^[\"'‘“](.+)[\"'’”],?\s+by\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3}\s*\.?$"
)
# Two units of a duration, the larger first: hours and minutes, or minutes and seconds.
_DURATION_PAIR = re.compile(
    r"\b(\d+)\s+(?:(hours?)|minutes?),?\s+(?:and\s+)?(\d{1,2})\s+(?(2)minutes?|seconds?)\b"
)


# "Book I", "Part II", "Season IV": a numbered part written in Roman numerals is the same part
# as "Book 1", in any case.
_ROMAN = {r: i for i, r in enumerate("i ii iii iv v vi vii viii ix x".split(), start=1)}
_NUMBERED_PART = re.compile(
    r"\b((?:book|part|chapter|volume|vol\.|season|act|episode|phase|stage|level|section)\s+)"
    r"(" + "|".join(sorted(_ROMAN, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


def _arabic_numbered(text: str) -> str:
    return _NUMBERED_PART.sub(lambda m: f"{m.group(1)}{_ROMAN[m.group(2).lower()]}", text)


def _clock_form(m: re.Match) -> str:
    return f"{m.group(1)}:{int(m.group(3)):02d}"


_LOCATED = re.compile(
    r"^(.*?\S),?\s+(?:in|at)\s+(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*\s*\.?$"
)


# How a sentence-long reference frames its content ("I recommended X", "1:10, meaning one part
# to ten", "A or B as examples of C"): the framing need not be repeated, the content must.
_NARRATION = frozenset(
    stem(w)
    for w in """
meaning means meant example examples recommended recommend recommends suggested suggest
suggests referring refer refers namely specifically assigned
""".split()
)


# A fault the reference describes ("GPS system not functioning correctly") says again what a
# question about an issue asks for: "a GPS system malfunction", "a problem with the GPS system"
# name the same issue. The thing at fault is the answer.
_ASKS_FAULT = re.compile(r"\b(?:issues?|problems?|troubles?|faults?|wrong)\b", re.IGNORECASE)
_FAULT = re.compile(
    r"\b(?:(?:was|were|is|are|kept)\s+)?(?:not|n't|stopped)\s+(?:function|work)(?:ing|ed)?"
    r"(?:\s+(?:correctly|properly|right|well))?|\bmalfunction(?:ing|ed|s)?\b|\bfaulty\b",
    re.IGNORECASE,
)

# A knowledge update's former value, named as such: "you used to go to X", "previously in X",
# "you switched from X to Y", "you no longer go to X", "you were at X before." Not past a turn
# to the value now: "you used to go on Wednesday, but now it's Friday".
_FORMER_WORD_BEFORE = re.compile(
    rf"(?:{FORMER_MARKER}|\bno longer\b|{CHANGED_FROM})"
    rf"(?:[\s,*_:]+(?!{TURN_TO_NOW}\b)[a-z']+){{0,5}}[\s,*_:($~\"']*$|{NEW_THEN_FROM}"
)
# ... but "you switched from X to Y", "from your old gym to Y": Y is the value now.
_NEW_AFTER_FROM = re.compile(r"\bfrom\b[^.;:\n]{0,50}\b(?:to|into)(?:\s+(?:the|a|an))?[\s*_\"'(]*$")


_CURRENT_SPAN = re.compile(CURRENT_LABEL + r"([^.;\n]{1,80})")


def _labelled_current(hypothesis: str) -> list[str]:
    """What the response labels the value now ("Currently: Wednesday", "Latest: the suburbs",
    "currently it's Paris"), up to the end of its sentence or line."""
    return [m.group(1) for m in _CURRENT_SPAN.finditer(normalize(hypothesis))]


def _only(
    word: str,
    hypothesis: str,
    before: re.Pattern,
    after: re.Pattern | None = None,
    unless: re.Pattern | None = None,
) -> bool:
    """Whether every mention of `word` (a reference's first own word) has `before` just before
    it (and not `unless`), or `after` just after it."""
    text = normalize(hypothesis)

    def marked_before(window: str) -> bool:
        return bool(before.search(window)) and not (unless and unless.search(window))

    marked = [
        marked_before(text[max(0, m.start() - 60) : m.start()])
        or bool(after and after.match(text[m.end() : m.end() + 40]))
        for m in re.finditer(r"[a-z0-9']+", text)
        # a stem keeps its word's first letter ("st" -> "street" too): a cheap test first
        if m.group(0)[0] == word[0] and tokens(m.group(0)) == [word]
    ]
    return bool(marked) and all(marked)


# How often something happens, as (count, unit): "every week" = "weekly" = "once a week" =
# "1x/week" = "every 7 days" = (1, week); "every other week" = "biweekly" = "every two weeks" =
# "every fortnight" = (2, week). "Twice a week" is no period of this kind, so it matches none.
_PERIOD_UNITS = "day|week|month|year|weekend"
_FREQUENCY = re.compile(
    rf"\b(?:1 ?(?:times?|x) ?(?:a|an|per|each|every|/)|(?:1 time )?every) "
    rf"?(?:(other|second)|(\d+))? ?({_PERIOD_UNITS}|fortnight)s?\b|"
    r"\b(bi-?weekly|fortnightly)\b|\b(daily|weekly|monthly|yearly|annually)\b"
)
_ADVERB_UNIT = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
}


def _frequencies(text: str) -> set[tuple[int, str]]:
    return set(_frequency_sequence(text))


def _frequency_sequence(text: str) -> list[tuple[int, str]]:
    """Each frequency the text gives, in order."""
    out = []
    for m in _FREQUENCY.finditer(normalize(text)):
        other, n, unit, bi, adverb = m.groups()
        if unit == "fortnight":
            out.append((2 * int(n or 1), "week"))
        elif unit:
            count = 2 if other else int(n or 1)
            # "every 7 days" is every week, "every 12 months" every year
            if unit == "day" and count % 7 == 0:
                count, unit = count // 7, "week"
            elif unit == "month" and count % 12 == 0:
                count, unit = count // 12, "year"
            out.append((count, unit))
        elif bi:
            out.append((2, "week"))
        else:
            out.append((1, _ADVERB_UNIT[adverb]))
    return out


def _joined_pairs(text: str) -> set[str]:
    """Two adjacent words written as one ("jet blue" -> "jetblue"), stemmed."""
    words = re.findall(r"[a-z]+", normalize(text))
    return {stem(a + b) for a, b in zip(words, words[1:])}


def _names(form: str) -> set[str]:
    """The words a reference capitalises past its first ("Dark Souls 3 DLC" -> dark, soul, dlc),
    stemmed: names, which a shortened answer may not drop."""
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", form)
    return {t for w in words[1:] if w[0].isupper() for t in tokens(w)}


def _part_of(word: str, required: list[str], written: set[str]) -> bool:
    """Whether `word` begins or ends a longer reference word the response writes
    ("challeng" in "plankchalleng")."""
    return len(word) >= 4 and any(
        c != word and c in written and (c.startswith(word) or c.endswith(word)) for c in required
    )


def _split_in(form: str, hyp: set[str]) -> set[str]:
    """The reference's words that the response writes joined to their neighbour ("JetBlue" for
    "Jet Blue")."""
    words = re.findall(r"[a-z]+", normalize(form))
    out: set[str] = set()
    for a, b in zip(words, words[1:]):
        if stem(a + b) in hyp:
            out |= {stem(a), stem(b)}
    return out


def containment_verdict(
    question: str, answer: str, hypothesis: str, *, current: bool = False
) -> RuleVerdict:
    """`current`: the question asks for a value now (a knowledge update), so a reference the
    response names only as a former value is not its answer."""
    # "Part II" is "Part 2", and "6 am - 2 pm" is "06:00 - 14:00"
    answer, hypothesis = (times_of_day_one_way(_arabic_numbered(t)) for t in (answer, hypothesis))
    main, _ = split_acceptable(answer)
    gold_dates = days_of_month(without_asides(main))
    if gold_dates:
        # A date is its month and day together: "June 10th ... session 3" does not say June 3,
        # and "June 4, not June 3" names June 3 only to deny it.
        missed = gold_dates - days_of_month(hypothesis, denied_too=False)
        if missed:
            month, day = sorted(missed)[0]
            return RuleVerdict(False, f"date: {month} {day} not given")
    gold_seq = _frequency_sequence(main)
    if len(set(gold_seq)) >= 2:
        # "Previously every week, now every other week": the answer is the frequencies, in
        # that order; the rest frames them.
        seq, hyp_seq = list(dict.fromkeys(gold_seq)), _frequency_sequence(hypothesis)
        it = iter(hyp_seq)
        if all(f in it for f in seq):
            return RuleVerdict(True, "frequencies: all, in the reference's order")
        return RuleVerdict(False, "frequencies: not all of the reference's, in its order")
    gold_freq = set(gold_seq)
    if len(gold_freq) == 1:
        # "every week" is not contained in "every two weeks": compare how often, not words.
        ((n, unit),) = gold_freq
        if (n, unit) not in _frequencies(hypothesis):
            return RuleVerdict(False, f"frequency: not every {n} {unit}(s)")
        rest = _FREQUENCY.sub(" ", normalize(main))
        if not content_tokens(rest):
            return RuleVerdict(True, f"frequency: every {n} {unit}(s)")
    q_tokens = set(tokens(question)) | _NARRATION
    # "Sources: session 3": a number that names a part of the history is no number the response
    # gives, unless the reference names such a part too ("Which session ...? Session 3").
    labels_matter = without_label_numbers(main) != normalize(main)
    hyp = set(tokens(hypothesis if labels_matter else without_label_numbers(hypothesis)))
    hyp |= _joined_pairs(hypothesis)  # "Jet Blue" writes "JetBlue"
    best_missing: list[str] | None = None
    forms = _gold_forms(answer)
    if _ASKS_FAULT.search(question):
        forms += [
            _FAULT.sub(" ", f) for f in forms if _FAULT.search(f) and _FAULT.sub("", f).strip(" .")
        ]
    for form in forms:
        # "any one of its hexagons": the reference asks for the hexagons, not for a 1
        content = content_tokens(without_picking_one(form))
        own = [t for t in content if t not in q_tokens]
        required = list(dict.fromkeys(own or content or tokens(form)))
        written = hyp | _split_in(form, hyp)
        # "a challenge called #PlankChallenge": a reference word that begins or ends another
        # the response writes ("the #PlankChallenge") is written there
        missing = [t for t in required if t not in written and not _part_of(t, required, written)]
        if not required:
            continue
        if not missing:
            if own and _only(own[0], hypothesis, DENIED_BEFORE):
                return RuleVerdict(False, f"contains: {own[0]} only where the response denies it")
            if (
                own
                and current
                and _only(own[0], hypothesis, _FORMER_WORD_BEFORE, FORMER_AFTER, _NEW_AFTER_FROM)
            ):
                return RuleVerdict(False, f"contains: {own[0]} only as a former value")
            labelled = _labelled_current(hypothesis) if own and current else []
            if labelled and not any(set(own) <= set(tokens(x)) for x in labelled):
                return RuleVerdict(False, f"contains: {own[0]} not the value labelled current")
            return RuleVerdict(True, "contains: " + " ".join(required))
        # A reference restated in other words or shortened: one word in four may be missing, a
        # verb or modifier that frames the content ("I got my own set of sculpting tools":
        # "a sculpting tools set"; "started taking ukulele lessons": "started ukulele lessons"),
        # never a number or a name ("Dark Souls 3 DLC" is not "Dark Souls 3"), and not when the
        # reference only repeats the question's words (then the one missing word is the choice:
        # "less").
        if (
            own
            and len(missing) * 4 <= len(required)
            and not any(t.isdigit() for t in missing)
            and not set(missing) & _names(form)
        ):
            return RuleVerdict(True, "contains: all but " + " ".join(missing))
        if best_missing is None or len(missing) < len(best_missing):
            best_missing = missing
    return RuleVerdict(False, "contains: missing " + " ".join(best_missing or ["answer"]))
