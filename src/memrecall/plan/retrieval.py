"""`memrecall plan` for the retrieval stages (context.py: what a planner is given):
embed (the key texts the stage would build, through its own code, against the vector cache,
and the fact-expansion calls), retrieve (the question texts dense and hybrid retrieval embed)
and rerank (a local model: nothing to pay)."""

from __future__ import annotations

import contextlib
import io

from .. import paths
from ..hashing import sha256_text
from .context import PlanContext
from .work import LLMWork, StagePlan, TextWork


def plan_embed(ctx: PlanContext, sp: StagePlan) -> None:
    from ..retrieval.embedders import embedding_space
    from ..retrieval.expansion import session_facts
    from ..retrieval.keys import session_keys
    from ..retrieval.store import vector_store

    cfg = ctx.group("embedder")
    if not ctx.current(paths.SESSIONS, paths.TURNS):
        sp.notes.append(
            "sessions/turns not computed for this config yet (download runs first): texts unknown"
        )
        return
    sessions, turns = ctx.table(paths.SESSIONS), ctx.table(paths.TURNS)
    facts = {}
    if (cfg.get("expansion") or "none") != "none":
        from ..llm.dryrun import DryRunClient

        dry = DryRunClient(
            cfg["expansion_llm"], "embed", where="embedder.expansion_llm", cache=ctx.cache
        )
        # The stage reports each call not sent as a failed extraction: by design here.
        with contextlib.redirect_stderr(io.StringIO()):
            facts = session_facts(sessions, turns, cfg, client=dry)
        work = LLMWork.from_dry_run(dry, "embed (fact expansion)")
        sp.llm.append(work)
        if work.new:
            sp.notes.append(
                f"{len(work.new)} session key(s) depend on fact calls not yet made: "
                f"their texts are counted as new"
            )
    from .. import benchmarks

    keys = session_keys(
        sessions,
        turns,
        cfg,
        facts=facts,
        speaker_column=benchmarks.of_artifact(ctx.path(paths.TURNS)).speaker_column,
    )
    hashes = list(dict.fromkeys(sha256_text(t) for t in keys.get_column("text").to_list()))
    found, missing = vector_store(embedding_space(cfg)).lookup(hashes)
    sp.texts.append(
        TextWork(
            "key texts",
            len(hashes),
            len(found),
            len(missing),
            estimated=bool(sp.llm and sp.llm[0].new),
        )
    )


def plan_retrieve(ctx: PlanContext, sp: StagePlan) -> None:
    """The question texts the retrieve stage embeds (dense and hybrid retrieval)."""
    from ..retrieval.embedders import embedding_space
    from ..retrieval.store import vector_store

    if ctx.group("retrieval").get("method") not in ("dense", "hybrid"):
        return
    if not ctx.current(paths.QUESTIONS):
        sp.texts.append(TextWork("query texts", estimated=True))
        return
    q = ctx.table(paths.QUESTIONS, "questions")
    hashes = list(dict.fromkeys(sha256_text(t) for t in q.get_column("question").to_list()))
    found, missing = vector_store(embedding_space(ctx.group("embedder"))).lookup(hashes)
    sp.texts.append(TextWork("query texts", len(hashes), len(found), len(missing)))


def plan_rerank(ctx: PlanContext, sp: StagePlan) -> None:
    name = ctx.group("reranker").get("name")
    if name == "graph":  # entity extraction through the LLM layer when graph.extractor=llm
        from .graph import plan_graph_rerank

        plan_graph_rerank(ctx, sp)
    elif name not in (None, "none"):
        sp.notes.append("cross-encoder pairs are not planned (local model, no fee)")
