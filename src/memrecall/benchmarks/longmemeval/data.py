"""LongMemEval files: parse, validate, normalise into the questions / sessions / turns tables.

A LongMemEval file is one JSON list of questions; each question carries its whole haystack
(haystack_session_ids, haystack_dates and haystack_sessions, aligned lists). The same chat
session appears in many haystacks, so sessions and turns are stored once, keyed by session_id
and checked by a hash of their text.

Facts about the real files that shaped the choices here (checked on the dev and oracle files):
- `answer` is sometimes an int -> cast to str.
- `has_answer` is often absent on turns (S files mark it only in evidence sessions) -> False.
- One session can carry different dates in different haystacks (202 of the 4,567 sessions of
  the dev file): the date belongs to the (question, session) pair. questions.haystack_dates keeps
  each haystack's own dates; sessions.date is the earliest of them.
- A haystack may list the same session twice (dev file, question 001be529): the repeat is dropped.
"""

from __future__ import annotations

import hashlib
import logging
import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Iterator

import orjson
import polars as pl

from ...data.jsonfile import load_records, read_bytes  # noqa: F401 (this format's readers)
from ...dates import EXAMPLE as DATE_EXAMPLE
from ...dates import parse_longmemeval
from ...errors import InputError
from ...eval.gold import question_gold
from ...schema import polars_schema
from ..base import Normalised
from .categories import QUESTION_TYPES, is_abstention_id

log = logging.getLogger(__name__)

HAYSTACK_LISTS = ("haystack_session_ids", "haystack_dates", "haystack_sessions")
STR_FIELDS = ("question_id", "question_type", "question", "question_date")
LIST_FIELDS = ("haystack_session_ids", "haystack_dates", "haystack_sessions", "answer_session_ids")
REQUIRED = STR_FIELDS + ("answer",) + LIST_FIELDS


class _Dates:
    """The strict date parser (dates.py), with errors that name the file, question and field."""

    def __init__(self, file: str):
        self.file = file

    def parse(self, value, qid: str, fld: str) -> datetime:
        if not isinstance(value, str):
            raise InputError(
                f"expected a date string like '{DATE_EXAMPLE}', got {type(value).__name__}",
                file=self.file,
                question_id=qid,
                field=fld,
            )
        try:
            return parse_longmemeval(value)
        except ValueError:
            raise InputError(
                f"unparseable date {value!r} (expected like '{DATE_EXAMPLE}')",
                file=self.file,
                question_id=qid,
                field=fld,
            ) from None


def validate_record(rec, index: int, file: str, dates: _Dates) -> None:
    """Raise InputError (file, question id, field) for the first problem in one question."""
    if not isinstance(rec, dict):
        raise InputError(
            f"question #{index} is a JSON {type(rec).__name__}, not an object",
            file=file,
            field=f"[{index}]",
        )
    qid = rec.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise InputError(
            f"question #{index} has no string question_id",
            file=file,
            question_id=None if qid is None else str(qid),
            field="question_id",
        )
    for fld in REQUIRED:
        if fld not in rec:
            raise InputError("missing field", file=file, question_id=qid, field=fld)
    for fld in STR_FIELDS:
        if not isinstance(rec[fld], str):
            raise InputError(
                f"expected a string, got {type(rec[fld]).__name__}",
                file=file,
                question_id=qid,
                field=fld,
            )
    ans = rec["answer"]
    if isinstance(ans, bool) or not isinstance(ans, (str, int, float)):
        raise InputError(
            f"expected a string or number, got {type(ans).__name__}",
            file=file,
            question_id=qid,
            field="answer",
        )
    if rec["question_type"] not in QUESTION_TYPES:
        raise InputError(
            f"unknown question type {rec['question_type']!r}; expected one of: "
            f"{', '.join(QUESTION_TYPES)}",
            file=file,
            question_id=qid,
            field="question_type",
        )
    for fld in LIST_FIELDS:
        if not isinstance(rec[fld], list):
            raise InputError(
                f"expected a list, got {type(rec[fld]).__name__}",
                file=file,
                question_id=qid,
                field=fld,
            )
    lengths = {fld: len(rec[fld]) for fld in HAYSTACK_LISTS}
    if len(set(lengths.values())) != 1:
        raise InputError(
            "haystack lists differ in length: " + ", ".join(f"{k}={v}" for k, v in lengths.items()),
            file=file,
            question_id=qid,
            field="/".join(HAYSTACK_LISTS),
        )
    dates.parse(rec["question_date"], qid, "question_date")
    for fld in ("haystack_session_ids", "answer_session_ids"):
        for i, sid in enumerate(rec[fld]):
            if not isinstance(sid, str) or not sid:
                raise InputError(
                    "expected a non-empty session id string",
                    file=file,
                    question_id=qid,
                    field=f"{fld}[{i}]",
                )
    for i, d in enumerate(rec["haystack_dates"]):
        dates.parse(d, qid, f"haystack_dates[{i}]")
    for i, sess in enumerate(rec["haystack_sessions"]):
        if not isinstance(sess, list):
            raise InputError(
                f"a session must be a list of turns, got {type(sess).__name__}",
                file=file,
                question_id=qid,
                field=f"haystack_sessions[{i}]",
            )
        for j, turn in enumerate(sess):
            if (
                not isinstance(turn, dict)
                or not isinstance(turn.get("role"), str)
                or not isinstance(turn.get("content"), str)
                or not isinstance(turn.get("has_answer", False), bool)
            ):
                raise InputError(
                    _turn_problem(turn),
                    file=file,
                    question_id=qid,
                    field=f"haystack_sessions[{i}][{j}]",
                )


def _turn_problem(turn) -> str:
    if not isinstance(turn, dict):
        return f"a turn must be an object, got {type(turn).__name__}"
    for key in ("role", "content"):
        if key not in turn:
            return f"turn lacks '{key}'"
        if not isinstance(turn[key], str):
            return f"turn '{key}' must be a string, got {type(turn[key]).__name__}"
    return f"turn 'has_answer' must be true/false, got {turn['has_answer']!r}"


def validated(records: Iterable, file: str) -> Iterator[dict]:
    """Each question as it comes, validated, with a repeated question_id refused (in memory, or
    streamed from the file)."""
    dates = _Dates(file)
    seen: dict[str, int] = {}
    for i, rec in enumerate(records):
        validate_record(rec, i, file, dates)
        qid = rec["question_id"]
        if qid in seen:
            raise InputError(
                f"duplicate question_id (also question #{seen[qid]})",
                file=file,
                question_id=qid,
                field="question_id",
            )
        seen[qid] = i
        yield rec


def validate_records(records: list, file: str) -> None:
    """Validate every question (also the ones a subset later drops: a broken file fails early)."""
    for _ in validated(records, file):
        pass


def content_hash(turns: list[dict]) -> str:
    """sha256 of a session's (role, content) sequence. has_answer is left out: it marks evidence
    for one question, not the session's text (it is merged across haystacks instead)."""
    return hashlib.sha256(orjson.dumps([(t["role"], t["content"]) for t in turns])).hexdigest()


@dataclass
class _Session:
    hash: str
    first_qid: str
    date: str
    best: tuple  # (datetime, question_id) of the date kept
    roles: list
    has_answer: list
    dates: set


class HaystackMerger:
    """Haystacks merged into one table of sessions as questions arrive, in any order (in memory,
    or streamed from a file): a session id is stored once, its text must be the same in every
    haystack, its has_answer marks are OR-ed, and it keeps its earliest date (ties: the smallest
    question id). `add` returns the question's row; `stats` gives the figures the data card
    shows. Turn text is handed to `on_new(session_id, turns)` once per session."""

    def __init__(self, file: str, on_new=None):
        self.file, self.dates, self.on_new = file, _Dates(file), on_new
        self.sessions: dict[str, _Session] = {}
        self.total_sessions = self.total_turns = self.dup_in_haystack = 0
        self.has_answer_merged: set[str] = set()  # sessions whose marks differ by haystack
        self.evidence_missing: list[str] = []

    def add(self, rec: dict) -> dict:
        qid = rec["question_id"]
        ids, hdates = [], []
        seen_here: set[str] = set()
        for i, (sid, date, turns) in enumerate(
            zip(rec["haystack_session_ids"], rec["haystack_dates"], rec["haystack_sessions"])
        ):
            self._merge(qid, i, sid, date, turns)
            if sid in seen_here:  # same session listed twice in one haystack: keep the first
                self.dup_in_haystack += 1
                continue
            seen_here.add(sid)
            ids.append(sid)
            hdates.append(date)
        if not set(rec["answer_session_ids"]) <= seen_here:
            self.evidence_missing.append(qid)
        ans = rec["answer"]
        return {
            "question_id": qid,
            "question_type": rec["question_type"],
            "is_abstention": is_abstention_id(qid),
            "question": rec["question"],
            "answer": ans if isinstance(ans, str) else str(ans),
            "question_date": rec["question_date"],
            "haystack_session_ids": ids,
            "answer_session_ids": list(rec["answer_session_ids"]),
            "haystack_dates": hdates,
        }

    def _merge(self, qid: str, i: int, sid: str, date: str, turns: list[dict]) -> None:
        self.total_sessions += 1
        self.total_turns += len(turns)
        h = content_hash(turns)
        flags = [bool(t.get("has_answer", False)) for t in turns]
        best = (self.dates.parse(date, qid, f"haystack_dates[{i}]"), qid)
        s = self.sessions.get(sid)
        if s is None:
            self.sessions[sid] = _Session(
                h, qid, date, best, [t["role"] for t in turns], flags, {date}
            )
            if self.on_new is not None:
                self.on_new(sid, turns)
            return
        if s.hash != h:
            a, b = sorted((s.first_qid, qid))
            raise InputError(
                f"session {sid!r} has different content here than in the haystack "
                f"of question {a!r}",
                file=self.file,
                question_id=b,
                field=f"haystack_sessions[{i}]",
            )
        if flags != s.has_answer:
            self.has_answer_merged.add(sid)
            s.has_answer = [x or y for x, y in zip(s.has_answer, flags)]
        s.dates.add(date)
        if best < s.best:
            s.date, s.best = date, best

    def sessions_table(self, sids: list[str]) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "session_id": sids,
                "date": [self.sessions[s].date for s in sids],
                "content_hash": [self.sessions[s].hash for s in sids],
            },
            schema=polars_schema("sessions"),
        )

    def stats(self) -> dict:
        self.evidence_missing.sort()
        if self.evidence_missing:
            log.warning(
                "%d questions name evidence sessions missing from their haystack (e.g. %s)",
                len(self.evidence_missing),
                self.evidence_missing[0],
            )
        return {
            "sessions_total": self.total_sessions,
            "sessions_unique": len(self.sessions),
            "turns_total": self.total_turns,
            "turns_unique": sum(len(v.roles) for v in self.sessions.values()),
            "duplicates_in_haystack": self.dup_in_haystack,
            "sessions_multi_date": sum(len(s.dates) > 1 for s in self.sessions.values()),
            "has_answer_merged": len(self.has_answer_merged),
            "evidence_missing_from_haystack": self.evidence_missing,
        }


def normalise(records: list[dict], file: str) -> Normalised:
    """Validated records -> the three tables, rows sorted, sessions stored once (HaystackMerger).
    Everything in memory: the download stage streams instead (stream.normalise_file); this is
    the small-data path and the reference the streaming one is tested against."""
    contents: dict[str, list[str]] = {}
    merger = HaystackMerger(
        file, lambda sid, turns: contents.setdefault(sid, [t["content"] for t in turns])
    )
    rows = [merger.add(rec) for rec in sorted(records, key=lambda r: r["question_id"])]
    stats = merger.stats()
    questions = pl.DataFrame(rows, schema=polars_schema("questions"))
    sids = sorted(merger.sessions)
    t_sid, t_idx, t_role, t_content, t_ans = [], [], [], [], []
    for sid in sids:
        s = merger.sessions[sid]
        n = len(s.roles)
        t_sid.extend([sid] * n)
        t_idx.extend(range(n))
        t_role.extend(s.roles)
        t_content.extend(contents[sid])
        t_ans.extend(s.has_answer)
    turns_df = pl.DataFrame(
        {
            "session_id": t_sid,
            "turn_index": t_idx,
            "role": t_role,
            "content": t_content,
            "has_answer": t_ans,
        },
        schema=polars_schema("turns"),
    )
    return Normalised(questions, merger.sessions_table(sids), turns_df, stats)


def summary(ds: Normalised) -> dict:
    """Figures for the data card (counts by type, haystack and evidence sizes)."""
    return summarise(ds.questions, ds.turns, ds.stats)


def summarise(q: pl.DataFrame, turns: pl.DataFrame, stats: dict) -> dict:
    """summary() from the questions table, the turns (only the user turns marked has_answer
    matter: the streaming normaliser passes just those) and the normaliser's stats."""
    by_type = {t: {"questions": 0, "abstention": 0} for t in QUESTION_TYPES}
    for t, a in zip(q["question_type"].to_list(), q["is_abstention"].to_list()):
        by_type[t]["questions"] += 1
        by_type[t]["abstention"] += int(a)
    hay = q["haystack_session_ids"].list.len().to_list()
    ev = q["answer_session_ids"].list.len().to_list()

    # Evidence sessions in the haystack that the official rule does not count as gold (no user
    # turn marked has_answer); evidence missing from the haystack is counted apart, in stats.
    non_gold = sum(
        len(g.evidence) - len(g.sessions) for g in question_gold(q, turns).values() if g is not None
    )

    def mmm(xs):
        return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)} if xs else {}

    return {
        "n_questions": q.height,
        "n_abstention": int(q["is_abstention"].sum()),
        "by_type": by_type,
        "sessions_per_haystack": mmm(hay),
        "evidence_per_question": mmm(ev),
        "evidence_total": sum(ev),
        "evidence_not_gold": non_gold,
        **stats,
    }
