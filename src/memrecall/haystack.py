"""What a plug-in sees of a question's haystack: its sessions with this question's dates, their
turns with roles, and (for retrievers that ask for them) the bundled embedder's vectors.
Shared by retrieval=plugin and reader=plugin; gold marks (has_answer) are never passed on."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .dates import question_session_dates


@dataclass(frozen=True)
class Turn:
    index: int  # position in its session, 0-based, assistant turns included
    role: str  # "user" or "assistant"
    content: str


@dataclass(frozen=True)
class Session:
    session_id: str
    date: str | None  # the date this question's haystack gives the session
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class UnitVectors:
    """The bundled embedder's units of one haystack (embeddings.parquet), as
    `embedder.granularity` says: sessions' keys and their first-person sentences (the default),
    session keys, rounds or passages; a session may have several rows. L2-normalised vectors
    (dot product = cosine)."""

    unit_ids: list[str]
    session_ids: list[str]
    texts: list[str]
    matrix: np.ndarray  # (n_units, dim) float32


@dataclass(frozen=True)
class Haystack:
    question_id: str
    question_date: str
    sessions: tuple[Session, ...]  # haystack order
    vectors: UnitVectors | None = None  # only for a plug-in with uses_vectors = True


@dataclass(frozen=True)
class Query:
    text: str
    question_id: str
    question_date: str
    variant: int = 0  # 0: the question itself; 1.. : rewrite variants
    vector: np.ndarray | None = field(default=None, repr=False)  # uses_vectors only


class HaystackBuilder:
    """Builds each question's Haystack from the stage's tables (turns, dates, vectors)."""

    def __init__(
        self, questions: pl.DataFrame, sessions: pl.DataFrame, turns: pl.DataFrame, units=None
    ):
        """`units`: retrieval.units.UnitIndex of the embeddings, for haystacks with vectors."""
        self.dates = question_session_dates(questions, sessions)
        self.qdate = dict(questions.select("question_id", "question_date").iter_rows())
        self.turns: dict[str, tuple[Turn, ...]] = {}
        self.user_turns: dict[str, set[int]] = {}
        grouped: dict[str, list[Turn]] = {}
        for sid, idx, role, content in (
            turns.sort("session_id", "turn_index")
            .select("session_id", "turn_index", "role", "content")
            .iter_rows()
        ):
            grouped.setdefault(sid, []).append(Turn(int(idx), role, content or ""))
            if role == "user":
                self.user_turns.setdefault(sid, set()).add(int(idx))
        self.turns = {sid: tuple(ts) for sid, ts in grouped.items()}
        self.units = units

    def haystack(self, qid: str, session_ids: list[str], with_vectors: bool) -> Haystack:
        dates = self.dates.get(qid, {})
        sessions = tuple(
            Session(sid, dates.get(sid), self.turns.get(sid, ())) for sid in session_ids
        )
        vectors = None
        if with_vectors:
            rows, seg = self.units.units_of(session_ids, qid)
            u = self.units
            vectors = UnitVectors(
                [u.unit_ids[r] for r in rows],
                [session_ids[p] for p in seg],
                [u.texts[r] for r in rows],
                u.vectors[rows],
            )
        return Haystack(qid, self.qdate.get(qid), sessions, vectors)

    def n_units(self, granularity: str, session_ids: list[str]) -> int:
        """Everything a retriever could return for this haystack (the `k` that ranks it all)."""
        if granularity == "session":
            return len(session_ids)
        return sum(len(self.user_turns.get(s, ())) for s in session_ids)
