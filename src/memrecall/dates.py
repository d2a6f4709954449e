"""Dates, defined once: LongMemEval's date format, how text becomes a datetime, how sessions sort
by date, and which date a session has for a given question.

- `parse_longmemeval` is strict: dataset files must use the format exactly (validation).
- `parse_date` is lenient, for text that is not validated (a model's time range, a hand-made
  table): the LongMemEval format first, so a valid date always gives the same datetime as the
  strict parser, then any `YYYY/MM/DD` or `YYYY-MM-DD` with an optional `HH:MM` after it.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

import polars as pl

DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
EXAMPLE = "2023/05/30 (Tue) 21:56"

_LOOSE = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?:\D+?(\d{1,2}):(\d{2}))?")


@lru_cache(maxsize=65536)  # haystack dates repeat a lot across questions
def parse_longmemeval(value: str) -> datetime:
    """The datetime of a LongMemEval date string; ValueError for anything else."""
    return datetime.strptime(value, DATE_FORMAT)


def parse_date(text) -> datetime | None:
    """A datetime from a LongMemEval date, or an ISO-like date found in the text; else None."""
    text = str(text or "")
    try:
        return parse_longmemeval(text)
    except ValueError:
        pass
    m = _LOOSE.search(text)
    if not m:
        return None
    y, mo, d, hh, mm = m.groups()
    try:
        return datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0))
    except ValueError:
        return None


def date_key(text) -> tuple:
    """Sort key: parseable dates chronologically, anything else after them, by its text."""
    dt = parse_date(text)
    return (0, dt, "") if dt is not None else (1, datetime.min, str(text or ""))


def question_session_dates(
    questions: pl.DataFrame, sessions: pl.DataFrame
) -> dict[str, dict[str, str]]:
    """question_id -> {session_id: date}. A session's date belongs to the (question, session)
    pair: the same session can carry different dates in different haystacks (202 sessions of
    the dev file do), so each question uses its own haystack_dates; sessions.date (the
    earliest) only fills in where a table has no haystack_dates (hand-made tests)."""
    fallback = dict(sessions.select("session_id", "date").iter_rows())
    out: dict[str, dict[str, str]] = {}
    has_own = "haystack_dates" in questions.columns
    cols = ["question_id", "haystack_session_ids"] + (["haystack_dates"] if has_own else [])
    for row in questions.select(cols).iter_rows():
        qid, ids = row[0], row[1] or []
        own = dict(zip(ids, row[2] or [])) if has_own else {}
        out[qid] = {sid: own.get(sid) or fallback.get(sid) for sid in ids}
    return out
