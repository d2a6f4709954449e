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

from ..errors import ConfigError

UNIT_POOLS = ("max", "max_fair", "blend", "max_mean")


def session_max(unit_scores: np.ndarray, unit_session: np.ndarray, n_sessions: int) -> np.ndarray:
    """Aggregate unit scores to their sessions (unit_session: each unit's session position) by
    max. Sessions without units get -inf and so rank last."""
    out = np.full(n_sessions, -np.inf, dtype=np.float64)
    np.maximum.at(out, unit_session, unit_scores)
    return out


def first_units(unit_session: np.ndarray) -> np.ndarray:
    """True at each session's first unit (units grouped by session, in unit order): the whole
    session key at passage and sentence granularity, what `blend` pools with the best unit."""
    unit_session = np.asarray(unit_session)
    if len(unit_session) == 0:
        return np.zeros(0, dtype=bool)
    return np.r_[True, unit_session[1:] != unit_session[:-1]]


def expected_max_z(n: np.ndarray) -> np.ndarray:
    """Expected largest of n standard normal draws, by Blom's approximation
    Phi^-1((n - 0.375) / (n + 0.25)): 0 for n = 1, 0.59 for 2 (exact 0.56), 2.25 for 30."""
    from statistics import NormalDist

    inv = NormalDist().inv_cdf
    n = np.asarray(n, dtype=np.float64)
    return np.array([inv((k - 0.375) / (k + 0.25)) if k >= 1 else 0.0 for k in n])


def pool_units(
    unit_scores: np.ndarray,
    unit_session: np.ndarray,
    n_sessions: int,
    how: str,
    first: np.ndarray | None = None,
) -> np.ndarray:
    """A session's score from its units' (rounds', passages') scores, `retrieval.unit_pool`:

    - `max`: the best unit. A session of many units gets many draws, so a long off-topic
      session often holds one unit that matches by chance: max favours long sessions.
    - `max_fair`: the best unit minus the max that chance alone would give a session of that
      many units: sigma * E[max of n standard normals] (expected_max_z), sigma the standard
      deviation of all unit scores of this haystack. One unit: unchanged (session keys score
      as before); parameter-free.
    - `blend` (passages, sentences): the mean of the whole-session key's score (its first
      unit, `first` marks it) and the best unit's: the topic of the session and its best
      window or statement.
    - `max_mean`: the mean of the session's best and average unit.
    Sessions without units get -inf. At session granularity (one unit each) all are `max`."""
    best = session_max(unit_scores, unit_session, n_sessions)
    if how == "max":
        return best
    counts = np.bincount(unit_session, minlength=n_sessions).astype(np.float64)
    if how == "max_fair":
        sigma = float(np.std(unit_scores)) if len(unit_scores) > 1 else 0.0
        return best - sigma * expected_max_z(counts)
    if how == "max_mean":
        sums = np.bincount(unit_session, weights=unit_scores, minlength=n_sessions)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), -np.inf)
        return (best + mean) / 2
    if how == "blend":
        if first is None:
            raise ConfigError(
                "retrieval.unit_pool",
                how,
                hint=(
                    "blend needs a whole-session unit: use it with embedder.granularity=passage "
                    "or sentence"
                ),
            )
        whole = session_max(unit_scores[first], unit_session[first], n_sessions)
        return (best + whole) / 2
    raise ConfigError("retrieval.unit_pool", how, list(UNIT_POOLS))


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
