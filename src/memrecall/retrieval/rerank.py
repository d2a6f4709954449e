"""The rerank stage: re-score the retriever's candidates with a cross-encoder, keep top_k (15).

`reranker.name` is the kind (RERANKERS; an unknown one lists the valid ones). `none` passes each
question's first top_k candidates through unchanged. `bge_reranker_v2_m3` loads `reranker.model`
(package:NAME, a local folder or a hub id, as for the embedder) with FlagEmbedding's
FlagReranker, scores (question, session passage) pairs in batches and keeps the
best top_k, ranked by ranking.py (ties keep the retriever's order). A session's passage is its
key text (`reranker.key` user/all, `reranker.max_chars`), the model truncates it to
`reranker.max_length` tokens.

Scores are cached like embeddings: sqlite at paths.cache_dir("rerank"), one file per scoring
space (model identity, max_length, precision), keyed by sha256 of the (query, passage) pair.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from tqdm import tqdm

from ..artifacts import read_table, write_table
from ..config import Kind, Registry, check_int, choice, identity, runtime
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_text
from .embedders import KEYS, check_device_visible, device_setting, fp16_setting, resolve_model
from .keys import session_text
from .ranking import rank_order
from .store import score_store

CHUNK = 512  # pairs per model call


def pair_hash(query: str, passage: str) -> str:
    return sha256_text(query + "\x1f" + passage)


@dataclass(frozen=True)
class RerankerSettings:
    """The reranker group, checked (`reranker_settings`); `kind` is `reranker.name`. Every key
    is checked, also for `none`, so a bad value fails before a sweep switches the reranker on."""

    kind: str
    model: str | None
    top_k: int
    pool: int
    key: str
    max_chars: int | None
    max_length: int
    fp16: bool
    device: str = field(compare=False)  # runtime: how, not what
    batch_size: int = field(compare=False)  # runtime
    graph: dict = field(default_factory=dict)  # reranker.graph, checked (graph/rerank.py)
    cfg: dict = field(default_factory=dict, compare=False)  # the node, for the graph's LLM


def _reranker_settings(cfg: dict) -> RerankerSettings:
    from .graph.rerank import graph_settings

    kind = cfg["name"]
    model = cfg["model"]
    if kind in CROSS_ENCODERS and not model:
        raise ConfigError(
            "reranker.model",
            None,
            hint="a cross-encoder reranker needs a "
            "model (package:NAME, a local folder or a hub id)",
        )
    return RerankerSettings(
        kind=kind,
        model=model,
        top_k=check_int(cfg["top_k"], "reranker.top_k", minimum=1),
        pool=check_int(cfg["pool"], "reranker.pool", minimum=1),
        key=choice(cfg, "key", KEYS, group="reranker"),
        max_chars=cfg["max_chars"],
        max_length=check_int(cfg["max_length"], "reranker.max_length", minimum=1),
        fp16=fp16_setting(cfg, "reranker"),
        device=device_setting(cfg, "reranker"),
        batch_size=check_int(
            runtime(cfg, "reranker")["batch_size"], "reranker.runtime.batch_size", minimum=1
        ),
        graph=graph_settings(cfg),
        cfg=cfg,
    )


class FlagCrossEncoder:
    """FlagEmbedding's FlagReranker with `score(pairs) -> np.ndarray`."""

    def __init__(self, settings: RerankerSettings):
        from FlagEmbedding import FlagReranker

        path, _ = resolve_model(settings.model)
        device = check_device_visible(settings.device, "reranker")
        self.batch_size, self.max_length = settings.batch_size, settings.max_length
        try:
            self.model = FlagReranker(
                path,
                use_fp16=settings.fp16,
                devices=device,
                batch_size=self.batch_size,
                max_length=self.max_length,
                normalize=False,
            )
        except (OSError, ValueError) as e:
            raise MemrecallError(
                f"cannot load reranker.model {settings.model!r} ({path}): "
                f"{e}. Offline, point reranker.model at a local folder."
            ) from None

    def score(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        out = self.model.compute_score(
            [list(p) for p in pairs], batch_size=self.batch_size, max_length=self.max_length
        )
        return np.atleast_1d(np.asarray(out, dtype=np.float64))


class CachedReranker:
    """score(list[(query, passage)]) → np.ndarray of raw cross-encoder scores; every pair scored
    once per scoring space. stats: scored (pairs sent to the model), cached, model_calls."""

    def __init__(self, reranker: dict | RerankerSettings, model=None):
        self.settings = reranker_settings(reranker)
        _, model_id = resolve_model(self.settings.model)
        self.space = {
            "model": model_id,
            "max_length": self.settings.max_length,
            "fp16": self.settings.fp16,
        }
        self.store = score_store(self.space)
        self._model = model
        self.stats = {"scored": 0, "cached": 0, "model_calls": 0}

    @property
    def model(self):
        if self._model is None:
            self._model = FlagCrossEncoder(self.settings)
        return self._model

    def score(self, pairs: list[tuple[str, str]], desc: str = "rerank") -> np.ndarray:
        hashes = [pair_hash(q, p) for q, p in pairs]
        pair_of = dict(zip(hashes, pairs))
        found, missing = self.store.lookup(hashes)
        self.stats["cached"] += len(found)
        if missing:
            with tqdm(
                total=len(missing), desc=desc, unit="pair", file=sys.stderr, disable=False
            ) as bar:
                for i in range(0, len(missing), CHUNK):
                    part = missing[i : i + CHUNK]
                    scores = self.model.score([pair_of[h] for h in part])
                    self.stats["model_calls"] += 1
                    self.stats["scored"] += len(part)
                    self.store.put_many(zip(part, scores))
                    found.update(zip(part, (float(s) for s in scores)))
                    bar.update(len(part))
        return np.asarray([found[h] for h in hashes], dtype=np.float64)


def session_passages(
    turns: pl.DataFrame, session_ids: set[str], key: str, max_chars
) -> dict[str, str]:
    by: dict[str, list[tuple[str, str]]] = {}
    for sid, role, content in (
        turns.filter(pl.col("session_id").is_in(list(session_ids)))
        .sort("session_id", "turn_index")
        .select("session_id", "role", "content")
        .iter_rows()
    ):
        by.setdefault(sid, []).append((role, content or ""))
    return {sid: session_text(by.get(sid, []), key, max_chars) for sid in session_ids}


def pass_through(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    s: RerankerSettings,
    reranker=None,
) -> pl.DataFrame:
    """`none`: each question's first top_k candidates, unchanged."""
    return candidates.sort("question_id", "rank").filter(pl.col("rank") <= s.top_k)


def cross_encode(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    s: RerankerSettings,
    reranker: CachedReranker | None = None,
) -> pl.DataFrame:
    """Each question's first `pool` candidates re-scored by the cross-encoder, best top_k kept."""
    cands = candidates.sort("question_id", "rank").filter(pl.col("rank") <= s.pool)
    passages = session_passages(
        turns, set(cands.get_column("session_id").to_list()), s.key, s.max_chars
    )
    qtext = dict(questions.select("question_id", "question").iter_rows())
    pairs = [
        (qtext[q], passages[sid])
        for q, sid in cands.select("question_id", "session_id").iter_rows()
    ]
    reranker = reranker or CachedReranker(s)
    scored = cands.with_columns(pl.Series("score", reranker.score(pairs), dtype=pl.Float64))
    kept = [
        group[rank_order(group.get_column("score").to_numpy())[: s.top_k]]
        for _, group in scored.group_by("question_id", maintain_order=True)
    ]
    if not kept:
        return scored.head(0)
    return (
        pl.concat(kept)  # each question's best top_k; ties keep the retriever's order
        .with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("question_id").alias("rank")
        )
        .sort("question_id", "rank")
    )


# `reranker.name` -> (its settings, the code that re-ranks the retrieved candidates).
def graph(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    s: RerankerSettings,
    reranker=None,
) -> pl.DataFrame:
    """`graph`: each question's first `pool` candidates re-scored by the entity graph
    (retrieval/graph/), best top_k kept; no cross-encoder."""
    from .graph.rerank import graph_rerank

    cands = candidates.sort("question_id", "rank").filter(pl.col("rank") <= s.pool)
    passages = session_passages(
        turns, set(cands.get_column("session_id").to_list()), s.key, s.max_chars
    )
    return graph_rerank(questions, cands, passages, s.cfg, s.top_k)


RERANKERS = Registry(
    "reranker",
    "name",
    {
        "none": Kind(_reranker_settings, pass_through),
        "bge_reranker_v2_m3": Kind(_reranker_settings, cross_encode),
        "graph": Kind(_reranker_settings, graph),
    },
)
# The kinds that score (query, passage) pairs with CachedReranker: rewrite re-scores its
# variants' pools with them too.
CROSS_ENCODERS = ("bge_reranker_v2_m3",)


def reranker_settings(cfg: dict | RerankerSettings) -> RerankerSettings:
    """The reranker group checked once (settings pass through unchanged)."""
    return cfg if isinstance(cfg, RerankerSettings) else RERANKERS.settings(cfg)


def rerank(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    reranker_cfg: dict | RerankerSettings,
    reranker: CachedReranker | None = None,
) -> pl.DataFrame:
    s = reranker_settings(reranker_cfg)
    return RERANKERS.run(s.kind)(questions, turns, candidates, s, reranker)


def run_rerank(
    reranker_cfg: dict, *, questions: str, turns: str, candidates: str, out: str
) -> pl.DataFrame:
    settings = reranker_settings(reranker_cfg)  # the whole group, checked before any work
    qdf = read_table(questions, table="questions")
    tdf = read_table(turns, table="turns")
    cdf = read_table(candidates, table="candidates")
    result = rerank(qdf, tdf, cdf, settings)
    write_table(
        result,
        out,
        table="candidates",
        stage="rerank",
        params=identity(reranker_cfg),
        input_files=[questions, turns, candidates],
    )
    return result
