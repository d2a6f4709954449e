"""The read stage: one reader request per question, answered through the shared LLM client.

`reading=direct` sends one prompt per question. `reading=con` is LongMemEval's Chain-of-Note:
one extra call per context session writes reading notes, and the answer prompt shows the notes
in place of the raw sessions. Failed calls are recorded in `error` (hypothesis null), never
turned into answers; finished calls come from the client's cache on a rerun. A reader config
with a `callable` is a plug-in (reader=plugin, plugin.py).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .. import benchmarks
from ..artifacts import atomic_write_text, read_table, write_table
from ..benchmarks.base import Benchmark
from ..config import check_int, choice, identity
from ..dates import question_session_dates
from ..errors import ConfigError, InputError
from ..llm import usage
from ..plugins import result_params
from ..schema import polars_schema
from .context import (
    HISTORY_FORMATS,
    ContextSession,
    format_session,
    render_history,
    select_sessions,
)
from .prompts import NOTES_HASH, NOTES_TEMPLATE, ReaderPrompt, render_notes
from .refusal_guard import refusal_guard

READINGS = ("direct", "con")


@dataclass(frozen=True)
class ReaderSettings:
    prompt: ReaderPrompt
    history_format: str
    reading: str
    top_k_context: int
    max_chars_per_session: int

    @property
    def prompt_id(self) -> str:
        pid = self.prompt.prompt_id
        return f"{pid}+notes:{NOTES_HASH}" if self.reading == "con" else pid


def _positive_int(cfg: dict, key: str) -> int:
    return check_int(cfg[key], f"reader.{key}", minimum=1, hint="expected a positive integer")


def reader_settings(cfg: dict, bench: Benchmark) -> ReaderSettings:
    """Check the reader group's reading knobs against the benchmark's prompts; errors name the
    key and the choices."""
    prompts = bench.reader_prompts()
    if cfg["prompt"] not in prompts:
        raise ConfigError(
            "reader.prompt", cfg["prompt"], list(prompts), hint=f"the {bench.title} prompts"
        )
    return ReaderSettings(
        prompt=prompts[cfg["prompt"]],
        history_format=choice(cfg, "history_format", HISTORY_FORMATS, group="reader"),
        reading=choice(cfg, "reading", READINGS, group="reader"),
        top_k_context=_positive_int(cfg, "top_k_context"),
        max_chars_per_session=_positive_int(cfg, "max_chars_per_session"),
    )


@dataclass
class QuestionContext:
    question_id: str
    question_type: str
    question: str
    today: str
    sessions: list[ContextSession]  # date order, formatted, truncated


def build_contexts(
    settings: ReaderSettings,
    questions: pl.DataFrame,
    sessions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    candidates_file: str = "candidates",
    *,
    speaker_column: str | None = None,
    question_text=None,
) -> list[QuestionContext]:
    """Each question's top_k_context candidate sessions, sorted by date, formatted; each turn
    shown with its `speaker_column` (conversations between named people) or its role; the
    question as `question_text(row)` shows it (Benchmark.reader_question; default its text)."""
    ranked: dict[str, list[str]] = {}
    for qid, sid in (
        candidates.sort(["question_id", "rank"]).select("question_id", "session_id").iter_rows()
    ):
        ranked.setdefault(qid, []).append(sid)
    known = set(sessions["session_id"])
    # A session's date belongs to the (question, session) pair: the same session can carry
    # different dates in different haystacks, so each question uses its own haystack_dates.
    dates_by_question = question_session_dates(questions, sessions)
    chosen = {
        qid: select_sessions(ids, settings.top_k_context, dates_by_question.get(qid, {}))
        for qid, ids in ranked.items()
    }
    for qid, ids in chosen.items():
        for sid in ids:
            if sid not in known:
                raise InputError(
                    f"candidate session {sid!r} is not in sessions.parquet",
                    file=candidates_file,
                    question_id=qid,
                    field="session_id",
                )
    needed = sorted({sid for ids in chosen.values() for sid in ids})
    by_session: dict[str, list[tuple[str, str]]] = {}
    who = speaker_column or "role"
    for sid, role, content in (
        turns.filter(pl.col("session_id").is_in(needed))
        .sort(["session_id", "turn_index"])
        .select("session_id", who, "content")
        .iter_rows()
    ):
        by_session.setdefault(sid, []).append((role, content or ""))
    formatted = {
        sid: format_session(
            by_session.get(sid, []), settings.history_format, settings.max_chars_per_session
        )
        for sid in needed
    }
    out = []
    for row in questions.sort("question_id").iter_rows(named=True):
        qid = row["question_id"]
        out.append(
            QuestionContext(
                question_id=qid,
                question_type=row["question_type"],
                question=question_text(row) if question_text else row["question"],
                today=row["question_date"],
                sessions=[
                    ContextSession(sid, dates_by_question[qid].get(sid), formatted[sid])
                    for sid in chosen.get(qid, [])
                ],
            )
        )
    return out


def answer_messages(
    settings: ReaderSettings, ctx: QuestionContext, notes: list[str] | None = None
) -> list[dict]:
    sessions = ctx.sessions
    if notes is not None:  # reading=con: the notes stand in for the sessions
        sessions = [
            ContextSession(s.session_id, s.date, _notes_block(n, settings.history_format))
            for s, n in zip(sessions, notes)
        ]
    text = settings.prompt.render(
        question=ctx.question,
        question_type=ctx.question_type,
        today=ctx.today,
        history=render_history(sessions),
    )
    return [{"role": "user", "content": text}]


def _notes_block(note: str, fmt: str) -> str:
    return json.dumps({"reading_notes": note}, ensure_ascii=False) if fmt == "json" else note


def notes_messages(ctx: QuestionContext) -> list[list[dict]]:
    return [
        [
            {
                "role": "user",
                "content": render_notes(
                    date=s.date, content=s.content, today=ctx.today, question=ctx.question
                ),
            }
        ]
        for s in ctx.sessions
    ]


def rendered_prompts(
    settings: ReaderSettings, contexts: list[QuestionContext], pending: list[tuple]
) -> dict:
    """{prompt id: template, per-type guidance and one rendered example}: what this run sent,
    recorded so a run's prompts can be read back (MLflow) without re-running old code. The
    example is the first question (by id) that reached the answer call."""
    prompt = settings.prompt
    example = None
    if pending:
        ctx, _, messages = pending[0]
        example = {
            "question_id": ctx.question_id,
            "question_type": ctx.question_type,
            "messages": messages,
        }
    out = {
        settings.prompt_id: {
            "stage": "read",
            "name": prompt.name,
            "template": prompt.template,
            "guidance": prompt.guidance,
            "answer_marker": prompt.answer_marker,
            "example": example,
        }
    }
    if settings.reading == "con":  # the per-session reading-notes call
        notes = None
        if contexts and contexts[0].sessions:
            notes = {
                "question_id": contexts[0].question_id,
                "messages": notes_messages(contexts[0])[0],
            }
        out[f"notes:{NOTES_HASH}"] = {
            "stage": "read",
            "name": "notes",
            "template": NOTES_TEMPLATE,
            "example": notes,
        }
    return out


def run_llm_read(
    reader_cfg: dict,
    *,
    questions: str | Path,
    sessions: str | Path,
    turns: str | Path,
    candidates: str | Path,
    out: str | Path,
    prompts_out: str | Path | None = None,
) -> pl.DataFrame:
    """reader.kind llm: our client and the benchmark's prompts, one request per question."""
    from ..llm import LLMClient

    bench = benchmarks.of_artifact(questions)
    settings = reader_settings(reader_cfg, bench)
    contexts = build_contexts(
        settings,
        read_table(questions, "questions"),
        read_table(sessions, "sessions"),
        read_table(turns, "turns"),
        read_table(candidates, "candidates"),
        str(candidates),
        speaker_column=bench.speaker_column,
        question_text=bench.reader_question,
    )
    client = LLMClient(reader_cfg, stage="read")
    client.stop_check = refusal_guard(reader_cfg, settings.prompt.extract_answer)
    df, pending = answer_questions(reader_cfg, settings, contexts, client)
    # Where the answers came from is recorded beside the params, not in them (provenance.py).
    write_table(
        df,
        out,
        table="answers",
        stage="read",
        params=result_params(identity(reader_cfg)),
        input_files=[questions, sessions, turns, candidates],
        extra_meta={"provenance": client.provenance.summary()},
    )
    if prompts_out is not None:
        atomic_write_text(
            prompts_out,
            json.dumps(
                rendered_prompts(settings, contexts, pending),
                indent=1,
                sort_keys=True,
                ensure_ascii=False,
            )
            + "\n",
        )
    s = client.stats
    print(
        f"read ({reader_cfg['name']}): {len(df)} answers; model calls {s.get('calls', 0)}, cached "
        f"{s.get('cached', 0)}, failed {s.get('failed', 0)}; prompt {settings.prompt_id}",
        file=sys.stderr,
    )
    return df


def answer_questions(
    reader_cfg: dict, settings: ReaderSettings, contexts: list[QuestionContext], client
) -> tuple[pl.DataFrame, list]:
    """(the answers table for `contexts`, the (context, note calls, answer messages) sent),
    every call through `client` (an LLMClient, or the plan's dry-run client, which answers
    from the cache only)."""
    notes_of: dict[str, list] = {}  # reading=con: question -> its note calls, in context order
    if settings.reading == "con":
        flat = [(ctx.question_id, m) for ctx in contexts for m in notes_messages(ctx)]
        results = client.complete_many([m for _, m in flat], desc="read (notes)")
        for (qid, _), res in zip(flat, results):
            notes_of.setdefault(qid, []).append(res)

    pending, rows = [], {}
    for ctx in contexts:
        pre = notes_of.get(ctx.question_id, [])
        failed = next((r.error for r in pre if r.error), None)
        if failed:  # a note is missing: answering without it would not be this reading method
            rows[ctx.question_id] = _row(
                ctx, settings, None, pre, f"reading notes: {failed}", reader_cfg
            )
            continue
        notes = [(r.text or "").strip() for r in pre] if settings.reading == "con" else None
        pending.append((ctx, pre, answer_messages(settings, ctx, notes)))
    results = client.complete_many([m for _, _, m in pending], desc="read")
    for (ctx, pre, _), res in zip(pending, results):
        rows[ctx.question_id] = _row(ctx, settings, res, pre, None, reader_cfg)
    df = pl.DataFrame([rows[c.question_id] for c in contexts], schema=polars_schema("answers"))
    return df, pending


def _row(ctx, settings, res, pre, err, cfg) -> dict:
    """One answers row; tokens, cost and latency include any reading-notes calls."""
    from ..llm.refusal import is_refusal

    calls = [*pre, *([res] if res is not None else [])]
    error = err or (res.error if res is not None else None)
    text = (res.text or "") if res is not None and not error else None
    hypothesis = settings.prompt.extract_answer(text) if text is not None else None
    return {
        "question_id": ctx.question_id,
        "hypothesis": hypothesis,
        "model": (res.model if res is not None and res.model else cfg["model"]),
        "prompt_id": settings.prompt_id,
        "request_hash": res.request_hash if res is not None else None,
        **usage(*calls),
        # An error is not a refusal: the call never produced an answer to decline with.
        "refused": hypothesis is not None and bool(is_refusal(hypothesis)),
        "error": error,
        "raw": text,
        "context_session_ids": [s.session_id for s in ctx.sessions],
    }
