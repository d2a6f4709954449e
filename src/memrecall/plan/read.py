"""`memrecall plan` for the read stage (context.py): by `reader.kind`, as the stage
dispatches (reader.run_read):

- llm: the stage's own code renders each question's requests (build_contexts, answer_questions,
  through the dry-run client), looked up in the LLM cache;
- file: answers imported from `reader.path`: no model calls, nothing to pay; the answers the
  file gives are handed to the judge's plan;
- plugin (a `reader.callable`): the plug-in calls its own model, not our client, so its calls
  are named as not counted; nothing is invented for them.

`sp.output["answers"]`: the answers table the run would write, as far as the cache knows it.
"""

from __future__ import annotations

import polars as pl

from .. import paths
from .context import PlanContext
from .work import LLMWork, StagePlan


def plan_read(ctx: PlanContext, sp: StagePlan) -> None:
    from ..read.stage import reader_kind

    cfg = ctx.group("reader")
    kind = reader_kind(cfg)
    if kind == "file":
        _plan_file(ctx, sp, cfg)
    elif kind == "plugin":
        sp.not_counted.append(
            f"the reader plug-in {cfg['callable']} calls its own model (its code, not our LLM "
            f"client): its calls, tokens and cost are not counted"
        )
    elif kind == "router":
        _plan_router(ctx, sp, cfg)
    else:
        _plan_llm(ctx, sp, cfg)


def _plan_router(ctx: PlanContext, sp: StagePlan, cfg: dict) -> None:
    """reader=router: each route priced apart, as its own reader on the questions it takes
    (every question, an upper bound said in a note, before questions.parquet exists)."""
    from ..read.router import assign, routes_of

    routes = routes_of(cfg)
    questions = ctx.table(paths.QUESTIONS) if ctx.current(paths.QUESTIONS) else None
    assigned = assign(questions, routes) if questions is not None else None
    for route in routes:
        before = len(sp.llm)
        only = set(assigned[route.name]) if assigned is not None else None
        _plan_llm(ctx, sp, route.cfg, only=only)
        for w in sp.llm[before:]:
            w.label = f"{w.label} (route {route.name}: {route.cfg['name']})"
            if only is None:
                w.notes.append(
                    f"route {route.name}: every question counted (its share is "
                    f"known once questions.parquet exists): an upper bound"
                )
    sp.output.pop("answers", None)  # the routes' answers are not one table here


def _plan_file(ctx: PlanContext, sp: StagePlan, cfg: dict) -> None:
    from ..read.imported import answers_from_file, hypotheses_path

    sp.notes.append(f"answers imported from {hypotheses_path(cfg)} (reader=file): no LLM calls, $0")
    if ctx.current(paths.QUESTIONS):
        sp.output["answers"] = answers_from_file(ctx.table(paths.QUESTIONS, "questions"), cfg)


def _plan_llm(ctx: PlanContext, sp: StagePlan, cfg: dict, only: set | None = None) -> None:
    """The requests as far as they can be rendered: exactly when the stage's inputs are this
    config's; from the current candidates, all counted as new, when an upstream retrieval stage
    would run first; an estimate per question before the dataset tables exist. `only`: the
    question ids to plan (a router's route), None: all."""
    from ..llm.dryrun import DryRunClient
    from ..llm.pricing import count_tokens
    from ..read.reader import answer_messages, answer_questions, build_contexts, reader_settings

    dry = DryRunClient(cfg, "read", cache=ctx.cache)
    data = (paths.QUESTIONS, paths.SESSIONS, paths.TURNS)
    bench = ctx.benchmark()
    if bench is None:
        sp.llm.append(
            LLMWork.from_dry_run(dry, "read").calls_unknown(
                "the dataset file is not at hand before the download stage (its benchmark's "
                "prompts are not known)"
            )
        )
        return
    if not (ctx.current(*data) and ctx.exists(paths.CANDIDATES_REWRITE)):
        settings = reader_settings(cfg, bench)
        per_q = 1 + (settings.top_k_context if settings.reading == "con" else 0)
        w = LLMWork.from_dry_run(dry, "read")
        n_q, how = (
            (ctx.table(paths.QUESTIONS).height, "questions.parquet")
            if ctx.current(paths.QUESTIONS)
            else ctx.question_count()
        )
        if only is not None:
            n_q, how = len(only), "the route's questions"
        if n_q is None:
            w.calls_unknown(how)
        else:
            prompt_chars = settings.top_k_context * settings.max_chars_per_session + 2000
            w.estimate(
                n_q * per_q,
                prompt_chars / 4 / per_q,
                f"{n_q} questions x {per_q} call(s), ~4 chars/token, candidates not computed yet",
            )
        sp.llm.append(w)
        return
    inputs = data + (paths.CANDIDATES_REWRITE,)
    tables = [ctx.table(p) for p in inputs]
    if only is not None:
        tables[0] = tables[0].filter(pl.col("question_id").is_in(sorted(only)))
    settings = reader_settings(cfg, bench)  # the benchmark's prompts, as run_read chooses them
    contexts = build_contexts(
        settings,
        *tables,
        str(ctx.path(paths.CANDIDATES_REWRITE)),
        speaker_column=bench.speaker_column,
        question_text=bench.reader_question,
    )
    answers, _ = answer_questions(cfg, settings, contexts, dry)
    w = LLMWork.from_dry_run(dry, "read")
    sp.llm.append(w)
    # reading=con: an answer whose notes are not cached cannot be rendered: one call each,
    # its prompt rendered with notes as long as the expected note output.
    waiting = set(
        answers.filter(pl.col("error").str.starts_with("reading notes:"))
        .get_column("question_id")
        .to_list()
    )
    answer_tok = 0
    if waiting:
        out_each, _ = w.output_per_call()
        ctx_q = next(c for c in contexts if c.question_id in waiting)
        answer_tok = count_tokens(
            w.litellm_model,
            answer_messages(settings, ctx_q, ["x " * int(out_each)] * len(ctx_q.sessions)),
        )
    if not ctx.current(paths.CANDIDATES_REWRITE):
        # Upstream would change the candidates: every request is new; tokens as rendered now.
        tokens = [count_tokens(w.litellm_model, m) for _, m, _ in dry.requests]
        tokens += [answer_tok] * len(waiting)
        w.new.clear(), w.cached.clear()
        w.estimate(
            len(tokens),
            sum(tokens) / max(1, len(tokens)),
            "an upstream stage would "
            "run first: requests rendered from the current candidates, all counted as new",
        )
        return
    w.estimate(len(waiting), answer_tok, "reading=con answers whose notes are not cached yet")
    sp.output["answers"] = answers
