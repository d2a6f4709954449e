"""Exact dense retrieval: cosine similarity of L2-normalised vectors, one matrix product per
question over its haystack's units (no approximate index: a haystack is ~50 sessions or ~500
rounds, so exact search costs microseconds and never misses)."""

from __future__ import annotations

import numpy as np


def cosine_scores(query_vec: np.ndarray, unit_vecs: np.ndarray) -> np.ndarray:
    """(d,) · (n, d) → (n,) float64. Both sides are L2-normalised, so the dot product is the
    cosine."""
    if unit_vecs.size == 0:
        return np.zeros(len(unit_vecs), dtype=np.float64)
    return (unit_vecs @ query_vec).astype(np.float64)


def session_max(unit_scores: np.ndarray, unit_session: np.ndarray, n_sessions: int) -> np.ndarray:
    """Aggregate unit scores to their sessions by max (round granularity → session ranking).
    Sessions without units get -inf and so rank last."""
    out = np.full(n_sessions, -np.inf, dtype=np.float64)
    np.maximum.at(out, unit_session, unit_scores)
    return out


def rank_order(scores: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Indices best first: by score, then tiebreak (higher first), then position (stable), so the
    ranking is deterministic whatever the ties."""
    pos = np.arange(len(scores))
    if tiebreak is None:
        return np.lexsort((pos, -scores))
    return np.lexsort((pos, -tiebreak, -scores))
