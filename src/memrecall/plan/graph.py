"""`memrecall plan` for reranker=graph with `graph.extractor=llm`: the entity-extraction calls,
priced before they are paid (the offline extractor calls no model: no work).

plan_graph_rerank(ctx, sp) fills the rerank stage's plan. With the
stage's inputs fresh (questions, turns, the retrieve candidates are this config's), every request
is rendered as the stage would send it (each pool session's key text and each question) through
the plan's dry-run client, so cached ones count as cached; otherwise it estimates one call per
pool session and question at `max_chars` of input.
"""

from __future__ import annotations

import polars as pl

from .. import paths
from ..artifacts import read_table
from ..config import check_int, choice
from ..retrieval.graph.entities import entity_messages
from ..retrieval.graph.rerank import graph_settings
from ..retrieval.keys import KEYS

INPUTS = (paths.QUESTIONS, paths.TURNS, paths.CANDIDATES_RETRIEVE)


def plan_graph_rerank(ctx, sp) -> None:
    """Fill the rerank stage's plan `sp` (plan/context.py) with the entity extraction calls of
    graph.extractor=llm: rendered against the LLM cache when the pools are this config's, else
    estimated at most one call per pool session and question."""
    from ..llm.dryrun import DryRunClient
    from ..retrieval.rerank import session_passages
    from .work import LLMWork

    cfg = ctx.group("reranker")
    if cfg["name"] != "graph" or graph_settings(cfg)["extractor"] != "llm":
        return
    pool = check_int(cfg["pool"], "reranker.pool", minimum=1)
    key = choice(cfg, "key", KEYS, group="reranker")
    dry = DryRunClient(cfg["graph"]["llm"], "rerank", where="reranker.graph.llm", cache=ctx.cache)
    if ctx.current(*INPUTS):
        questions = read_table(ctx.path(paths.QUESTIONS))
        cands = read_table(ctx.path(paths.CANDIDATES_RETRIEVE)).filter(pl.col("rank") <= pool)
        passages = session_passages(
            read_table(ctx.path(paths.TURNS)),
            set(cands.get_column("session_id").to_list()),
            key,
            cfg["max_chars"],
        )
        texts = [passages[s] for s in sorted(passages)] + questions.get_column("question").to_list()
        dry.complete_many([entity_messages(t) for t in texts if t.strip()])
        sp.llm.append(LLMWork.from_dry_run(dry, "rerank (graph entities)"))
        return
    work = LLMWork.from_dry_run(dry, "rerank (graph entities)")
    n_q, how = ctx.question_count()
    if n_q is None:
        work.calls_unknown(how)
    else:
        chars = (cfg["max_chars"] or 3500) + len(entity_messages("")[0]["content"])
        work.estimate(
            n_q * (pool + 1),
            chars / 4,
            f"{n_q} questions x ({pool} pool sessions "
            f"+ the question), ~4 chars/token, at most; retrieval not run yet",
        )
    sp.llm.append(work)
