"""`reranker=graph`: re-score each question's candidate pool with its entity graph, keep top_k.

For one question:
1. the pool: its first `reranker.pool` candidates, with their current scores (the retriever's);
2. entities of each pool session's key text (`reranker.key`, `reranker.max_chars`) and of the
   question, by `reranker.graph.extractor` (entities.py);
3. the graph of the pool (store.py): sessions MENTION entities, entities seen together in a
   session CO_OCCUR; the question's entities and everything within `graph.hops` CO_OCCUR steps
   are reached, each at its shortest distance d;
4. graph score g(s) = sum over the session's reached entities of idf * decay^d (`graph.decay`);
5. final score = (1 - w) * minmax(current score) + w * g(s) / max g, w = `graph.weight`, both
   terms in [0, 1] within the pool. A question with no entity in its pool keeps its order.
Ties keep the incoming order (ranking.rank_order).
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
from tqdm import tqdm

from ...config import check_int, choice
from ...errors import ConfigError
from ..keys import KEYS
from ..ranking import rank_order
from .entities import EXTRACTORS, EntityExtractor
from .store import SessionGraph


def _unit_float(cfg: dict, key: str) -> float:
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
        raise ConfigError(f"reranker.graph.{key}", v, hint="a number in [0, 1]")
    return float(v)


def graph_settings(reranker_cfg: dict) -> dict:
    """The checked `reranker.graph` knobs (every option carries them: checked for all)."""
    graph_cfg = reranker_cfg["graph"]
    return {
        "extractor": choice(graph_cfg, "extractor", EXTRACTORS, group="reranker.graph"),
        "hops": check_int(graph_cfg["hops"], "reranker.graph.hops", minimum=0),
        "decay": _unit_float(graph_cfg, "decay"),
        "weight": _unit_float(graph_cfg, "weight"),
        "max_entities": check_int(
            graph_cfg["max_entities"], "reranker.graph.max_entities", minimum=1
        ),
    }


def minmax(x: np.ndarray) -> np.ndarray:
    """x scaled to [0, 1]; all equal (or one value): zeros, so it adds no order of its own. A
    score that is not finite (a session without units: -inf) counts as the lowest."""
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x)
    x = np.where(finite, x, np.min(x[finite]) if finite.any() else 0.0)
    span = float(np.max(x) - np.min(x)) if len(x) else 0.0
    return (x - np.min(x)) / span if span > 0 else np.zeros_like(x)


def blend(current: np.ndarray, graph: np.ndarray, weight: float) -> np.ndarray:
    top = float(np.max(graph)) if len(graph) else 0.0
    g = graph / top if top > 0 else np.zeros_like(graph)
    return (1.0 - weight) * minmax(current) + weight * g


def graph_rerank(
    questions: pl.DataFrame,
    candidates: pl.DataFrame,
    passages: dict[str, str],
    reranker_cfg: dict,
    top_k: int,
    extractor: EntityExtractor | None = None,
) -> pl.DataFrame:
    """`candidates` (each question's pool, rank order) re-scored and cut to top_k; `passages`:
    each pool session's key text."""
    s = graph_settings(reranker_cfg)
    choice(reranker_cfg, "key", KEYS, group="reranker")
    extractor = extractor or EntityExtractor(
        s["extractor"], s["max_entities"], reranker_cfg["graph"]["llm"]
    )
    sids = sorted(passages)
    session_ents = dict(
        zip(sids, extractor.entities([passages[i] for i in sids], desc="entities (sessions)"))
    )
    qtext = dict(questions.select("question_id", "question").iter_rows())
    groups = list(candidates.group_by("question_id", maintain_order=True))
    qids = [k[0] for k, _ in groups]
    q_ents = dict(
        zip(qids, extractor.entities([qtext[q] for q in qids], desc="entities (questions)"))
    )
    kept = []
    for (qid,), group in tqdm(groups, desc="graph rerank", unit="question", file=sys.stderr):
        pool = group.get_column("session_id").to_list()
        graph = SessionGraph({sid: session_ents[sid] for sid in dict.fromkeys(pool)})
        scores = graph.session_scores(graph.reached(q_ents[qid], s["hops"]), s["decay"])
        g = np.array([scores.get(sid, 0.0) for sid in pool])
        final = blend(group.get_column("score").to_numpy(), g, s["weight"])
        scored = group.with_columns(pl.Series("score", final, dtype=pl.Float64))
        kept.append(scored[rank_order(final)[:top_k]])
    if not kept:
        return candidates.head(0)
    return (
        pl.concat(kept)
        .with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("question_id").alias("rank")
        )
        .sort("question_id", "rank")
    )
