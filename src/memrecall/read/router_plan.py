"""`memrecall plan` for reader=router: each route priced apart, as its own reader on its own
questions.

plan_router_read has plan.plan_read's signature and return value ((work items, the answers the
run would write as far as the cache knows them, mode)), so the plan calls it in plan_read's
place when params["reader"]["kind"] == "router". Each route is one work item labelled
"read (route NAME: OPTION)", with that route's model, prices, cache and concurrency:
- rendered (the read stage's inputs are this config's): each route's requests are rendered for
  the questions it takes, through the plan's dry-run client (nothing is sent), as the stage
  would send them;
- estimate (an upstream stage would run first): plan_read's estimate for the route's reader,
  scaled by the share of questions the route takes when questions.parquet is there (otherwise
  every question is counted for every route: an upper bound, said in the work item's notes).
"""

from __future__ import annotations

import polars as pl

from .. import paths
from ..artifacts import read_table
from .router import ROUTE_COLUMN, assign, routes_of

INPUTS = (paths.QUESTIONS, paths.SESSIONS, paths.TURNS, paths.CANDIDATES_REWRITE)


def _label(work, route) -> None:
    work.label = f"{work.label} (route {route.name}: {route.cfg['name']})"


def plan_router_read(root, params: dict, fresh: bool, cache=None, data_fresh: bool = True):
    from ..plan import DryRunClient, plan_read
    from .reader import answer_questions, build_contexts, reader_settings

    routes = routes_of(params["reader"])
    have = [(root / p).exists() for p in INPUTS]
    qdf = read_table(root / paths.QUESTIONS) if data_fresh and have[0] else None
    assigned = assign(qdf, routes) if qdf is not None else None
    if fresh and data_fresh and all(have):
        sessions, turns = read_table(root / paths.SESSIONS), read_table(root / paths.TURNS)
        cands = read_table(root / paths.CANDIDATES_REWRITE)
        works, frames = [], []
        for route in routes:
            ids = assigned[route.name]
            settings = reader_settings(route.cfg, two_person="speaker" in turns.columns)
            dry = DryRunClient(route.cfg, "read", cache=cache)
            contexts = build_contexts(settings, qdf.filter(pl.col("question_id").is_in(ids)),
                                      sessions, turns, cands, str(root / INPUTS[-1]))
            answers, _ = answer_questions(route.cfg, settings, contexts, dry)
            work = dry.work("read")
            _label(work, route)
            works.append(work)
            frames.append(answers.with_columns(pl.lit(route.name).alias(ROUTE_COLUMN)))
        return works, pl.concat(frames).sort("question_id"), "rendered"
    works = []
    for route in routes:
        for work in plan_read(root, {**params, "reader": route.cfg}, fresh, cache,
                              data_fresh=data_fresh)[0]:
            _label(work, route)
            if assigned is not None and qdf.height:
                share = len(assigned[route.name]) / qdf.height
                work.estimated_calls = round(work.estimated_calls * share)
                work.estimated_input_tokens *= share
                work.notes.append(f"route {route.name}: {len(assigned[route.name])} of "
                                  f"{qdf.height} questions")
            else:
                work.notes.append(f"route {route.name}: every question counted (its share is "
                                  f"known once questions.parquet exists): an upper bound")
            works.append(work)
    return works, None, "estimate"
