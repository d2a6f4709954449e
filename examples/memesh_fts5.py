"""A retriever plug-in after the MeMesh methodology: SQLite FTS5 (BM25, Porter stemming) over each
haystack's sessions, fused with the bundled dense vectors (MiniLM, from the embed stage).

    dvc exp run -S retrieval=plugin -S 'retrieval.options={fusion: max}'

Options (`retrieval.options`):
- fusion: how the FTS5 and dense rankings are combined
    rrf       reciprocal rank fusion, 1/(rrf_k + rank) summed over the two rankings (mode A as
              the memrecall issue numbers MeMesh's modes; MeMesh's own write-up calls FTS5 alone
              mode A: that is `fts5`)
    max       per session the larger of the two min-max-normalised scores (mode B)
    weighted  fts_weight * FTS5 + (1 - fts_weight) * dense, both min-max-normalised (mode C,
              60/40 with the default fts_weight 0.6)
    fts5      FTS5 alone (no vectors)
- key: "user" (the session's user turns, as the embed stage keys sessions) or "all" turns
- rrf_k (60), fts_weight (0.6)

Only the standard library, numpy and SQLite's FTS5 (built into CPython's sqlite3). Each
haystack gets its own in-memory database, built once by index() and searched by every query
of the question (the rewrite stage's variants included).
"""

from __future__ import annotations

import re
import sqlite3

import numpy as np

FUSIONS = ("rrf", "max", "weighted", "fts5")
_WORD = re.compile(r"\w+", re.UNICODE)


class MeMeshRetriever:
    granularity = "session"

    def __init__(
        self, fusion: str = "rrf", key: str = "user", rrf_k: float = 60.0, fts_weight: float = 0.6
    ):
        if fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {fusion!r}")
        if key not in ("user", "all"):
            raise ValueError(f"key must be 'user' or 'all', got {key!r}")
        if not 0.0 <= float(fts_weight) <= 1.0:
            raise ValueError(f"fts_weight must lie in [0, 1], got {fts_weight!r}")
        self.fusion, self.key = fusion, key
        self.rrf_k, self.fts_weight = float(rrf_k), float(fts_weight)
        self.uses_vectors = fusion != "fts5"

    def index(self, haystack) -> "FTSIndex":
        return FTSIndex(self, haystack)


class FTSIndex:
    def __init__(self, cfg: MeMeshRetriever, haystack):
        self.cfg = cfg
        self.session_ids = [s.session_id for s in haystack.sessions]
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='porter unicode61')")
        self.db.executemany(
            "INSERT INTO docs(rowid, body) VALUES (?, ?)",
            [
                (i, "\n".join(t.content for t in s.turns if cfg.key == "all" or t.role == "user"))
                for i, s in enumerate(haystack.sessions)
            ],
        )
        if cfg.uses_vectors:
            v = haystack.vectors
            self.unit_pos = np.asarray([self.session_ids.index(s) for s in v.session_ids])
            self.unit_matrix = np.asarray(v.matrix, dtype=np.float32)

    def fts_scores(self, text: str) -> dict[int, float]:
        """BM25 of each matching session (FTS5's bm25() is lower-is-better: negated)."""
        terms = sorted({w.lower() for w in _WORD.findall(text)})
        if not terms:
            return {}
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self.db.execute(
            "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ?", (match,)
        ).fetchall()
        return {int(r): -float(s) for r, s in rows}

    def dense_scores(self, vector) -> np.ndarray:
        """Per session: the max cosine of its units (vectors are L2-normalised)."""
        sims = self.unit_matrix @ np.asarray(vector, dtype=np.float32)
        out = np.full(len(self.session_ids), -np.inf)
        np.maximum.at(out, self.unit_pos, sims)
        return out

    def search(self, query, k: int) -> list[tuple[str, float]]:
        n = len(self.session_ids)
        fts = np.zeros(n)
        matched = self.fts_scores(query.text)
        for i, s in matched.items():
            fts[i] = s
        if self.cfg.fusion == "fts5":
            scores = fts
        else:
            dense = self.dense_scores(query.vector)
            scores = self._fuse(fts, np.asarray(sorted(matched)), dense)
        order = sorted(range(n), key=lambda i: -scores[i])[:k]  # ties: haystack order
        return [(self.session_ids[i], float(scores[i])) for i in order]

    def _fuse(self, fts: np.ndarray, matched: np.ndarray, dense: np.ndarray) -> np.ndarray:
        if self.cfg.fusion == "rrf":
            out = 1.0 / (self.cfg.rrf_k + _ranks(dense))
            if len(matched):  # sessions FTS5 did not match get no FTS5 share
                fr = _ranks(fts[matched])
                out[matched] += 1.0 / (self.cfg.rrf_k + fr)
            return out
        f, d = _minmax(fts), _minmax(dense)
        if self.cfg.fusion == "max":
            return np.maximum(f, d)
        w = self.cfg.fts_weight
        return w * f + (1.0 - w) * d

    def close(self) -> None:
        self.db.close()


def _ranks(scores: np.ndarray) -> np.ndarray:
    """1-based ranks, best first; ties by position."""
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    return ranks


def _minmax(x: np.ndarray) -> np.ndarray:
    lo, hi = float(np.min(x)), float(np.max(x))
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)
