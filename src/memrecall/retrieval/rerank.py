"""The rerank stage: re-score the retriever's candidates with a cross-encoder, keep top_k (15).

`reranker.name: none` passes each question's first top_k candidates through unchanged. Any other
option loads `reranker.model` (package:NAME, a local folder or a hub id, as for the embedder) with
FlagEmbedding's FlagReranker, scores (question, session passage) pairs in batches and keeps the
best top_k, ranked by ranking.py (ties keep the retriever's order). A session's passage is its
key text (`reranker.key` user/all, `reranker.max_chars`), the model truncates it to
`reranker.max_length` tokens.

Scores are cached like embeddings: sqlite at paths.cache_dir("rerank"), one file per scoring
space (model identity, max_length, precision), keyed by sha256 of the (query, passage) pair.
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
from tqdm import tqdm

from ..artifacts import read_table, write_table
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_text
from ..config import check_int, choice, identity, runtime
from .embedders import _device, _fp16, resolve_model
from .keys import KEYS, session_text
from .ranking import rank_order
from .store import score_store

CHUNK = 512  # pairs per model call


def pair_hash(query: str, passage: str) -> str:
    return sha256_text(query + "\x1f" + passage)


class FlagCrossEncoder:
    """FlagEmbedding's FlagReranker with `score(pairs) -> np.ndarray`."""

    def __init__(self, cfg: dict):
        from FlagEmbedding import FlagReranker

        path, _ = resolve_model(cfg["model"])
        device = _device(cfg, "reranker")
        self.batch_size = check_int(runtime(cfg, "reranker")["batch_size"],
                                    "reranker.runtime.batch_size", minimum=1)
        self.max_length = check_int(cfg["max_length"], "reranker.max_length", minimum=1)
        try:
            self.model = FlagReranker(path, use_fp16=_fp16(cfg, "reranker"),
                                      devices=device, batch_size=self.batch_size,
                                      max_length=self.max_length, normalize=False)
        except (OSError, ValueError) as e:
            raise MemrecallError(f"cannot load reranker.model {cfg['model']!r} ({path}): {e}. "
                                 f"Offline, point reranker.model at a local folder.") from None

    def score(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        out = self.model.compute_score([list(p) for p in pairs], batch_size=self.batch_size,
                                       max_length=self.max_length)
        return np.atleast_1d(np.asarray(out, dtype=np.float64))


class CachedReranker:
    """score(list[(query, passage)]) → np.ndarray of raw cross-encoder scores; every pair scored
    once per scoring space. stats: scored (pairs sent to the model), cached, model_calls."""

    def __init__(self, reranker_cfg: dict, model=None):
        self.cfg = reranker_cfg
        _, model_id = resolve_model(reranker_cfg["model"])
        self.space = {"model": model_id,
                      "max_length": check_int(reranker_cfg["max_length"], "reranker.max_length",
                                              minimum=1),
                      "fp16": _fp16(reranker_cfg, "reranker")}
        self.store = score_store(self.space)
        self._model = model
        self.stats = {"scored": 0, "cached": 0, "model_calls": 0}

    @property
    def model(self):
        if self._model is None:
            self._model = FlagCrossEncoder(self.cfg)
        return self._model

    def score(self, pairs: list[tuple[str, str]], desc: str = "rerank") -> np.ndarray:
        hashes = [pair_hash(q, p) for q, p in pairs]
        pair_of = dict(zip(hashes, pairs))
        found, missing = self.store.lookup(hashes)
        self.stats["cached"] += len(found)
        if missing:
            with tqdm(total=len(missing), desc=desc, unit="pair", file=sys.stderr,
                      disable=False) as bar:
                for i in range(0, len(missing), CHUNK):
                    part = missing[i:i + CHUNK]
                    scores = self.model.score([pair_of[h] for h in part])
                    self.stats["model_calls"] += 1
                    self.stats["scored"] += len(part)
                    self.store.put_many(zip(part, scores))
                    found.update(zip(part, (float(s) for s in scores)))
                    bar.update(len(part))
        return np.asarray([found[h] for h in hashes], dtype=np.float64)


def session_passages(turns: pl.DataFrame, session_ids: set[str], key: str,
                     max_chars) -> dict[str, str]:
    by: dict[str, list[tuple[str, str]]] = {}
    for sid, role, content in (turns.filter(pl.col("session_id").is_in(list(session_ids)))
                               .sort("session_id", "turn_index")
                               .select("session_id", "role", "content").iter_rows()):
        by.setdefault(sid, []).append((role, content or ""))
    return {sid: session_text(by.get(sid, []), key, max_chars) for sid in session_ids}


def rerank(questions: pl.DataFrame, turns: pl.DataFrame, candidates: pl.DataFrame,
           reranker_cfg: dict, reranker: CachedReranker | None = None) -> pl.DataFrame:
    # Every key is checked, also for `none`, so a bad value fails before a sweep switches the
    # reranker on.
    top_k = check_int(reranker_cfg["top_k"], "reranker.top_k", minimum=1)
    pool = check_int(reranker_cfg["pool"], "reranker.pool", minimum=1)
    key = choice(reranker_cfg, "key", KEYS, group="reranker")
    max_chars = reranker_cfg["max_chars"]
    check_int(reranker_cfg["max_length"], "reranker.max_length", minimum=1)
    _fp16(reranker_cfg, "reranker")
    check_int(runtime(reranker_cfg, "reranker")["batch_size"], "reranker.runtime.batch_size",
              minimum=1)
    from .graph.rerank import graph_settings

    graph_settings(reranker_cfg)
    cands = candidates.sort("question_id", "rank")
    if reranker_cfg["name"] == "none":
        return cands.filter(pl.col("rank") <= top_k)
    if reranker_cfg["name"] == "graph":  # the entity graph (retrieval/graph/), no cross-encoder
        from .graph.rerank import graph_rerank

        cands = cands.filter(pl.col("rank") <= pool)
        passages = session_passages(turns, set(cands.get_column("session_id").to_list()), key,
                                    max_chars)
        return graph_rerank(questions, cands, passages, reranker_cfg, top_k)
    if not reranker_cfg["model"]:
        raise ConfigError("reranker.model", None, hint="a reranker other than `none` needs a "
                          "model (package:NAME, a local folder or a hub id)")
    cands = cands.filter(pl.col("rank") <= pool)
    passages = session_passages(turns, set(cands.get_column("session_id").to_list()), key,
                                max_chars)
    qtext = dict(questions.select("question_id", "question").iter_rows())
    pairs = [(qtext[q], passages[s]) for q, s in
             cands.select("question_id", "session_id").iter_rows()]
    reranker = reranker or CachedReranker(reranker_cfg)
    scored = cands.with_columns(pl.Series("score", reranker.score(pairs), dtype=pl.Float64))
    kept = [group[rank_order(group.get_column("score").to_numpy())[:top_k]]
            for _, group in scored.group_by("question_id", maintain_order=True)]
    if not kept:
        return scored.head(0)
    return (pl.concat(kept)  # each question's best top_k; ties keep the retriever's order
            .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("question_id")
                          .alias("rank"))
            .sort("question_id", "rank"))


def run_rerank(reranker_cfg: dict, *, questions: str, turns: str, candidates: str,
               out: str) -> pl.DataFrame:
    qdf = read_table(questions, table="questions")
    tdf = read_table(turns, table="turns")
    cdf = read_table(candidates, table="candidates")
    result = rerank(qdf, tdf, cdf, reranker_cfg)
    write_table(result, out, table="candidates", stage="rerank", params=identity(reranker_cfg),
                input_files=[questions, turns, candidates])
    return result
