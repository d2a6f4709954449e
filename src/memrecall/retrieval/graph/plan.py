"""`memrecall plan` for reranker=graph with `graph.extractor=llm`: the entity-extraction calls,
priced before they are paid (the offline extractor calls no model: no work).

plan_graph_rerank(root, params, fresh, cache) -> [LLMWork] for the rerank stage's plan. With the
stage's inputs fresh (questions, turns, the retrieve candidates are this config's), every request
is rendered as the stage would send it (each pool session's key text and each question) through
the plan's dry-run client, so cached ones count as cached; otherwise it estimates one call per
pool session and question at `max_chars` of input.
"""

from __future__ import annotations

import polars as pl

from ... import paths
from ...artifacts import read_table
from ..keys import KEYS
from ...config import check_int, choice
from .entities import entity_messages
from .rerank import graph_settings

INPUTS = (paths.QUESTIONS, paths.TURNS, paths.CANDIDATES_RETRIEVE)


def plan_graph_rerank(root, params: dict, fresh: bool, cache=None) -> list:
    from ...plan import DryRunClient, question_count
    from ..rerank import session_passages

    cfg = params["reranker"]
    if cfg["name"] != "graph" or graph_settings(cfg)["extractor"] != "llm":
        return []
    pool = check_int(cfg["pool"], "reranker.pool", minimum=1)
    key = choice(cfg, "key", KEYS, group="reranker")
    dry = DryRunClient(cfg["graph"]["llm"], "rerank", where="reranker.graph.llm", cache=cache)
    if fresh and all((root / p).exists() for p in INPUTS):
        questions = read_table(root / paths.QUESTIONS)
        cands = read_table(root / paths.CANDIDATES_RETRIEVE).filter(pl.col("rank") <= pool)
        passages = session_passages(read_table(root / paths.TURNS),
                                    set(cands.get_column("session_id").to_list()), key,
                                    cfg["max_chars"])
        texts = [passages[s] for s in sorted(passages)] + questions.get_column(
            "question").to_list()
        dry.complete_many([entity_messages(t) for t in texts if t.strip()])
        return [dry.work("rerank (graph entities)")]
    work = dry.work("rerank (graph entities)")
    n_q, how = question_count(params, root)
    if n_q is None:
        work.unknown = True
        work.notes.append(f"calls unknown: {how}")
    else:
        chars = (cfg["max_chars"] or 3500) + len(entity_messages("")[0]["content"])
        work.estimate(n_q * (pool + 1), chars / 4, f"{n_q} questions x ({pool} pool sessions "
                      f"+ the question), ~4 chars/token, at most; retrieval not run yet")
    return [work]
