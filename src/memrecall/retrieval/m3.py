"""BGE-M3's three scores (dense, sparse lexical weights, ColBERT multi-vector), for GPU users.

`retrieval.method: m3` (with `embedder=bge_m3`): the dense ranking from the embed stage's
vectors picks each question's top `m3_pool` sessions; every unit of those sessions is then
re-scored by BGEM3FlagModel as `m3_weights` · (dense, sparse, colbert), the combination the
BGE-M3 authors recommend ([0.4, 0.2, 0.4]); a session scores by its best unit, and the sessions
outside the pool follow in their dense order. The model reads each (question, unit) pair's texts
once: the three scores are cached under (model space, sha256 of question and text), like the
reranker's, so a rerun loads no model. Sparse and ColBERT outputs are computed here, not stored
by the embed stage: ColBERT keeps one 1024-d vector per token (~0.5 MB per 256-token passage),
too large for a cache of every session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..hashing import sha256_text
from .embedders import EmbedderSettings, FlagEncoder, embedder_settings, embedding_space
from .store import HashStore

MODES = ("dense", "sparse", "colbert")


@dataclass(frozen=True)
class M3Settings:
    pool: int
    weights: np.ndarray = field(compare=False)  # dense, sparse, colbert


def m3_settings(retrieval_cfg: dict) -> M3Settings:
    pool = retrieval_cfg["m3_pool"]
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 1:
        raise ConfigError("retrieval.m3_pool", pool, hint="a positive integer (sessions)")
    w = retrieval_cfg["m3_weights"]
    if (
        not isinstance(w, (list, tuple))
        or len(w) != 3
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in w)
    ):
        raise ConfigError("retrieval.m3_weights", w, hint="three numbers: dense, sparse, colbert")
    return M3Settings(pool, np.asarray(w, dtype=np.float64))


def check_m3_embedder(embedder: EmbedderSettings) -> None:
    if embedder.kind != "bgem3":
        raise ConfigError(
            "retrieval.method",
            "m3",
            hint="needs embedder.model_class=bgem3 "
            "(embedder=bge_m3): only BGE-M3 has sparse and ColBERT outputs",
        )


class M3Scorer:
    """scores(query, texts) -> (n, 3) array of (dense, sparse, colbert), cached per pair."""

    def __init__(self, embedder: dict | EmbedderSettings, model=None):
        self.settings = embedder_settings(embedder)
        space = {**embedding_space(self.settings), "scores": list(MODES)}
        self.store = HashStore(
            "m3", space, column_type="TEXT", encode=json.dumps, decode=json.loads
        )
        self._model = model
        self.stats = {"scored": 0, "cached": 0}

    @property
    def model(self):
        if self._model is None:
            self._model = FlagEncoder(self.settings).model  # the BGEM3FlagModel itself
        return self._model

    def _encode(self, texts: list[str]) -> dict:
        return self.model.encode(
            texts,
            batch_size=self.settings.batch_size,
            max_length=self.settings.max_length,
            return_dense=True,
            return_sparse=True,
            return_colbert_vecs=True,
        )

    def scores(self, query: str, texts: list[str]) -> np.ndarray:
        qh = sha256_text(query)
        keys = [sha256_text(qh + "\0" + sha256_text(t)) for t in texts]
        found, missing = self.store.lookup(keys)
        self.stats["cached"] += len(found)
        if missing:
            todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k in set(missing)))
            q = self._encode([query])
            p = self._encode(todo)
            qd, ql, qc = q["dense_vecs"][0], q["lexical_weights"][0], q["colbert_vecs"][0]
            new = {}
            for i, t in enumerate(todo):
                new[sha256_text(qh + "\0" + sha256_text(t))] = [
                    float(np.dot(qd, p["dense_vecs"][i])),
                    float(self.model.compute_lexical_matching_score(ql, p["lexical_weights"][i])),
                    float(self.model.colbert_score(qc, p["colbert_vecs"][i])),
                ]
            self.store.put_many(new.items())
            found.update(new)
            self.stats["scored"] += len(new)
        return np.asarray([found[k] for k in keys], dtype=np.float64).reshape(len(texts), 3)


def m3_rescore(
    query: str,
    dense_sess: np.ndarray,
    unit_texts: list[str],
    unit_seg: np.ndarray,
    pool: int,
    weights: np.ndarray,
    scorer: M3Scorer,
    order_fn,
) -> np.ndarray:
    """Session scores: the dense top `pool` re-scored by the weighted M3 scores of their units
    (best unit), placed above every session outside the pool (which keep their dense order)."""
    top = order_fn(dense_sess)[:pool]
    in_pool = np.zeros(len(dense_sess), dtype=bool)
    in_pool[top] = True
    units = [i for i, s in enumerate(unit_seg) if in_pool[s]]
    combined = scorer.scores(query, [unit_texts[i] for i in units]) @ weights
    out = np.full(len(dense_sess), -np.inf)
    for i, c in zip(units, combined):
        out[unit_seg[i]] = max(out[unit_seg[i]], c)
    # Outside the pool: below every pooled session, in dense order.
    rest = ~in_pool
    if rest.any():
        floor = out[in_pool].min() if in_pool.any() else 0.0
        d = dense_sess[rest]
        span = (d.max() - d.min()) or 1.0
        out[rest] = floor - 1.0 - (d.max() - d) / span
    return out
