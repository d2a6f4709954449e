"""`memrecall plan` for the rewrite stage (context.py): the variant and time-range requests
the stage would send (rewriter.llm_requests, the stage's own code), looked up in the LLM cache."""

from __future__ import annotations

from .. import paths
from .context import PlanContext
from .work import LLMWork, StagePlan


def plan_rewrite(ctx: PlanContext, sp: StagePlan) -> None:
    from ..llm.dryrun import DryRunClient
    from ..rewrite.rewriter import llm_requests, rewrite_settings

    cfg = ctx.group("rewrite")
    bench = ctx.benchmark()
    settings = rewrite_settings(cfg, bench.categories if bench is not None else None)
    if settings.mode == "off" or not (settings.n_variants > 0 or settings.time_aware):
        return
    dry = DryRunClient(cfg.get("llm") or {}, "rewrite", where="rewrite.llm", cache=ctx.cache)
    if not ctx.current(paths.QUESTIONS):
        sp.llm.append(
            LLMWork.from_dry_run(dry, "rewrite").calls_unknown(
                "questions not computed for this config yet (at most one or two per question of "
                "the rewrite types)"
            )
        )
        return
    rows = {
        r["question_id"]: r for r in ctx.table(paths.QUESTIONS, "questions").iter_rows(named=True)
    }
    for _, msgs in llm_requests(settings, rows).values():
        dry.complete_many(msgs)
    sp.llm.append(LLMWork.from_dry_run(dry, "rewrite"))
