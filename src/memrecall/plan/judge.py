"""`memrecall plan` for the judge stage (context.py): an LLM judge's requests for the
answers the read plan expects (or the answers artifact, when read would not run), rendered by
the stage's own code (judge_answers through the dry-run client) and looked up in the LLM cache;
answers not known yet are estimated, one call per question. The rule judge and imported labels
(judge=file) call no model; a routed judge calls its referee for the answers its rules refer
(known only once the answers are: until then, one call per question is the most it can cost)."""

from __future__ import annotations

import polars as pl

from .. import paths
from .context import PlanContext
from .work import LLMWork, StagePlan

# judge=routed before its answers are known: each question's referee call is counted
AT_MOST = "judge=routed: at most; its rules refer only some of the answers"


def plan_judge(ctx: PlanContext, sp: StagePlan) -> None:
    from ..judge.stage import judge_kind

    cfg = ctx.group("judge")
    kind = judge_kind(cfg)
    if kind in ("panel", "routed"):
        from ..judge.panel import members_of

        members = members_of(cfg)
        if kind == "routed":  # the referee, on the answers the rules refer
            from ..judge.routed import check_members

            _, (_, referee) = check_members(members)
            _plan_one(ctx, sp, referee, routed=cfg)
            return
        for member in members.values():  # each as if it ran alone (their calls cache apart)
            _plan_one(ctx, sp, member)
        return
    _plan_one(ctx, sp, cfg)


def _plan_one(ctx: PlanContext, sp: StagePlan, cfg: dict, routed: dict | None = None) -> None:
    """`routed`: the routed judge whose referee `cfg` is (only what its rules refer is sent)."""
    from ..judge.stage import judge_answers, judge_kind
    from ..llm.dryrun import NOT_SENT, DryRunClient

    kind = judge_kind(cfg)
    if kind in ("rule", "file"):
        sp.notes.append(f"judge={kind}: no LLM calls")
        return
    reader_cfg = ctx.group("reader")
    read = ctx.stages.get("read")
    if read is not None and read.runs:
        answers = read.output.get("answers")
        # the length assumed for answers not known yet: the read plan's expected output
        answer_tokens = read.llm[0].output_per_call()[0] if read.llm else None
    else:
        answers = ctx.table(paths.ANSWERS) if ctx.current(paths.ANSWERS) else None
        answer_tokens = None
    dry = DryRunClient(cfg, "judge", cache=ctx.cache)
    have_q = ctx.current(paths.QUESTIONS)
    bench = ctx.benchmark()
    if answers is None or not have_q:
        w = LLMWork.from_dry_run(dry, "judge")
        if routed is not None:
            w.notes.append(AT_MOST)
        if have_q:
            q = ctx.table(paths.QUESTIONS, "questions")
            w.estimate(
                q.height,
                _judge_tokens(w, bench, q, reader_cfg, answer_tokens, cfg["wording"]),
                "one per question; answers not known yet",
            )
        else:
            n_q, how = ctx.question_count()
            if n_q is None:
                w.calls_unknown(how)
            else:
                w.estimate(
                    n_q,
                    200 + int(reader_cfg.get("max_tokens") or 64),
                    f"one per question ({how}); prompt ~200 tokens + the answer",
                )
        sp.llm.append(w)
        return
    questions = ctx.table(paths.QUESTIONS, "questions")
    verdicts = judge_answers(bench, questions, answers, routed or cfg, client=dry)
    w = LLMWork.from_dry_run(dry, "judge")
    pending = verdicts.filter(
        pl.col("reader_failed") & pl.col("error").str.contains(NOT_SENT, literal=True)
    )
    if pending.height:
        tok = _judge_tokens(
            w,
            bench,
            questions.filter(
                pl.col("question_id").is_in(pending.get_column("question_id").implode())
            ),
            reader_cfg,
            answer_tokens,
            cfg["wording"],
        )
        w.estimate(
            pending.height, tok, "answers the read stage has not paid for yet (assumed to succeed)"
        )
        if routed is not None:
            w.notes.append(AT_MOST)
    sp.llm.append(w)


def _judge_tokens(
    w: LLMWork,
    bench,
    questions: pl.DataFrame,
    reader_cfg: dict,
    answer_tokens: float | None = None,
    wording: str | None = None,
) -> float:
    """Mean input tokens of the benchmark's own-wording judge prompts (in `wording`; the
    official judge's, which are not read here, as the strict ones) for these questions, with
    a hypothesis as long as the reader's expected output (else its max_tokens, at most 64)."""
    from ..llm.pricing import count_tokens

    n = answer_tokens or min(int(reader_cfg.get("max_tokens") or 64), 64)
    hyp = "x " * max(1, int(round(n)))
    toks = [
        count_tokens(
            w.litellm_model,
            bench.judge_prompt(
                {**r, "answer": str(r["answer"]), "hypothesis": hyp, **bench.judge_item(r)},
                "strict" if wording is None else wording,
            ).messages,
        )
        for r in questions.head(50).iter_rows(named=True)
    ]
    return sum(toks) / len(toks) if toks else 0.0
