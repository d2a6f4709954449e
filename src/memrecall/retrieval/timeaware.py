"""Time-aware retrieval without an LLM: a time the question names → a date range → a boost.

Many temporal questions name a time relative to the question date ("a week ago", "in the past
three months", "last Tuesday", "in June"). `time_range(question, question_date)` finds such
expressions with a closed grammar (below), resolves each with dateparser relative to the
question date, and returns the union of their date ranges, or None when the question names no
time. Sessions of that question's haystack dated inside the range (their date in *that*
haystack) get `retrieval.time_boost` added to their min-max normalised score, so a boost above 1
puts every in-range session first (dropping none) and a smaller one lets a much better
out-of-range match stay ahead.

The grammar only accepts expressions anchored to the question date, so an event's name ("the
Sunday mass", "the March 15th issue") or a question about a time ("how many days ago ...") does
not fire:
- `N <unit>(s) ago` (N a number, a/an, a couple of, a few, one..twelve): that day ± half a unit
  (at least `time_pad_days`);
- `[the] last|past|previous [N] <unit>(s)` (not followed by "of"; not "the last day"): from N
  units before the question date to the question date;
- `yesterday`, `last|this past <weekday>|weekend`: those days ± `time_pad_days`;
- `in|during|last|this past <month> [year]`: the latest such month not after the question date.
A session is dated when the user talked about the event, usually on the day or soon after, so
every range is widened by `time_pad_days` on both sides.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

import numpy as np

from ..config import check_int
from ..dates import parse_date
from ..errors import ConfigError

UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_NUM = (
    r"(?P<n>\d{1,3}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_MONTHS = "|".join(calendar.month_name[1:])
_WEEKDAYS = "|".join(calendar.day_name)
PATTERNS = {
    "ago": re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", re.I),
    # "the last day of the trip" / "the last week of June" name no time relative to the question
    "past": re.compile(
        rf"\b(?:the\s+)?(?:last|past|previous)\s+(?:{_NUM}\s+)?{_UNIT}\b"
        rf"(?!\s+of\b)",
        re.I,
    ),
    "yesterday": re.compile(r"\byesterday\b", re.I),
    "weekday": re.compile(rf"\b(?:last|this\s+past)\s+(?P<wd>{_WEEKDAYS}|weekend)\b", re.I),
    "month": re.compile(
        rf"\b(?:in|during|last|this\s+past)\s+(?P<month>{_MONTHS})"
        rf"(?:\s+(?:of\s+)?(?P<year>\d{{4}}))?\b",
        re.I,
    ),
}


@dataclass(frozen=True)
class DateRange:
    start: date
    end: date
    expression: str

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True)
class TimeSettings:
    enabled: bool
    boost: float
    pad_days: int


def time_settings(cfg: dict) -> TimeSettings:
    enabled = cfg["time_aware"]
    if not isinstance(enabled, bool):
        raise ConfigError("retrieval.time_aware", enabled, [True, False])
    boost = cfg["time_boost"]
    if isinstance(boost, bool) or not isinstance(boost, (int, float)) or boost < 0:
        raise ConfigError("retrieval.time_boost", boost, hint="a number >= 0")
    pad = check_int(cfg["time_pad_days"], "retrieval.time_pad_days", minimum=0)
    return TimeSettings(enabled, float(boost), pad)


@lru_cache(maxsize=1)
def _dateparser():
    import dateparser  # imported on first use: it loads its language data (~1 s)

    return dateparser


def _resolve(phrase: str, base: datetime) -> datetime | None:
    return _dateparser().parse(
        phrase,
        languages=["en"],
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": "past",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )


def _count(text: str | None) -> int:
    if text is None:
        return 1
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else _WORDS[text]


def time_ranges(question: str, question_date: str | None, pad_days: int) -> list[DateRange]:
    """Every date range the question names relative to its date (empty when none, or when the
    question date cannot be read)."""
    asked = parse_date(question_date)
    if asked is None or not question:
        return []
    base = asked.replace(hour=12, minute=0, second=0, microsecond=0)
    today, pad = base.date(), timedelta(days=pad_days)
    out: list[DateRange] = []
    for kind, pattern in PATTERNS.items():
        for m in pattern.finditer(question):
            expr = m.group(0)
            if kind in ("ago", "past"):
                n, unit = _count(m.group("n")), m.group("unit").lower()
                if kind == "past" and unit == "day" and m.group("n") is None:
                    continue  # "the last day" is an event's day, not a range
                anchor = _resolve(f"{n} {unit}{'s' if n > 1 else ''} ago", base)
                if anchor is None:
                    continue
                if kind == "ago":
                    half = max(pad, timedelta(days=UNIT_DAYS[unit] / 2))
                    out.append(DateRange(anchor.date() - half, anchor.date() + half, expr))
                else:
                    out.append(DateRange(anchor.date() - pad, today, expr))
            elif kind in ("yesterday", "weekday"):
                day = "yesterday" if kind == "yesterday" else m.group("wd").lower()
                weekend = day == "weekend"  # the Saturday and Sunday before the question date
                anchor = _resolve(
                    "yesterday"
                    if kind == "yesterday"
                    else f"last {'saturday' if weekend else day}",
                    base,
                )
                if anchor is not None:
                    end = anchor.date() + timedelta(days=1 if weekend else 0)
                    out.append(DateRange(anchor.date() - pad, end + pad, expr))
            else:
                first = _month_start(m.group("month"), m.group("year"), base)
                if first is not None:
                    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
                    out.append(DateRange(first - pad, min(last + pad, today), expr))
    return out


def _month_start(month: str, year: str | None, base: datetime) -> date | None:
    """The first day of the named month: in `year` if given, else the latest one that has begun
    by the question date (dateparser prefers the past)."""
    when = _resolve(f"{month} {year}" if year else month, base)
    if when is None:
        return None
    if not year and (when.year, when.month) > (base.year, base.month):
        when = when.replace(year=when.year - 1)
    return date(when.year, when.month, 1)


def question_time_ranges(
    questions, settings: TimeSettings
) -> dict[str, tuple[list[DateRange], dict[str, str]]]:
    """question_id -> (its ranges, {session_id: date in its haystack}) for the questions that
    name a time. Needs `question_date`; without `haystack_dates` no session can be placed in a
    range, so nothing fires."""
    if "question_date" not in questions.columns or "haystack_dates" not in questions.columns:
        return {}
    out = {}
    for qid, text, asked, ids, dates in questions.select(
        "question_id", "question", "question_date", "haystack_session_ids", "haystack_dates"
    ).iter_rows():
        ranges = time_ranges(text, asked, settings.pad_days)
        if ranges:
            out[qid] = (ranges, dict(zip(ids or [], dates or [])))
    return out


def in_range_mask(ranges: list[DateRange], session_dates: list[str | None]) -> np.ndarray:
    """True for each session whose date lies in any of the ranges."""
    out = np.zeros(len(session_dates), dtype=bool)
    for i, text in enumerate(session_dates):
        dt = parse_date(text)
        out[i] = dt is not None and any(r.contains(dt.date()) for r in ranges)
    return out


def boost(scores: np.ndarray, mask: np.ndarray, amount: float) -> np.ndarray:
    """Min-max normalised scores, + amount where mask (scores of any scale: cosine, BM25, RRF)."""
    finite = np.isfinite(scores)
    out = np.full(len(scores), -np.inf)
    if finite.any():
        lo, hi = scores[finite].min(), scores[finite].max()
        out[finite] = (scores[finite] - lo) / (hi - lo) if hi > lo else 0.0
    return out + amount * mask
