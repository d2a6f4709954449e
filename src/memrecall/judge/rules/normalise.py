"""Text made comparable, for every rule family: case, punctuation, number words ("three" -> 3,
"twelve thousand" -> 12000, "one hundred and fifty" -> 150, "twice" -> 2 times, "a dozen" -> 1
dozen), multiples ("triple what I paid", "tripled", "threefold", "3x" -> 3 times), youtu.be
links, "$1.5M" and "$2bn", times in words ("seven thirty", "half past seven", "noon" -> 7:30,
12:00 pm), thousands separators, "400 thousand", "$1.2k" and "12k" (not a race's "5K"), a unit's
abbreviation after its number ("45 mins" -> 45 minutes), a.m./p.m. and "7.30am", written dates
("Feb. 1st", "2023-02-01", "2023/02/01" -> february 1; "2023-02-01T09:15" -> february 1, 2023
09:15; "25 March 2023" -> march 25, 2023), "an hour and a half", "half a year", "a quarter of an
hour", "a fortnight", "a decade", "1h30", "per cent" and "pct", a unit glued to its number
("45min", "3wks", "10yrs", "6mos", "27yo"), session ids ("answer_54f0d6f9_1" -> "identifier":
its numbers count nothing), possessives, light plural/-ed/-ing stemming ("scrubbing", "dried" ->
scrub, dry); and the reference's "also acceptable" alternatives (`split_acceptable`).

Where a response says its answer is response.py; the phrases the families read it by are
phrases.py."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .phrases import DENIED_BEFORE

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
NO_BREAK_SPACE = "[\u00a0\u2007\u2009\u202f]"
# ... between groups of digits one separates thousands: "12\u202f000"
DIGIT_GROUP_SPACE = re.compile(rf"(?<=\d){NO_BREAK_SPACE}(?=\d{{3}}(?!\d))")
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
