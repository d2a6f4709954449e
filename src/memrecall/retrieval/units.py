"""The embeddings table indexed by session, as retrieval reads it: each session's unit rows,
their vectors and key texts (the built-in methods and the retriever plug-ins' haystacks)."""

from __future__ import annotations

import numpy as np
import polars as pl

from ..errors import InputError
from .embed import vectors_matrix


class UnitIndex:
    """The embeddings table, indexed by session: rows of each session's units, vectors, texts."""

    def __init__(
        self,
        embeddings: pl.DataFrame,
        need_vectors: bool,
        source: str = "embeddings",
        need_texts: bool = True,
        vectors: np.ndarray | None = None,
    ):
        """`vectors`: the table's vector column, already read (artifacts.read_vectors), when
        `embeddings` was read without it."""
        for col in (
            ("unit_id", "session_id")
            + (("text",) if need_texts else ())
            + (("vector",) if need_vectors and vectors is None else ())
        ):
            if col not in embeddings.columns:
                raise InputError("embeddings table lacks a column", file=source, field=col)
        if vectors is not None and len(vectors) != embeddings.height:
            raise InputError(
                f"{len(vectors)} vectors for {embeddings.height} units", file=source, field="vector"
            )
        self.source = source
        self.unit_ids = embeddings.get_column("unit_id").to_list()
        # Key texts only for BM25: at LongMemEval-M's size they are the bulk of the table.
        self.texts = embeddings.get_column("text").to_list() if need_texts else None
        self.vectors = (
            None
            if not need_vectors
            else vectors
            if vectors is not None
            else vectors_matrix(embeddings)
        )
        self.rows: dict[str, list[int]] = {}
        for i, sid in enumerate(embeddings.get_column("session_id").to_list()):
            self.rows.setdefault(sid, []).append(i)

    def session_text(self, sid: str) -> str:
        """The session's first unit's text: its whole key at passage granularity."""
        return self.texts[self.rows[sid][0]]

    def units_of(self, haystack: list[str], qid: str) -> tuple[np.ndarray, np.ndarray]:
        """(unit rows, position of each unit's session in the haystack)."""
        rows, seg = [], []
        for pos, sid in enumerate(haystack):
            r = self.rows.get(sid)
            if r is None:
                raise InputError(
                    f"haystack session {sid!r} has no embedded unit (rerun embed)",
                    file=self.source,
                    question_id=qid,
                    field="haystack_session_ids",
                )
            rows.extend(r)
            seg.extend([pos] * len(r))
        return np.asarray(rows, dtype=np.int64), np.asarray(seg, dtype=np.int64)
