"""Normalisation shared by every rule family: case, punctuation, number words ("three" -> 3, "twelve
thousand" -> 12000, "one hundred and fifty" -> 150, "twice" -> 2 times, "a dozen" -> 1 dozen),
multiples ("triple what I paid", "tripled", "threefold", "3x" -> 3 times), youtu.be links,
"$1.5M" and "$2bn", times in words ("seven thirty", "half past seven", "noon" -> 7:30, 12:00 pm),
thousands separators, "400 thousand", "$1.2k" and "12k" (not a race's "5K"), a unit's abbreviation
after its number ("45 mins" -> 45 minutes), a.m./p.m. and "7.30am", written dates ("Feb. 1st",
"2023-02-01", "2023/02/01" -> february 1; "2023-02-01T09:15" -> february 1, 2023 09:15; "25 March
2023" -> march 25, 2023), "an hour
and a half", "half a year", "a quarter of an hour", "a fortnight", "a decade", "1h30", "per cent"
and "pct", a unit glued to its number ("45min", "3wks", "10yrs", "6mos", "27yo"), session ids
("answer_54f0d6f9_1" -> "identifier": its numbers count nothing), possessives, light plural/-ed/-ing
stemming ("scrubbing", "dried" -> scrub, dry); and the reference's "also acceptable" alternatives;
where a response labels its answer (`stated_answer`: a JSON "answer" field, an `<answer>` tag, an
"Answer:" line before a labelled explanation or closing the response, "Final Answer:") and where
a reasoning transcript concludes (`conclusion`); a response's HTML and underscore emphasis read
as Markdown (`as_markdown`), the lines that restate the question dropped
(`without_question_echo`), and the first sentence that says something (`first_sentence`: not a
greeting, heading or status line)."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from functools import lru_cache

import ftfy

from ...abstention import plain, says_missing, without_no_later_change

_UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if w != "_"
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
# After $ or before a currency word: "$1.2k", "$1.5m", "$2bn", "1.2k USD"
_MONEY_SUFFIX = {"k": 1000, "m": 1_000_000, "mm": 1_000_000, "mn": 1_000_000}
_MONEY_SUFFIX |= {"b": 1_000_000_000, "bn": 1_000_000_000}
_SMALL_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
# "one hundred and fifty" is one number, 150: "and" joins a scale to the units and tens after
# it (not to another scale: "one hundred and two hundred" is two).
_AND_IN_NUMBER = re.compile(
    rf"\b(hundred|thousand|million|billion) and (?=(?:{_SMALL_NUMBER_WORD})"
    rf"(?:[\s-]+(?:{_SMALL_NUMBER_WORD}))?\b(?![\s-]+(?:hundred|thousand|million|billion)\b))"
)
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, *_SCALES], key=len, reverse=True))
_NUMBER_RUN = re.compile(rf"\b(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*\b")
ORDINAL_WORDS = {
    w: i + 1
    for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
}
_ORDINAL_RUN = re.compile(r"\b(" + "|".join(ORDINAL_WORDS) + r")\b")
_SUFFIX = {1: "st", 2: "nd", 3: "rd"}
_TRANSLATE = str.maketrans(
    {"’": "'", "‘": "'", "“": '"', "”": '"', "–": " - ", "—": " - ", "\u00a0": " "}
)


def _words_value(run: str) -> int:
    total, current = 0, 0
    for w in re.split(r"[\s-]+", run):
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        else:  # thousand, million
            total += (current or 1) * _SCALES[w]
            current = 0
    return total + current


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else _SUFFIX.get(n % 10, "th")
    return f"{n}{suffix}"


# Holidays that fall on the same date every year name that date ("on Valentine's Day" is "on
# February 14"); the name is kept beside it. Not "Christmas" alone, which also names a season,
# nor national days, which differ by country.
_FIXED_DATE_HOLIDAYS = {
    r"valentine'?s day": "february 14",
    r"christmas eve": "december 24",
    r"christmas day": "december 25",
    r"new year'?s eve": "december 31",
    r"new year'?s day": "january 1",
    r"halloween": "october 31",
    r"st\.? patrick'?s day": "march 17",
    r"april fools'? day": "april 1",
}
_FIXED_DATE_HOLIDAY = re.compile(r"\b(?:" + "|".join(_FIXED_DATE_HOLIDAYS) + r")\b")


def _holiday_date(name: str) -> str:
    return next(d for p, d in _FIXED_DATE_HOLIDAYS.items() if re.fullmatch(p, name))


# The spaces that keep what they join on one line: no-break, figure, thin and narrow no-break
_NO_BREAK_SPACE = "[\u00a0\u2007\u2009\u202f]"
# ... between groups of digits one separates thousands: "12\u202f000"
DIGIT_GROUP_SPACE = re.compile(rf"(?<=\d){_NO_BREAK_SPACE}(?=\d{{3}}(?!\d))")
# ... and the comma that separates them: "12,000"
THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """Lower-cased text with number words as digits; punctuation is kept (quantities need it)."""
    s = DIGIT_GROUP_SPACE.sub("", text or "")
    s = s.replace("½", ".5 ").replace("¼", ".25 ").replace("¾", ".75 ")
    s = re.sub(r"(?<!\d)\.(?=\d)", "0.", s)  # "½" alone -> 0.5
    s = unicodedata.normalize("NFKC", s).translate(_TRANSLATE).lower()
    if not s.isascii():  # "Pastéis de Belém" is "Pasteis de Belem" written with its accents
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    s = re.sub(r"\s&\s", " and ", s)  # "two & a half weeks", "a week & a half"
    s = s.replace("youtu.be/", "youtube.com/watch?v=")  # YouTube's short links name the same video
    s = _IDENTIFIER.sub("identifier", s)  # "answer_54f0d6f9_1" names a session, counts nothing
    s = re.sub(r"\b([ap])\.\s?m\.?(?!\w)", r"\1m", s)  # a.m. -> am
    s = re.sub(r"\b(\d{1,2})\.(\d{2}) ?(?=[ap]m\b)", r"\1:\2 ", s)  # 7.30am -> 7:30 am
    s = THOUSANDS_COMMA.sub("", s)  # 12,000 -> 12000
    s = _FIXED_DATE_HOLIDAY.sub(lambda m: f"{m.group(0)} {_holiday_date(m.group(0))}", s)
    s = _written_dates(s)
    # "400 thousand", "$1.2k": before the number words, which would read "thousand" alone
    s = re.sub(
        r"\b(\d+(?:\.\d+)?)\s+(thousand|million|billion)\b",
        lambda m: fmt(float(m.group(1)) * _SCALES[m.group(2)]),
        s,
    )
    s = re.sub(
        r"(?<=\$)\s?(\d+(?:\.\d+)?) ?(k|m|mm|mn|b|bn)\b"
        r"|\b(\d+(?:\.\d+)?) ?(k|m|mm|mn|b|bn)(?= ?(?:usd|dollars?|bucks)\b)",
        lambda m: fmt(float(m.group(1) or m.group(3)) * _MONEY_SUFFIX[m.group(2) or m.group(4)]),
        s,
    )
    s = _thousands(s)
    s = re.sub(r"\bper cent\b", "percent", s)
    s = re.sub(r"\bonce\b", "1 time", s)
    s = re.sub(r"\btwice\b", "2 times", s)
    s = re.sub(r"\bthrice\b", "3 times", s)
    s = _multiples(s)
    # "an hour and a half" -> 1.5 hours, "half an hour" -> 0.5 hour, "1h30" -> 1 hour 30 minutes
    s = re.sub(r"\b(?:an?|one) (hour|day|week|month|year) and a half\b", r"1.5 \1s", s)
    s = re.sub(r"\bhalf an? (hour|day|week|month|year|fortnight|decade)\b", r"0.5 \1", s)
    # "a quarter of an hour", "a quarter hour", "¾ of an hour"; "a fortnight", "a decade"
    s = re.sub(r"\b(?:a |one )?quarter(?: of an?)? (hour|day|year)\b", r"0.25 \1", s)
    s = re.sub(r"\b(?:three|3) quarters of an? (hour|day|year)\b", r"0.75 \1", s)
    s = re.sub(r"\b(0\.\d+) +of an? (hour|day|week|month|year)\b", r"\1 \2", s)
    s = re.sub(r"\b(?:an?|one) (fortnight|decade)\b", r"1 \1", s)
    # "45min", "3wks", "21km", "12oz": a unit abbreviation glued to its number; "27yo", "27 y/o"
    s = re.sub(rf"\b(\d+(?:\.\d+)?)(?={_GLUED_UNIT}\b)", r"\1 ", s)
    s = re.sub(r"\b(\d+)\s?(?:yo|y/o|y\.o\.?)(?!\w)", r"\1 years old", s)
    s = re.sub(r"\b(\d+(?:\.\d+)?)\s?pct\b", r"\1 percent", s)
    s = re.sub(r"\b(\d+)h(\d{2})\b", r"\1 hours \2 minutes", s)
    s = re.sub(r"\b(\d+(?:\.\d+)?)h\b", r"\1 hours", s)
    s = _ABBREVIATION_AFTER_NUMBER.sub(lambda m: f"{m[1]} {_ABBREVIATED_UNIT[m[2]]}", s)
    s = _clock_words(s)
    s = _AND_IN_NUMBER.sub(r"\1 ", s)
    s = _NUMBER_RUN.sub(lambda m: str(_words_value(m.group(0))), s)
    s = re.sub(
        r"\b(\d+(?:\.\d+)?) (fortnight|decade)s?\b",
        lambda m: (
            f"{fmt(float(m.group(1)) * _WORD_UNITS[m.group(2)][0])} {_WORD_UNITS[m.group(2)][1]}"
        ),
        s,
    )
    # "a dozen", "half a dozen": a number of dozens (numbers.py reads the unit)
    s = re.sub(r"\bhalf an? dozen\b", "0.5 dozen", s)
    s = re.sub(r"\ban? dozen\b", "1 dozen", s)
    s, ordinals = _ORDINAL_RUN.subn(lambda m: _ordinal(ORDINAL_WORDS[m.group(1)]), s)
    if ordinals:  # "the third of march" is a date too, once its ordinal is written "3rd"
        s = _month_first(s)
    s = re.sub(r"\b(\d+) and (?:a|one) half\b", r"\1.5", s)  # "5 and a half" -> 5.5
    s = re.sub(r"\bmore than\b", "over", s)
    return s


# "worth triple what I paid", "it tripled", "threefold", "3x the price": a multiple is a number
# of times, as "twice" is 2 times. "double"/"triple" count only where they multiply (after
# "worth", "is", "paid", ... or before "what", "the", "its", ...), not in "a double room".
_MULTIPLE_WORDS = {"double": 2, "triple": 3, "quadruple": 4}
_MULTIPLE = "|".join(_MULTIPLE_WORDS)
_MULTIPLE_AFTER = re.compile(
    r"\b(worth|is|was|are|were|be|been|cost|costs|paid|pay|earn|earns|earned|make|makes|made|"
    r"grew|rose|increased|about|nearly|almost|roughly|over|than|least) "
    rf"[*_]*({_MULTIPLE})\b(?!-)"
)
_MULTIPLE_BEFORE = re.compile(
    rf"\b({_MULTIPLE})(?=[*_]* (?:what|the|its|their|his|her|my|your|our|that|this|"
    r"as much|as many)\b)"
)
_MULTIPLE_VERB = re.compile(rf"\b({_MULTIPLE})d\b")  # "it tripled"
_FOLD = re.compile(rf"\b({'|'.join(_UNITS)}|\d+)[- ]?fold\b")
_TIMES_X = re.compile(r"\b(\d+(?:\.\d+)?)x\b(?![\d.])")


def _multiples(s: str) -> str:
    s = _MULTIPLE_AFTER.sub(lambda m: f"{m.group(1)} {_MULTIPLE_WORDS[m.group(2)]} times", s)
    s = _MULTIPLE_BEFORE.sub(lambda m: f"{_MULTIPLE_WORDS[m.group(1)]} times", s)
    s = _MULTIPLE_VERB.sub(lambda m: f"{_MULTIPLE_WORDS[m.group(1)]} times", s)
    s = _FOLD.sub(lambda m: f"{_UNITS.get(m.group(1), m.group(1))} times", s)
    return _TIMES_X.sub(r"\1 times", s)


# Units that are a number of another: "a fortnight" is 2 weeks, "a decade" 10 years.
_WORD_UNITS = {"fortnight": (2, "weeks"), "decade": (10, "years")}

# A unit's abbreviation after its number, written out: "45 mins", "3 wks", "10 lbs" say what "45
# minutes", "3 weeks" and "10 pounds" do, to every rule that reads words ("3 wks before the
# router" is a time, as "3 weeks before" is).
_ABBREVIATED_UNIT = {
    "min": "minute", "mins": "minutes", "sec": "second", "secs": "seconds", "hr": "hour",
    "hrs": "hours", "wk": "week", "wks": "weeks", "mos": "months", "yr": "year", "yrs": "years",
    "lb": "pound", "lbs": "pounds", "kg": "kilograms", "kgs": "kilograms", "km": "kilometers",
    "kms": "kilometers", "mi": "miles", "ft": "feet", "oz": "ounces",
}  # fmt: skip
_ABBREVIATION_AFTER_NUMBER = re.compile(
    r"\b(\d+(?:\.\d+)?) (" + "|".join(_ABBREVIATED_UNIT) + r")\b(?!\.?\w)"
)

# A number glued to "k" counts thousands ("12k people", "1.3K", "~12k"), unless it names a race
# or a screen: "a charity 5K run", "finished the 10K in 52 minutes", "a 4K TV". A determiner or
# an adjective before it with no plural noun after ("a 5K", "the charity 5K.") names a race too.
_THOUSANDS_K = re.compile(r"(?<![\w.,$])(\d+(?:\.\d+)?)k\b(?!-)")
_RACE_OR_SCREEN = re.compile(
    r"\W{0,3}(?:(?:charity|fun|trail|virtual|smart|ultra)\b\W*)?"
    r"(?:runs?|races?|walks?|runners?|marathons?|swims?|rides?|times?|finish|pb|personal|tvs?|"
    r"televisions?|monitors?|displays?|screens?|resolution|videos?|footage|cameras?|ultra)\b"
)
_RACE_DETERMINER = re.compile(
    r"\b(?:a|an|the|my|your|his|her|their|our|this|that|charity|daily|weekly|fun|upcoming|"
    r"previous|first|next|last|recent|local|annual)\W{1,3}$"
)


def _thousands(s: str) -> str:
    def value(m: re.Match) -> str:
        after = s[m.end() :]
        if _RACE_OR_SCREEN.match(after):
            return m.group(0)
        plural_after = re.match(r"\W{0,3}[a-z]+s\b", after) is not None
        if _RACE_DETERMINER.search(s[max(0, m.start() - 20) : m.start()]) and not plural_after:
            return m.group(0)
        return fmt(float(m.group(1)) * 1000)

    return _THOUSANDS_K.sub(value, s)


# Unit abbreviations that a number may carry glued on ("45min", "3wks"); single letters other than
# "h" ("3d", "5k", "30m") name other things too often (3D, 5 km, 30 metres).
_GLUED_UNIT = (
    r"(?:mins?|minutes?|hrs?|hours?|days?|wks?|weeks?|mos?|months?|yrs?|years?|kms?|kgs?|mi|lbs?|"
    r"ft|oz)"
)


# A name made of parts joined by underscores, one with a digit ("answer_54f0d6f9_1",
# "session_12"): the haystack's session ids, which responses cite. Its numbers are no counts.
_IDENTIFIER = re.compile(r"(?<![\w@])(?=[a-z0-9_]*\d)(?=[a-z0-9_]*[a-z])[a-z0-9]+(?:_[a-z0-9]+)+\b")


_HOUR_WORDS = {
    w: _UNITS[w] for w in "one two three four five six seven eight nine ten eleven twelve".split()
}
_HOUR = "|".join(sorted(_HOUR_WORDS, key=len, reverse=True)) + r"|1[0-2]|[1-9]"
_MINUTE_UNITS = "|".join(w for w in _UNITS if _UNITS[w] >= 1 and _UNITS[w] <= 9)
_MINUTE_TEENS = "|".join(w for w in _UNITS if 10 <= _UNITS[w] <= 19)
_MINUTE_TENS = "twenty|thirty|forty|fifty"
# "seven thirty", "five forty-five": an hour and its minutes, not one number (the number words
# would read 37 and 50); not before a unit or a hyphened noun ("two twenty-dollar bills").
_HOUR_MINUTES = re.compile(
    rf"\b({'|'.join(_HOUR_WORDS)})[\s-]+(?:({_MINUTE_TEENS})|({_MINUTE_TENS})(?:[\s-]+({_MINUTE_UNITS}))?)"
    rf"\b(?!-[a-z]|\s+(?:minute|hour|day|week|month|year|dollar|percent|time|people)s?\b)"
)
_PAST_TO = re.compile(rf"\b(?:(half|(?:a )?quarter) past|(?:a )?quarter to) ({_HOUR})\b")


_TIME_IN_PART_OF_DAY = re.compile(
    rf"\b(at|around|about|by|until|till|before|after|from|to) ({_HOUR})(:\d{{2}})? "
    r"(?:in the (morning)|in the (?:afternoon|evening)|at night)\b"
)


def _clock_words(s: str) -> str:
    """Times of day in words: "seven thirty" -> 7:30, "half past seven" -> 7:30, "quarter to
    eight" -> 7:45, "seven o'clock" -> 7:00, "6 in the evening" -> 6:00 pm, "noon" -> 12:00 pm,
    "midnight" -> 12:00 am."""

    def hour(w: str) -> int:
        return _HOUR_WORDS[w] if w in _HOUR_WORDS else int(w)

    def pair(m: re.Match) -> str:
        h, teen, tens, unit = m.groups()
        minutes = _UNITS[teen] if teen else _TENS[tens] + (_UNITS[unit] if unit else 0)
        return f"{hour(h)}:{minutes:02d}"

    def past_to(m: re.Match) -> str:
        h = hour(m.group(2))
        if m.group(1) is None:  # "quarter to eight"
            return f"{(h - 2) % 12 + 1}:45"
        return f"{h}:{30 if m.group(1) == 'half' else 15}"

    s = _HOUR_MINUTES.sub(pair, s)
    s = _PAST_TO.sub(past_to, s)
    s = re.sub(rf"\b({_HOUR})\s*o'?clock\b", lambda m: f"{hour(m.group(1))}:00", s)
    # "at 6 in the evening", "by 7:30 in the morning", "around 10 at night": the part of the day
    # is am or pm. Only after a preposition of time: "you take 2 in the morning" counts pills.
    if "in the " in s or "at night" in s:  # a cheap test first: the pattern is slow on long text
        s = _TIME_IN_PART_OF_DAY.sub(
            lambda m: (
                f"{m.group(1)} {hour(m.group(2))}{m.group(3) or ':00'} "
                f"{'am' if m.group(4) else 'pm'}"
            ),
            s,
        )
    s = re.sub(r"\bnoon\b", "12:00 pm", s)
    return re.sub(r"\bmidnight\b", "12:00 am", s)


MONTHS = (
    "january february march april may june july august september october november december"
).split()
# Month abbreviations, read as months only next to a day number ("feb 1", "1st feb"): "mar",
# "jan" and "dec" are words or names elsewhere. "may" is already the full name.
MONTH_ABBREVIATIONS = {m[:3]: m for m in MONTHS if m != "may"} | {"sept": "september"}
_ABBREVIATED = "|".join(sorted(MONTH_ABBREVIATIONS, key=len, reverse=True))
_MONTH_NAMES = "|".join(m for m in MONTHS if m != "may")


def _written_dates(s: str) -> str:
    """Dates in the words a reference uses: "feb. 1st" and "1 feb" -> february; "2023-02-01" and
    "2023/02/01" (the haystack's own session dates, which responses quote) -> february 1, 2023;
    "2/13/2023" and "13/02/2023" -> february 13, 2023 (not "2/3/2023", which could be either)."""
    s = re.sub(
        rf"\b({_ABBREVIATED})\.?(?=\s+\d{{1,2}}(?:st|nd|rd|th)?\b)",
        lambda m: MONTH_ABBREVIATIONS[m.group(1)],
        s,
    )
    s = re.sub(
        rf"\b(\d{{1,2}}(?:st|nd|rd|th)?\s+)({_ABBREVIATED})\b\.?",
        lambda m: m.group(1) + MONTH_ABBREVIATIONS[m.group(2)],
        s,
    )

    def iso(m: re.Match) -> str:
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return m.group(0)
        return f"{MONTHS[month - 1]} {day}, {year}" + (" " if m.group(0)[-1] == "t" else "")

    def day_month(m: re.Match) -> str:
        a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if 1 <= a <= 12 < b <= 31:
            month, day = a, b  # 3/15/2023
        elif 1 <= b <= 12 < a <= 31:
            month, day = b, a  # 15/03/2023, 15.03.2023
        else:
            return m.group(0)  # 3/4/2023: March 4 or April 3, the notation does not say
        return f"{MONTHS[month - 1]} {day}, {year}"

    # "2023-05-20t06:42:00": the date, then its time
    s = re.sub(r"\b(\d{4})[-/](\d{2})[-/](\d{2})(?:\b|t(?=\d{2}:\d{2}))", iso, s)
    s = re.sub(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b", day_month, s)
    return _month_first(s)


def _month_first(s: str) -> str:
    """One order for a day and its month, so the day is read as a date and not as a count:
    "25 march 2023", "the 3rd of june" -> "march 25, 2023", "june 3rd" ("may" only with "of", a
    year or punctuation after it, as "the other 3 may be" is no date, and the verb is never
    followed by a comma: "on 3 may, a wednesday")."""
    return re.sub(
        rf"\b([1-9]|[12]\d|3[01])(st|nd|rd|th)?\s+(?:(of\s+)?({_MONTH_NAMES})|(of\s+)?(may)"
        r"(?=,?\s+\d{4}\b)|of\s+(may)|(may)(?=[,.;:!?)]|[ \t]*(?:\n|$)))\b(,?\s+\d{4}\b)?",
        lambda m: (
            f"{m.group(4) or m.group(6) or m.group(7) or m.group(8)} {m.group(1)}{m.group(2) or ''}"
            + (f", {m.group(9).strip(' ,')}" if m.group(9) else "")
        ),
        s,
    )


def without_asides(text: str) -> str:
    """The text without its parenthetical asides ("11 days (or 12, if ...)" -> "11 days")."""
    return re.sub(r"\([^()]*\)", " ", text)


# An aside that lists examples of what could be meant ("the amount of RAM (e.g., 8GB, 16GB)
# was not mentioned", "a frequency (e.g., weekly, monthly)") names possibilities, not an answer.
_EXAMPLES_ASIDE = re.compile(
    r"\(\s*(?:e\.g\.|eg\b|for example|for instance|such as)[^()\n]*\)", re.IGNORECASE
)


# A worked example on a made-up value: "If you packed, say, 5 pairs and wore 2, that would be
# 40%". Its "say" marks the value as supposed, so what follows from it is no answer. (One
# conditional without it can be the answer with its caveat: "If the workshop counts, the total
# is $720.") Tried only where a sentence starts: tried at every character, it took 6 s over the
# 10,000 published answers.
_SUPPOSED_VALUE = re.compile(
    r"(?<![^.!?\n])[^.!?\n]*\bif\b[^.!?\n]*,\s*say,[^.!?\n]*[.!?]?", re.IGNORECASE
)
# A list of conditionals the response calls examples ("For example:\n- If you packed 4 pairs,
# you wore 50%\n- If you packed 5 pairs, you wore 40%"): possibilities, none of them chosen.
_CONDITIONAL_ITEM = r"\n[ \t]*(?:[-*•]|\d+[.)])[ \t]+[*_]*if\b[^\n]*"
_CONDITIONAL_EXAMPLES = re.compile(
    rf"(?i)\b(?:for example|for instance|e\.g\.|say):[ \t]*(?:{_CONDITIONAL_ITEM})+"
)


def without_examples(text: str) -> str:
    """The text without its examples: parenthetical lists of them ("(e.g., weekly, biweekly)"),
    a worked example on a supposed value ("If you packed, say, 5 pairs, ...") and conditionals
    listed as examples ("For example:\n- If 4 pairs, 50%\n- If 5 pairs, 40%")."""
    text = _EXAMPLES_ASIDE.sub(" ", text)
    text = _SUPPOSED_VALUE.sub(" ", text)
    return _CONDITIONAL_EXAMPLES.sub(" ", text)


DAY_OF_MONTH = re.compile(
    r"\b(" + "|".join(MONTHS) + r"),? (?:the )?(\d{1,2})(?:st|nd|rd|th)?\b(?!:)"
)


def days_of_month(text: str, *, denied_too: bool = True) -> set[tuple[str, int]]:
    """The (month, day) dates the text names: "June 3rd", "the 3rd of June", "2023/06/03" (the
    normalised text names each month before its day). With `denied_too=False`, not a date named
    only to be denied ("June 4, not June 3")."""
    s = normalize(text)
    return {
        (m.group(1), int(m.group(2)))
        for m in DAY_OF_MONTH.finditer(s)
        if denied_too or not DENIED_BEFORE.search(s[max(0, m.start() - 40) : m.start()])
    }


def fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


STOPWORDS = frozenset(
    """
a an the and or but nor of to in on at for with from by about as into onto over under than then
so also just very really quite some any each every all both either neither this that these those
there here it its is are was were be been being am do does did done have has had having will would
shall should can could may might must i me my mine myself you your yours yourself we us our ours
he him his she her hers they them their theirs who whom whose which what when where why how
not no yes if while during before after again further once only own same too s t
mentioned mention said say told tell according called named recall remember remind reminded
previous previously earlier conversation chat chats discussed answer correct
finally next later
""".split()
)

_ABBREVIATIONS = {
    "st": "street",
    "dr": "doctor",
    "ave": "avenue",
    "mt": "mount",
    "dept": "department",
    "approx": "approximately",
    "hrs": "hours",
    "hr": "hour",
    "mins": "minutes",
    "min": "minute",
    "yrs": "years",
    "yr": "year",
    "mos": "months",
    "wks": "weeks",
    "wk": "week",
}


# British spellings meet American ones ("grey"/"gray", "colour"/"color", "centre"/"center",
# "organise"/"organize", "travelled"/"traveled"): the same word either way.
_BRITISH_WORDS = {
    "grey": "gray",
    "greys": "grays",
    "mum": "mom",
    "mums": "moms",
    "jewellery": "jewelry",
    "pyjamas": "pajamas",
    "aluminium": "aluminum",
    "tyre": "tire",
    "tyres": "tires",
}
_BRITISH_SPELLING = [
    (re.compile(r"^(\w{3,})our(s|ed|ing|ite|ites|able|ful)?$"), r"\1or\2"),
    (
        re.compile(r"^(\w*(?:cent|theat|met|lit|fib|spect|calib|somb|meag|lust))re(s|d)?$"),
        r"\1er\2",
    ),
    (re.compile(r"^(\w{3,}[^aeiou\W])is(e|es|ed|ing|ation|ations)$"), r"\1iz\2"),
    (re.compile(r"^(\w+)ys(e|es|ed|ing)$"), r"\1yz\2"),
    (re.compile(r"^(\w{3,})ogue(s)?$"), r"\1og\2"),
    # "travelled", "cancelling", "modeller"; not "installed", "spelled" ("install", "spell")
    (re.compile(r"^(\w*[aeiou][^aeiou\W]+e)ll(ed|ing|er|ers)$"), r"\1l\2"),
]


def _american(word: str) -> str:
    word = _BRITISH_WORDS.get(word, word)
    for pattern, replacement in _BRITISH_SPELLING:
        word = pattern.sub(replacement, word)
    return word


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A deliberately light stemmer: plurals, -ed and -ing, so 'pads'/'pad',
    'increased'/'increase', 'planting'/'planted', 'scrubbing'/'scrub' (a doubled consonant
    undoubled, not 'added'/'ad'), 'drying'/'dried'/'dry', 'baking'/'baked'/'bake'."""
    w = _ABBREVIATIONS.get(word, word)
    if w.isdigit() or w in STOPWORDS:
        # a stopword stays itself, so the list filters it: "whose", "there", "called" would
        # stem to "whos", "ther", "call" and pass for content words
        return w
    w = _american(w)
    if len(w) <= 3:
        return w
    short = re.fullmatch(r"([^aeiou\d][aeiou][^aeiouwxy\d])(?:ing|ed)", w)
    if short:
        # baking/baked/bake, hiking/hiked/hike: a short verb's silent e comes back, and a
        # four-letter word keeps its e (below), so all three forms meet ("during" stays)
        return short.group(1) + "e"
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    suffixed = True
    if w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if re.search(r"[^aeiou]i$", w):
            w = w[:-1] + "y"  # dried/dry, studied/study
    elif w.endswith("ing") and (len(w) > 6 or re.fullmatch(r"[a-z]{2}ying", w)):
        w = w[:-3]  # planting/planted -> plant, drying -> dry (other short words keep -ing)
    else:
        suffixed = False
    if suffixed and re.search(r"([^aeiouylsz])\1$", w) and len(w) > 3:
        w = w[:-1]  # scrubbing/scrub, stopped/stop (not added/add)
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def tokens(text: str) -> list[str]:
    """All stemmed word and number tokens of `text`, in order (ordinal suffixes dropped)."""
    s = normalize(text)
    s = re.sub(r"'s\b", "", s)
    s = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", s)
    s = s.replace("&", " and ")
    s = re.sub(r"~\s?(?=[$\d])", " approximately ", s)  # "~20%" says "approximately 20%"
    s = re.sub(r"(?<=\d)\s?%", " percent", s)  # "20%" is "20 percent", word for word
    return [stem(t) for t in re.findall(r"[a-z]+|\d+(?:\.\d+)?", s)]


_HTML_MARKUP = [
    (re.compile(r"(?i)<br\s*/?>"), "\n"),
    (re.compile(r"(?i)</?p\s*>"), "\n\n"),
    (re.compile(r"(?i)</?(?:b|strong)\s*>"), "**"),
    (re.compile(r"(?i)</?(?:i|em)\s*>"), "*"),
    (re.compile(r"(?i)<li\s*>"), "\n- "),
    (re.compile(r"(?i)</?(?:ul|ol|li|div|span)\s*>"), "\n"),
]


def as_markdown(text: str) -> str:
    """A response as the Markdown the rules read: HTML line breaks, paragraphs, bold, italics and
    list items ("<br>", "<p>", "<b>", "<li>") and entities ("&amp;", "&nbsp;") as Markdown and
    text; non-breaking spaces as spaces, and a run of spaces inside a line as one; "__7 PM__" and
    "_two weeks_" as "**7 PM**" and "*two weeks*"; a negation in bold or italics ("You did
    **not** mention it") and a number in bold before its unit ("**7** PM") as plain words, and
    without inline citations ("[Session 2]", "[3]") or horizontal rules; a line break inside a
    sentence, as text wrapped at a fixed width has them, as a space. A style changes no answer,
    so every style reads the same way. An underscore inside a word or an id
    ("answer_54f0d6f9_1") stays."""
    if "<" in text:
        for tag, markdown in _HTML_MARKUP:
            text = tag.sub(markdown, text)
    if "&" in text:
        text = html.unescape(text)
    text = DIGIT_GROUP_SPACE.sub(",", text)
    text = _THEMATIC_BREAK.sub("", text)
    text = re.sub(_NO_BREAK_SPACE, " ", text)
    text = re.sub(r"(?<=\S)[ \t]{2,}", " ", text)  # "one.  Two": spacing, not structure
    text = re.sub(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])", lambda m: "*" * len(m.group(0)), text)
    text = _INLINE_CITATION.sub("", text)
    text = _unwrapped(text) if "\n" in text else text
    return _EMPHASISED_NUMBER.sub(r"\1", _EMPHASISED_NEGATION.sub(r"\1", text))


# A horizontal rule ("---", "***", "___" on a line of its own) sets parts apart and says nothing:
# it is read as the blank line it stands for.
_THEMATIC_BREAK = re.compile(r"(?m)^[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")


# A line break inside a sentence, as a response wrapped at a fixed width has them ("you had been
# taking classes for\nabout 6 weeks"): Markdown reads it as a space, and so do the rules. Only
# where the sentence plainly goes on: the line before ends in no stop or colon and is no heading,
# table row or line of bold alone; the line after starts no list item, heading, quote or table
# row, and opens with a small letter or a number, or follows a comma or a word no sentence ends
# on ("in\nFebruary"). A capital after another word may start a line on purpose ("Total: 10
# years\nPlease confirm"), so that break stays.
_BLOCK_LINE = re.compile(r"^\s*(?:#|\||```|>|[*_]{1,3}[^*_\n]+[*_]{1,3}[\s:]*$)")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•]\s|[#>|]|```|\d+[.)]\s)")
_OPEN_ENDED = re.compile(
    r"(?:,|\b(?:the|a|an|of|to|in|on|at|with|for|from|by|and|or|but|than|as|was|were|is|are|"
    r"your|my|his|her|their|its|that|this|about|between|since|until|during|into|via|called|"
    r"named))[*_]*\s*$",
    re.IGNORECASE,
)


def _goes_on(before: str, line: str) -> bool:
    """Whether `line` continues the sentence of the line `before` it (see _BLOCK_LINE)."""
    start = line.lstrip()[:1]
    if not start or not before.strip() or _BLOCK_LINE.match(before) or _BLOCK_START.match(line):
        return False
    if before.rstrip().endswith((".", "!", "?", ":", ";")):
        return False
    return start.islower() or start.isdigit() or bool(_OPEN_ENDED.search(before))


def _unwrapped(text: str) -> str:
    """`text` with the line breaks inside its sentences read as spaces (see _goes_on), and in
    text wrapped at a fixed width, every break the width made (see _wrap_width)."""
    lines = text.split("\n")
    width = _wrap_width(lines)
    out = lines[:1]
    for before, line in zip(lines, lines[1:]):
        if _goes_on(out[-1], line) or (width and _overflowed(before, line, width)):
            out[-1] = out[-1].rstrip() + " " + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)


def _overflowed(before: str, line: str, width: int) -> bool:
    """Would the first word of `line` have pushed the line `before` it past `width`? Then a
    wrapper broke the line there ("on **Valentine's\nDay**"), unless `line` opens a block."""
    words = line.split(maxsplit=1)
    return (
        bool(words and before.strip())
        and not _BLOCK_START.match(line)
        and not line.lstrip().startswith("<")
        and len(before.rstrip()) + 1 + len(words[0]) > width
    )


def _wrap_width(lines: list[str]) -> int | None:
    """The width `lines` were wrapped at, taken as their widest: None when they were not, that
    is when the widest is over 100 columns (or under 40), or fewer than two breaks overflowed."""
    width = max((len(line.rstrip()) for line in lines), default=0)
    if not 40 <= width <= 100:
        return None
    breaks = sum(_overflowed(a, b, width) for a, b in zip(lines, lines[1:]))
    return width if breaks >= 2 else None


# An inline citation of where the response read something: "[Session 2]", "[3]", "[^3]",
# "[1, 4]", "【2】", "(Session 3)", "(sessions 2 and 5)". It says nothing of the answer, and its
# number counts nothing. (A bare number in parentheses may be part of what is said, "(2 of
# them)": not one.)
_CITED = r"(?:sessions?|sources?|messages?|refs?|chunks?|excerpts?|docs?)\s*#?\s*\d+"
_CITED_MORE = rf"(?:\s*(?:,|;|and|&|-|–)\s*(?:{_CITED}|\d+))*"
_INLINE_CITATION = re.compile(
    rf"(?i)[ \t]*(?:\[\s*\^?\s*(?:{_CITED}|\d+){_CITED_MORE}\s*\]|【\s*\d+{_CITED_MORE}\s*】|"
    rf"\({_CITED}{_CITED_MORE}\))"
)
# ... and a number in bold before its unit of time or its percent sign ("**1.5** hours", "**7**
# PM"): the unit is part of the value. Before another word the bold marks the answer ("a total of
# **17** social media break days"), so it stays.
_EMPHASISED_NUMBER = re.compile(
    r"(?i)\*{1,3}(\d[\d.,:]*)\*{1,3}(?=[ \t]*(?:[ap]\.?m\b|%|percent\b|"
    r"(?:second|minute|hour|day|week|month|year|weekend)s?\b))"
)
_EMPHASISED_NEGATION = re.compile(
    r"(?i)\*{1,3}((?:[a-z]+ )?(?:not|never|no|none|nothing|cannot|[a-z]+n['’]t))\*{1,3}(?![\w*])"
)


# Words whose number names a part rather than counts: "Session 24" of the history, "Step 2" of a
# reasoning transcript, "Message 3" of the retrieved ones.
LABEL_WORDS = r"sessions?|steps?|messages?|chunks?|excerpts?|snippets?"
_LABEL_NUMBER = re.compile(
    rf"\b({LABEL_WORDS})[\s*_#]*\d+\b(?!\s*(?:minutes?|hours?|days?|weeks?|months?|years?|times?)\b)"
)


# Words that deny what follows ("not 3", "it wasn't the Sony", "rather than TikTok", "I have no
# record of Veja"): a value or name named only to be denied is not the response's answer.
DENIED_BEFORE = re.compile(
    r"(?:\bnot|n't|\brather than|\binstead of|(?<!none )(?<!no )\bother than|\bno longer|"
    r"(?:\bno|n't (?:have|see)|\bnot (?:have|see)) (?:any )?(?:record|mention|trace|sign) of)"
    r"(?:\s+(?:the|a|an|on|at|in|to|with|from|your|my|be|been|was|were|is|are)){0,2}"
    r"(?:[\s*_\"'(~]*(?:usd|us\$|\$))?[\s*_\"'($~]*$"  # ("not USD 400,000": its currency)
)


# What a value changed from: "you switched gyms from X", "up from 25", "after updating from 25",
# "you had advanced from the 20 videos".
CHANGED_FROM = (
    r"\b(?:up|down|rose|fell|grew|went|(?:switch|mov|chang|upgrad|transition|updat|increas|"
    r"decreas|dropp|advanc|progress|improv|climb|jump)\w*)(?: \w+){0,2} from\b"
)


# A label the response puts on the value now: "Current: 3", "Latest: 1,300", "currently it's
# 3". Not "you said you currently own 3": that reports an earlier statement.
CURRENT_LABEL = (
    r"(?:\b(?:current(?:ly)?|now|latest|most recent(?:ly)?|as of (?:today|now))"
    r"(?: (?:value|count|total))?[\s*_]*[:|]"
    r"|\b(?:currently|now|these days),? (?:it's|it is|that's|that is|it stands at|you're at|"
    r"you are at)"
    r"|\b(?:current|latest|new|updated|most recent) (?:value|count|total|number|figure|tally)"
    r"(?: is| stands at| of)"
    # "your current personal best time in the charity 5k run is" (not "the current date is")
    r"|\b(?:your|the) (?:current|latest|most recent) (?!(?:date|day|time|year|month|week)\b)"
    r"(?:[a-z0-9']+ ){1,10}(?:is|stands at)\b)"
)


# How sure the speaker is, not a condition or a negation of what is said: "if I recall
# correctly", "if I'm not mistaken", "I'm not 100% sure, but".
EPISTEMIC_HEDGE = re.compile(
    r"\bif i (?:recall|remember)(?: correctly| right)?\b|\bif i(?: a|')m not mistaken\b|"
    r"\bi(?: a|')m not (?:100% |completely |entirely |totally )?(?:sure|certain)\b"
)


# A word that turns a sentence from one thing to another: "I didn't find the date, but it was in
# May", "You didn't fix the mountain bike; however, ...".
TURN = re.compile(r"\b(?:but|however|although|though)\b", re.IGNORECASE)


# A list's item number ("2.", "2)"): not inside a number ("3.2"), a date ("5.10") or a run of
# numbers ("1,2)").
LIST_NUMBER = r"(?<![\w.,])\d{1,2}[.)](?=\s)"


# A lead-in that says nothing of the answer ("Based on our chats, ", "Unfortunately, ", "If I
# recall correctly, ", "I'm not 100% sure, but ", "As of our last conversation, ", "Having checked
# your notes, ").
LEAD_IN = (
    r"(?:(?:(?:based on|according to|from|looking at|unfortunately|sadly|actually|well|"
    r"as far as i|as of|in|after|per|checking|reviewing|searching|going (?:through|over)|"
    r"having (?:checked|reviewed|searched|looked|gone)|to (?:my|the best of my) knowledge)\b|"
    rf"{EPISTEMIC_HEDGE.pattern})[^,.!?;:\n]{{0,40}},\s*(?:but\s+)?|"
    # "To answer your question:", "In answer to your question,"
    r"(?:to answer|in (?:answer|reply|response) to|answering) (?:your|the|this) question"
    r"[^,.!?;:\n]{0,30}[:,]\s*)"
)


# How a response says a value changed, in the past tense (advice, "increase it to 7", changes
# nothing): "updated", "grew", "bumped", "switched".
CHANGED = (
    r"(?:updated|changed|revised|increased|decreased|raised|lowered|bumped|adjusted|corrected|"
    r"grew|grown|rose|risen|fell|fallen|dropped|jumped|climbed|expanded|reduced|shrank|shrunk|"
    r"switched|moved)"
)


# Words after a value that date it as earlier: "600 at first", "it was 600 before.", "you were at
# FitHub previously;", "you mentioned 600, but that was before." (the sentence ends there, so
# "before the trip" is no such word).
FORMER_AFTER = re.compile(
    r"^(?::\d{2})?[\w' -]{0,30}?"
    r"(?:(?:,\s*(?:but|though|although) (?:that|this|it) (?:was|were|is|'s) )?"
    r"\b(?:at (?:first|1st)|before|previously|earlier|originally|initially|in the past)\b"
    r"\s*(?:[.;,!)]|$)"
    r"|\b(?:is|was|were|'s) (?:the |your )?(?:earlier|old|older|previous|original|former|initial|"
    r"outdated) (?:one|1|value|count|total|number|figure|answer|amount)\b"
    r"|\b(?:is|was) (?:now )?(?:out of date|outdated|superseded)\b"
    # what it became: "4 → 7", "4 initially, later updated to 7", "Boston, but you've since moved
    # to Denver", "the suburbs, but it's since become X"; in the past tense, so advice ("4;
    # increase it to 7") changes nothing, and about the value itself ("it", not "your schedule")
    r"|\s*(?:→|->|=>|⟶|➔|➜)"
    r"|(?:[,;]|\b(?:and|but|then|later|since)\b)[\w' ,-]{0,25}?"
    rf"\b{CHANGED}(?: (?:it|that|this|them|up|down|back|over))*\s+(?:to|into)\b"
    r"|(?:[,;]|\b(?:and|but|then|later|since)\b)[\w' ,-]{0,25}?\b(?:became|become)\b)"
)
# What a value changed from, after the value it changed to: "bumped it up to 7 from 4", "you
# moved to Denver from Boston".
NEW_THEN_FROM = r"\bto\b[^.;:\n]{1,40}?\bfrom(?:\s+(?:the|a|an|your|my))?[\s*_:$~\"']*$"


# Words that call what follows a former value ("previously 4", "your old gym, FitHub"); the
# history's own "previous conversations" are no such value, nor is what was told before ("as you
# mentioned earlier, Paris", "what you shared previously"): the word dates the telling. "At
# first" is none either: it opens a sequence ("at first X, then Y") whose last value is the new
# one (and normalised text reads it "at 1st"); after a value it is one ("X at first").
FORMER_MARKER = (
    r"(?<!mentioned )(?<!said )(?<!told me )(?<!told us )(?<!shared )(?<!noted )(?<!stated )"
    r"(?<!wrote )(?<!discussed )"
    r"\b(?:previous(?:ly)?|earlier|prior|old|original(?:ly)?|used to|formerly|initially|"
    r"before that|before then|(?<![\w,] )before,|"
    r"after (?:it|that|this) (?:was|had been))(?![\w-])(?![\s*_]+(?:conversation|session|chat|"
    r"message|discussion|exchange|interaction|record|note)s?\b)"
)
# Words between a former value's marker and a value that turn to the value now: "initially 4,
# later updated to 7", "you used to go on Wednesday, but now it's Friday".
TURN_TO_NOW = r"(?:but|now|currently|today|however|later|then|since|updated|changed|revised)"


def without_label_numbers(text: str) -> str:
    """The normalised text with the numbers that name a part dropped ("session 3" -> "session")."""
    return _LABEL_NUMBER.sub(r"\1", normalize(text))


# An opening that says nothing about the question: a greeting or acknowledgement ("Sure!",
# "Great question!", "Hi there,"), a heading ("## Answer", "**Answer**") or a status line. The
# response opens with the sentence after it.
GREETING = (
    r"(?:sure|of course|certainly|absolutely|okay|ok|alright|all right|hi|hello|hey|"
    r"(?:great|good) question|thanks?(?: you)?(?: for (?:asking|your question))?|"
    r"happy to help|glad to help|let me (?:check|see|look)(?: into (?:it|that))?)"
    r"(?: there| thing)?"
)
_MARKUP = r"[\s*_>#•-]*"  # list bullets, emphasis, quote marks and heading marks before a line
# A status line ("Searching memory...", "Let me check my notes…") is no sentence of the answer.
_STATUS = r"(?:\w+ ){0,3}?(?:search|check|look|retriev|recall|think|review|scann)ing\b.*(?:\.{3}|…)"
# Notes a response adds about itself: where it looked and how sure it is ("Sources: session 3",
# "Confidence: high", "Note: this is based on the information in my memory.", "I'm fairly
# confident in this, but ...", "Note: I only have access to our past conversations."). A note
# that qualifies the answer ("Note: the count may now be 38") is not one.
_NOTE_ON_ITSELF = (
    r"[\W_]*(?:(?:[a-z]+ )?(?:sources?|citations?|references?|confidence(?: level| score)?)"
    r"(?: [a-z]+)?[*_]*\s*[:：]|p\.?s\.?[:,]?\s|"  # ("Memory sources: ...", a postscript)
    r"(?:(?:please )?note:?\s*)?(?:(?:(?:this|that|my) (?:answer |response |summary )?is|"
    r"(?:these|my) (?:answers|findings|details) are) based (?:only |solely |entirely )?on\b|"
    r"i(?:'m| am) (?:fairly|reasonably|quite|pretty|very|not (?:entirely|completely|100%)) "
    r"(?:confident|sure|certain) (?:in|about|of) (?:this|that|my answer|the answer)\b|"
    r"i (?:only )?have access (?:only )?to (?:our|your|the) (?:past |previous |earlier )?"
    r"(?:conversations|chats|sessions|messages|history)\b)|"
    # a footer on how the response was made ("_Last updated: 2023-05-30_", "Generated from 12
    # retrieved sessions", "(Retrieved 5 memories)") and a signature ("— Your assistant")
    r"(?:last )?(?:updated|checked|synced|refreshed)\s*[:：]|"
    r"(?:(?:this |the )?(?:answer|response|summary) (?:was |is )?)?(?:generated|powered|written|"
    r"produced|created|compiled) (?:by|from|with|using)\b|"
    r"(?:answered|generated|retrieved|searched|consulted|used|based on|drawn from) "
    r"(?:using |from |on )?\d+ (?:\w+ ){0,2}(?:memories|sessions|messages|documents|results|"
    r"snippets|entries|sources|conversations|chats)\b|"
    r"(?:—|--|~)\s*[A-Za-z][\w' .-]{0,40}$)"
)
# A line that announces what follows ("Here's what I found:") or apologises for an earlier turn
# ("I apologize for any confusion earlier.") says nothing of the answer either.
ANNOUNCEMENT = (
    r"here(?:'s| is) (?:what|everything) (?:i|we) (?:found|know|have|could find|see|recall)\b"
    r"[^.!?\n]{0,40}[:.]?|"
    r"(?:i )?(?:apologi[sz]e|(?:i'm |i am )?sorry) for (?:any |the )?(?:confusion|"
    r"misunderstanding|mix-?up|delay)(?: earlier| before)?[.!]?"
)
_PREAMBLE = re.compile(
    # (a bold line that ends its sentence inside the bold is a sentence, not a heading: "**I
    # cannot answer this.**")
    rf"(?i){_MARKUP}(?:{GREETING}[.!:,]*(?:\*\*)?|#+ .*|\*\*[^*]+(?<![.!?])\*\*:?|{_STATUS}|"
    rf"{ANNOUNCEMENT}|"
    rf"{_NOTE_ON_ITSELF}[^\n]*)"
)
# What may label a line that restates the question, after a greeting or not: "Question:",
# "You asked:", "Q:", "Re:" (the line's words, lower-cased and without punctuation).
_ECHO_LEAD = re.compile(rf"(?:{GREETING}\s*)?(?:(?:your |the )?question|you asked(?: me)?|q|re)?")


def without_question_echo(text: str, question: str) -> str:
    """`text` without the lines that restate `question` ('**Question:** Which came first, A or
    B?'): the question's own words name every option and every item, and answer nothing. A line
    may restate all of it or only what it asks, without the words around it ("Hi!", "Thanks!")."""
    restated = {
        " ".join(re.findall(r"\w+", normalize(q))): (re.findall(r"\w+", q.lower()) or [""])[-1]
        for q in (question, asked_part(question))
    }
    restated.pop("", None)
    if not restated:
        return text
    kept = []
    for line in text.splitlines():
        # A restatement holds the question's own last word; only such lines are worth normalising.
        if not any(last in line.lower() for last in restated.values()):
            kept.append(line)
            continue
        said = " ".join(re.findall(r"\w+", normalize(line)))
        if any(
            said.endswith(asked) and _ECHO_LEAD.fullmatch(said[: len(said) - len(asked)].strip())
            for asked in restated
        ):
            continue
        kept.append(line)
    return "\n".join(kept)


# A line a response opens with about itself: a greeting, a Markdown heading, a status line, an
# announcement or a note on itself (a bold line can hold the answer, so it stays).
_SELF_LINE = re.compile(
    rf"(?i){_MARKUP}(?:{GREETING}[.!:,]*|#+ .*|{_STATUS}|{ANNOUNCEMENT}|{_NOTE_ON_ITSELF}.*)"
)
_NOTE_LINE = re.compile(rf"(?i)^{_NOTE_ON_ITSELF}")


def without_notes(text: str) -> str:
    """The response without the lines it adds about itself: an opening status line, greeting or
    heading ("Searching memory...", "## Answer") and closing notes ("Sources: session 3",
    "Confidence: high"). Their words ("memory", "sources") say nothing of the user."""
    lines = (text or "").strip().splitlines()
    while len(lines) > 1 and (not lines[0].strip() or _SELF_LINE.fullmatch(lines[0].strip())):
        lines.pop(0)
    paragraphs = re.split(r"\n\s*\n", "\n".join(lines).strip())
    while len(paragraphs) > 1 and _NOTE_LINE.match(paragraphs[-1].strip()):
        paragraphs.pop()
    return "\n\n".join(paragraphs)


# Abbreviations whose full stop ends no sentence: "the training pads (a month ago, vs. the dog
# bed three weeks ago)" is one sentence, "e.g. the lamp", "Dr. Patel" and "St. Mary's" are
# inside one.
_STOP_ABBREVIATIONS = ("vs", "e.g", "i.e", "approx", "cf", "mr", "mrs", "ms", "dr", "st")
_SENTENCE_END = re.compile(
    # (a sentence in bold or italics ends after its closing marks: "**I can't say.** You ...")
    r"(?:(?<=[.!?])|(?<=[.!?][*_])|(?<=[.!?][*_]{2}))"
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _STOP_ABBREVIATIONS)
    + r"\s+",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """The text's sentences and lines, in order, without empty ones. A Markdown heading is one,
    whatever dots it holds ("### 1. Answer")."""
    return [
        s
        for line in text.strip().splitlines()
        for s in ([line] if _HEADING_LINE.match(line) else _SENTENCE_END.split(line))
        if s.strip()
    ]


_HEADING_LINE = re.compile(r"\s*#{1,6}\s")


# An opening before a colon when what follows asks: "Quick question: which ...?", "Can you
# remind me: how many ...?", "Quick question: Before I bought it, ...?". Not an opening that
# asks itself ("Which came first: the blender or the toaster?", "What time did I set: 6:30 or
# 7?"), where the colon's right side is the options.
_WH_WORD = r"which|what|who|whom|whose|where|when|how|why"
_ASKING_WORD = (
    rf"{_WH_WORD}|do|does|did|is|are|was|were|am|can|could|have|has|had|should|would|will"
)
_OPENING_BEFORE_ASKING = re.compile(
    rf"^(?!\s*(?i:{_WH_WORD})\b)[^:?\n]*:\s+(?=[A-Z]|(?i:{_ASKING_WORD})\b)"
)
# An indirect question's opening: "Can you remind me which ...?", "Do you remember how many
# ...?", "I was wondering what ...?". What it asks is the wh-clause.
_INDIRECT_OPENING = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?(?:remind|tell) me(?: again)?|"
    r"do you (?:happen to )?(?:remember|recall|know)|i(?:'m| am| was)? (?:wondering|wonder)|"
    rf"i(?:'d| would) like to know),? (?=(?:{_WH_WORD})\b)",
    re.IGNORECASE,
)
# "please" asks nothing: "..., A or B, please?", "Please, which ...?"
_PLEASE = re.compile(r"^please,?\s+|,?\s+please(?=[\s*_]*\?)", re.IGNORECASE)


def asked_part(question: str) -> str:
    """What a question asks: its sentences that end in a question mark (or the last one, when it
    ends with no mark at all). The sentences around them ("Hi!", "I'm trying to remember
    something.", "Thanks!") ask nothing, and nor do a "please", an opening before a colon or an
    indirect question's opening ("Can you remind me which ...?": "which ...?"). The whole
    question when no sentence asks."""
    found = sentences(question)
    asking = [
        _INDIRECT_OPENING.sub("", _OPENING_BEFORE_ASKING.sub("", _PLEASE.sub("", s.strip())))
        for i, s in enumerate(found)
        if (end := s.rstrip(" *_\"')")).endswith("?")
        or (i == len(found) - 1 and not end.endswith((".", "!")))
    ]
    return " ".join(asking) if asking else question.strip()


def first_sentence(text: str) -> str:
    """The response's opening sentence (or line), where it declines or says what is missing."""
    for sentence in (found := sentences(text)):
        if not _says_nothing(sentence):
            return sentence
    return found[0] if found else ""


def _says_nothing(sentence: str) -> bool:
    """Is `sentence` no part of an answer? "1." of a numbered list is no sentence; a greeting,
    heading or status line says nothing, nor does a note that nothing later changed the answer,
    nor what the response says it does to find one."""
    return (
        not re.search(r"[^\W\d_]", sentence)
        or bool(_PREAMBLE.fullmatch(sentence.strip()))
        or says_only_no_later_change(sentence)
        or (bool(_NARRATION.match(sentence)) and not says_missing(sentence))
    )


# What the response says it does or did to find the answer ("I'll read the full prompt first",
# "Let me work through the sessions", "I checked the later sessions for any update"): unless
# it says what it could not find, it is no opening.
_NARRATION = re.compile(
    rf"(?i)^[\W_]*(?:{LEAD_IN}[\W_]*)*(?:i(?:['’]ll| will| am going to|['’]m going to)|let me|"
    r"i(?: first)? (?:checked|searched|scanned|looked|reviewed|read|went through))\b"
)


def says_only_no_later_change(text: str) -> bool:
    """Is `text` only a note that nothing later changed the answer ("No later session updates
    this.", "Nothing later revises the count.")? It is about the answer, not part of it."""
    said = plain(text)
    rest = without_no_later_change(said)
    return rest != said and not content_tokens(rest)


# Words that frame a reference's number without adding to it: an approximation ("approximately
# 20%", "roughly $50") and a total ("132 points in total", "a total of $185"). A response need
# not repeat them: "About 20%" answers "approximately 20%".
_QUANTITY_FRAMING = re.compile(
    r"\b(?:approximately|approx\.|roughly|around|circa|a total of)\s+"
    rf"(?=[~$£€]?\d|(?:{_NUMBER_WORD})\b)|"
    r"\s*\b(?:in total|altogether|in all)\b(?=\s*(?:[.,;)]|$))",
    re.IGNORECASE,
)


def without_quantity_framing(reference: str) -> str:
    return _QUANTITY_FRAMING.sub(" ", reference)


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS]


def split_acceptable(answer: str) -> tuple[str, str]:
    """'30 days. 31 days (including the last day) is also acceptable.' -> (main, alternatives)."""
    parts = re.split(r"(?<=[.;])\s+", answer.strip())
    main = [p for p in parts if "acceptable" not in p.lower()]
    alts = [p for p in parts if "acceptable" in p.lower()]
    return " ".join(main) or answer, " ".join(alts)


# Where a reasoning transcript gives its answer: "**Step 3: Draw a conclusion**", "Final answer:",
# "In conclusion", "Therefore". The last such marker starts the conclusion.
_CONCLUSION = re.compile(
    # ("Answer: 4", "**Answer**", "Answer 2: 4", "Answer — 4"; not "Answer generated by ...")
    r"(?im)^[\W_]*(?:step \d+\W+(?:\w+ ){0,3}(?:conclusion|answer)\b|"
    r"(?:final )?answer\b(?: \d+)?[*_]*\s*(?:[:：—–-]|is\b|$)|"
    r"(?:in )?conclusion\b|therefore\b|thus\b|in summary\b|to summari[sz]e\b|"
    # a line that labels the sum of what was listed: "**Total: about 11 weeks**", "Total time:"
    r"(?:grand )?total(?: [a-z]+){0,2}[*_]*\s*[:：])"
    r"|(?:^|(?<=[.!?]\s))(?:therefore|thus|in conclusion)\b"
    # "..., so my final answer is: X" names its answer mid-sentence
    r"|\b(?:my|the) final answer\b"
)


def conclusion(text: str) -> str:
    """The part of a response after its last conclusion marker; the whole text if it has none."""
    marks = list(_CONCLUSION.finditer(text or ""))
    return text[marks[-1].start() :] if marks else text


# How a response labels the part that is its answer: a JSON object's "answer" field, an
# `<answer>` tag, or an "Answer:" line that a labelled explanation follows ("Answer: 4\n
# Reasoning: you listed 3 road bikes and 1 mountain bike"). What the label sets apart as
# reasoning, evidence or a confidence note is not the answer. A "Note:" or "Details:" section is
# not one of those: it can qualify the answer ("Note: the count may now be 38").
_JSON_ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "final answer", "response", "result")
_JSON_LIKE = re.compile(
    r"""^\s*(?:```(?:json)?\s*)?\{\s*["']?(?:final[_ ]?)?answer["']?\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^,}\n]+))"""
)
_ANSWER_TAG = re.compile(r"<(?:final_)?answer>(.*?)</(?:final_)?answer>", re.DOTALL | re.IGNORECASE)
# (a greeting, an apology, a lead-in or a list number before the label on its line leaves it the
# label: "Sure! **Answer: 11 weeks**")
_ANSWER_LINE = re.compile(
    rf"(?im)^[\W_]*(?:(?:{GREETING}[.!,]*|{ANNOUNCEMENT}|{LEAD_IN}|\d+[.)])[\W_]*)?"
    r"(?:(?:final |short |direct )?answer|tl;?dr)[*_]*\s*[:：][*_]*"
)
_SECTION_LINE = re.compile(
    r"(?im)^[\W_]*(?:reasoning|explanation|rationale|justification|evidence|sources?|long answer|"
    r"confidence(?: level| score)?|supporting evidence|why|"
    r"how i (?:got|found) (?:it|this|there))[*_]*\s*[:：]"
)


# A closing paragraph that offers more help ("Let me know if you need anything else!", "Hope this
# helps."), signs off ("Best regards,") or is a note on the response itself (_NOTE_ON_ITSELF): it
# says nothing of the answer.
_OFFER = (
    r"[\W_]*(?:let me know|feel free|(?:i )?hope (?:this|that) helps|is there anything else|"
    r"would you like|(?:i'm |i am )?happy to help|if you (?:have|need)|"
    r"(?:best|kind|warm)(?:est)? regards\b|regards,|cheers[,!]|sincerely,|best wishes\b)"
)
# (the whole last paragraph: a sign-off's name on the line after it too)
_CLOSING_OFFER_OR_NOTE = re.compile(
    rf"(?is)\n\s*\n(?:{_OFFER}|{_NOTE_ON_ITSELF})(?:(?!\n\s*\n).)*$"
)


def without_closing_notes(text: str) -> str:
    """`text` without the closing offers and notes after its last paragraph of substance: a
    note on itself ("Sources: ...") or that nothing later changed the answer."""
    paragraphs = re.split(r"\n\s*\n", _CLOSING_OFFER_OR_NOTE.sub("", text).strip())
    while len(paragraphs) > 1 and says_only_no_later_change(paragraphs[-1]):
        paragraphs.pop()
    return "\n\n".join(paragraphs)


def closing_paragraph(text: str) -> str:
    """The response's last paragraph that says something of the answer, where it can say it
    cannot answer after all. A closing offer to help and notes set apart after it ("Sources:
    session 3", "Confidence: high") are not that paragraph."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", (text or "").strip()) if p.strip()]
    while len(paragraphs) > 1 and (
        re.match(_OFFER, paragraphs[-1], re.IGNORECASE)
        or _SECTION_LINE.match(paragraphs[-1])
        or _NOTE_LINE.match(paragraphs[-1])
        or says_only_no_later_change(paragraphs[-1])
    ):
        paragraphs.pop()
    return paragraphs[-1] if paragraphs else ""


def _json_object(text: str) -> object:
    """The JSON value a response is made of (in a code fence or not); None if it is not one."""
    try:
        return json.loads(re.sub(r"^\s*```(?:json)?|```\s*$", "", text.strip()))
    except ValueError:
        return None


# A tag around the whole response ("<response>...</response>", "<output>...</output>"): how a
# pipeline delivers it, not part of what it says.
_ENCLOSING_TAG = re.compile(r"^\s*<([A-Za-z][\w-]*)>\s*(.*?)\s*</\1>\s*$", re.DOTALL)


def repaired(text: str) -> str:
    """A response as its writer wrote it, whatever happened to it on the way to the file:
    mojibake undone ("donâ€™t" is "don’t", by ftfy), the escaped line breaks of a response
    serialised twice ("You have 3.\\n\\nThey are ...") read as line breaks, and a tag
    around all of it taken off."""
    if not text.isascii():
        text = ftfy.fix_text(text)
    if "\n" not in text and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n").replace('\\"', '"')
    enclosed = _ENCLOSING_TAG.match(text)
    return enclosed.group(2) if enclosed else text


def unwrapped_json(text: str) -> str:
    """A response that is a JSON object with its answer as the only field ('{"answer": "You
    mentioned ...\\n\\n- ..."}') as the text of that answer, its escaped line breaks and
    quotes as they read: the object is how the response is delivered, not what it says. Any
    other response as it is (stated_answer reads an answer field beside others)."""
    if not _JSON_LIKE.match(text or ""):
        return text
    obj = _json_object(text)
    if isinstance(obj, dict) and len(obj) == 1:
        ((key, value),) = obj.items()
        if key.lower() in _JSON_ANSWER_KEYS and isinstance(value, str):
            return value
    return text


def stated_answer(text: str) -> str:
    """The part of a response that it labels as its answer; the whole text when it labels none."""
    m = _JSON_LIKE.match(text or "")
    if m:
        obj = _json_object(text)
        if isinstance(obj, dict):
            for key, value in obj.items():
                if key.lower() in _JSON_ANSWER_KEYS and value is not None:
                    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        found = next((g for g in m.groups() if g is not None), "").strip()
        if found and found != "null":
            return found
    tags = _ANSWER_TAG.findall(text or "")
    if tags and tags[-1].strip():
        return stated_answer(tags[-1].strip())
    labels = list(_ANSWER_LINE.finditer(text or ""))
    if labels:
        after = text[labels[-1].end() :]
        section = _SECTION_LINE.search(after)
        if section and _CONCLUSION.search(after[section.end() :]):
            # "Final Answer: ... **Reasoning:** ... Therefore, 14 days": a section that reaches
            # a conclusion is the reasoning the answer is made of, not notes set apart from it.
            section = None
        answer = after[: section.start()] if section else after
        # The label cuts at a labelled explanation, opens the response ("Answer: N/A"), or
        # closes it (no paragraph after its own), so notes appended after it change nothing.
        closes = "\n\n" not in without_closing_notes(answer)
        # "Final Answer:" ends an agent's trace ("Thought: ... Observation: ... Final Answer:")
        final = "final" in labels[-1].group(0).lower()
        opens = not text[: labels[-1].start()].strip()
        if (section or closes or final or opens) and answer.strip():
            return answer.strip()
    return text


# Taking back what was just said: disowning it ("Actually, no", "Hmm, no", "scratch that",
# "disregard that", "never mind", "I take that back", "or rather", "Correction:"), owning a
# mistake ("I was wrong", "I misspoke", "I was mistaken", "my mistake", "I got that wrong", "I
# made a mistake") or judging it ("that's not right", "that isn't correct", "that's incorrect",
# "that was a mistake", "I don't think that's right"): what follows the last retraction is the
# answer, and a retraction with nothing after it leaves none. A correction of the question's
# premise reads the same way ("you said 2021, but that is not correct: it was 2022"). "It"
# judges too much else ("it was wrong of them") to be read as judging the answer, except as
# "not right", "not correct" or "not accurate".
_RETRACTION = re.compile(
    r"(?i)\b(?:actually,? no\b|hmm+,? no\b|no,? wait\b|wait,? no\b|(?:scratch|strike) that\b|"
    # ("ignore that warning", "never mind the date" disown nothing: the phrase ends a clause)
    r"(?:(?:please )?(?:disregard|ignore) (?:that|this|what i (?:just )?said)|never ?mind)"
    r"(?=\s*(?:[,.;:!—–-]|$))|"
    r"i take (?:that|it) back\b|,? or rather\b|correction:|"
    r"i was wrong\b|i misspoke\b|i was mistaken\b|i misread\b|i misremembered\b|"
    r"my (?:mistake|bad)\b|"
    r"i got (?:that|it|this) wrong\b|i made (?:a|an) (?:mistake|error)\b|"
    r"i don['’]?t think (?:that|this)(?:['’]s| is) (?:right|correct|accurate)\b|"
    # ("that isn't right", "this wasn't correct": the contraction as well; "if that's not
    # accurate, tell me" supposes, it takes nothing back)
    r"(?<!\bif )(?<!\bunless )(?<!\bin case )(?:that|this|it)(?:(?:'s|’s| is| was) not|"
    r"(?: is| was)n['’]t) (?:right|correct|accurate)\b|"
    r"(?<!\bif )(?<!\bunless )(?<!\bin case )(?:that|this)(?:'s|’s| is| was) "
    r"(?:wrong|incorrect|inaccurate|an? (?:mistake|error))\b)"
)


def _after_last(pattern: re.Pattern, text: str) -> str | None:
    """What `text` says after the last match of `pattern`; None when nothing matches."""
    marks = list(pattern.finditer(text or ""))
    return text[marks[-1].end() :].strip(" \t\n:;,.-—–") if marks else None


def after_retraction(text: str) -> tuple[str, bool]:
    """(what the response says after its last retraction, whether it retracts anything)."""
    after = _after_last(_RETRACTION, text)
    return (text, False) if after is None else (after, True)


# Where a response settles on an answer after wavering: correcting itself ("Wait, I need to
# correct that: ...", "... — but wait, that is earlier still. So ...", "On second thought, ...")
# or reasoning to one ("..., so the answer is X", "though, the answer is X", "Since ..., the
# answer is X", "That leaves X", "At first I thought X, but actually it was Y"; not "The answer
# is based on your May message", which opens no answer). Unlike a retraction above, the part
# after it is not read instead of the whole: the official judges split on a wrong first answer
# corrected to the right one (gpt-4o accepted one, gpt-4o-mini rejected them), but an answer
# settled on wrong is wrong for both, whatever it named before.
_SETTLES = re.compile(
    r"(?i)(?:^|(?<=[.!?]\s)|(?<=\n)|\bbut,?\s)[*_]*wait\s*[,.!:;—–-]|\bon second thought\b|"
    r"\b(?:i need to|let me) correct (?:that|this|myself)\b|"
    r"(?:\b(?:so|thus|therefore|hence|though|however),?|,) the (?:final |correct )?answer is\b|"
    r"\bthe (?:final |correct )?answer is:|"
    r"\bthat leaves\b|\bbut actually,? (?:it|that|this|the answer)(?: was|'s| is)\b|"
    r"\b(?:but|however),?[^.!?\n]{0,80}?\b(?:it|the answer)(?:'s| is| was) actually\b|"
    r"\bgoing with the (?:latest|most recent|newest)(?: one| value| figure| answer)?\s*[:,]|"
    r"\bthe (?:latest|most recent|updated) (?:answer|figure|count|number|value) is\b|"
    r"\bto (?:directly |simply |briefly )?answer your (?:\w+ )?question(?: directly)?\s*[:,]"
)


# Where a response says what it named was replaced: by a correction or a later update ("but you
# corrected it later: Y", "a more recent message updates that to Y", "you later clarified it
# was Y", "X, but that was superseded by Y", "X is outdated; it's now Y") or by naming the right one
# ("The correct figure, from your later message, is Y"). What follows is the value it settles
# on. A denied one settles nothing: "No later session updates that figure", "You never updated
# it", "Nothing later revises the count".
_REPLACED = re.compile(
    r"(?i)\b(?:correct(?:s|ed)|updat(?:es|ed)|revis(?:es|ed)|amend(?:s|ed)|chang(?:es|ed)|"
    r"overrides|overrode|supersedes|clarifie[sd])"
    r"(?: (?:it|that|this)"
    r"(?: (?:figure|number|count|value|amount|total|answer|date|time|name|one))?)"
    r"(?: later| afterwards| since)?(?: (?:to|with|as)\b|(?=\s*(?:[:,;.—–]|was\b|is\b)))"
    r"|\b(?:it|that|this|which)(?: (?:figure|number|count|value|amount|total|answer))? "
    r"(?:was|has been|had been|got)(?: later| since| then)? "
    r"(?:corrected|updated|revised|amended|changed|overridden|superseded|replaced)"
    r"(?: later| since)? (?:to|by|with)\b"
    r"|\b(?:is|was)(?: now)? (?:outdated|out of date|superseded|no longer (?:accurate|correct|"
    r"current|valid|right|true))\b"
    # a later telling: "your most recent message says B", "then later said it was B"
    r"|\b(?:a|the|your|my) (?:more recent|most recent|latest|later|newer|last) (?:messages?|"
    r"sessions?|conversations?|chats?|notes?|mentions?|updates?|entry|entries|details|"
    r"information|info|records?) (?:says?|said|states?|stated|shows?|showed|gives?|gave|"
    r"puts? it at|points? to|indicates?|changes? it to)\b"
    r"|\blater,? (?:you )?(?:said|told me|mentioned|stated) (?:that )?(?:it was|it's|it is)\b"
    # ("the actual total is likely higher" replaces nothing)
    r"|\bthe (?:correct|right|accurate|most accurate|updated|corrected|revised) "
    r"(?:answer|figure|number|count|value|total|amount|date|time|name|one)\b"
    r"[^.;:\n]{0,40}?\b(?:is|was)\b"
)
# Of those, the ones that say the earlier telling was wrong, not that the value changed since
# ("you corrected it later: B", "it was corrected to B", "the correct figure is B"): for a
# question that asks for an earlier value, B is that value, where after an update ("a more
# recent message updates that to B") the earlier one is.
_CORRECTED = re.compile(
    r"(?i)\bcorrect(?:s|ed)?\b|\b(?:right|accurate) (?:answer|figure|number|"
    r"count|value|total|amount|date|time|name|one)\b"
)
# A denial before it in its sentence: "No later session updates it", "You never changed that".
# ("I'm not sure, but you corrected it later" denies nothing: the clause has turned)
_DENIED_BEFORE = re.compile(
    r"(?i)(?:\b(?:no|nothing|never|not|none|nor|without)\b|n't)"
    r"(?:(?!\b(?:but|however|though|although)\b)[^.!?\n,;—–])*$"
)


def _replacement_ends(text: str, *, corrections_only: bool = False) -> list[int]:
    """Where the response's undenied statements that something was replaced end (with
    `corrections_only`, that the earlier telling was wrong)."""
    return [
        m.end()
        for m in _REPLACED.finditer(text)
        if not _DENIED_BEFORE.search(text[max(0, m.start() - 60) : m.start()])
        and (not corrections_only or _CORRECTED.search(m.group(0)))
    ]


def _after(text: str, ends: list[int]) -> str | None:
    return text[max(ends) :].strip(" \t\n:;,.-—–") if ends else None


def replaced_by(text: str, *, earlier: bool = False) -> str | None:
    """What the response names after the last place it says what it named was replaced ("you
    originally said A, but you corrected it later: B" -> "B"); None when it says none was.
    `earlier`: the question asks for an earlier value, which only a correction replaces."""
    return _after(text or "", _replacement_ends(text or "", corrections_only=earlier))


def settled_answer(text: str, *, earlier: bool = False) -> str | None:
    """What the response says after the last place it settles on an answer (see _SETTLES) or
    says what it named was replaced (see _REPLACED; only a correction, when the question asks
    for an `earlier` value); None when it has none."""
    text = text or ""
    ends = [m.end() for m in _SETTLES.finditer(text)]
    return _after(text, ends + _replacement_ends(text, corrections_only=earlier))
