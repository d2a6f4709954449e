"""Exact dense retrieval: cosine similarity of L2-normalised vectors, one matrix product per
question over its haystack's units (no approximate index: a haystack is ~50 sessions or ~500
rounds, so exact search costs microseconds and never misses)."""

from __future__ import annotations

import numpy as np


def cosine_scores(query_vecs: np.ndarray, unit_vecs: np.ndarray) -> np.ndarray:
    """(d,) · (n, d) → (n,) float64; with (m, d) queries (a question and its rewrites), each
    unit's best cosine over them. Both sides are L2-normalised, so the dot product is the
    cosine."""
    if unit_vecs.size == 0:
        return np.zeros(len(unit_vecs), dtype=np.float64)
    if query_vecs.ndim == 1:
        return (unit_vecs @ query_vecs).astype(np.float64)
    return (unit_vecs @ query_vecs.T).max(axis=1).astype(np.float64)
