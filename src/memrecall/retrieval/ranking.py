"""Ranking, defined once for every stage that orders sessions (retrieve, rerank, rewrite):

- a session scores the max over its units (rounds, facts; and, in rewrite, over the question's
  variants too);
- best score first; equal scores keep their given order (the haystack's, or the previous stage's
  ranking), an optional tiebreak coming before that; a NaN score ranks last (a score that is not
  a number is no evidence), so the order is deterministic whatever the scores.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def session_max(unit_scores: np.ndarray, unit_session: np.ndarray, n_sessions: int) -> np.ndarray:
    """Aggregate unit scores to their sessions (unit_session: each unit's session position) by
    max. Sessions without units get -inf and so rank last."""
    out = np.full(n_sessions, -np.inf, dtype=np.float64)
    np.maximum.at(out, unit_session, unit_scores)
    return out


def rank_order(scores: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Indices best first: by score, then tiebreak (higher first), then position (stable)."""
    scores = np.asarray(scores, dtype=np.float64)
    pos = np.arange(len(scores))
    keys = [pos] + ([-np.asarray(tiebreak, dtype=np.float64)] if tiebreak is not None else [])
    # lexsort puts NaN after every number; the explicit flag keeps that promise visible.
    return np.lexsort((*keys, -scores, np.isnan(scores)))


def top_ranked(ids: Sequence[str], scores: np.ndarray, top_k: int) -> list[tuple[str, float]]:
    """The best top_k (id, score) pairs; ties keep the order of `ids`."""
    return [(ids[i], float(scores[i])) for i in rank_order(scores)[:top_k]]
