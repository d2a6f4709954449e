"""Per-route figures of a reader=router run (read/router.py writes the answers' `route` column):
questions, accuracy over the judged ones, refusal rate over the answered ones, reader errors,
tokens and cost per route. metrics.json gets them under `routes` (an extra key: the contract keys
stay as they are) and reports/cost.md a table; runs of other readers get neither."""

from __future__ import annotations

import polars as pl

from .tables import Column, Table, integer, number, pct

ROUTE_COLUMN = "route"  # read/router.py


def route_metrics(answers: pl.DataFrame, per_question: pl.DataFrame) -> dict | None:
    """{route: {n, model, accuracy, n_judged, refusal_rate, reader_errors, input_tokens,
    output_tokens, reasoning_tokens, cost_usd}}, or None when the answers carry no route."""
    if ROUTE_COLUMN not in answers.columns:
        return None
    df = answers.join(per_question.select("question_id", "correct"), on="question_id", how="left")
    out = {}
    for (route,), g in df.group_by(ROUTE_COLUMN, maintain_order=True):
        answered = g.filter(pl.col("error").is_null())
        judged = g.filter(pl.col("correct").is_not_null())
        out[route] = {
            "n": g.height,
            "model": sorted(set(g["model"].drop_nulls().to_list())),
            "accuracy": float(judged["correct"].mean()) if judged.height else None,
            "n_judged": judged.height,
            "refusal_rate": (
                float(answered["refused"].fill_null(False).mean()) if answered.height else None
            ),
            "reader_errors": g.height - answered.height,
            **{
                k: int(g[k].fill_null(0).sum())
                for k in ("input_tokens", "output_tokens", "reasoning_tokens")
            },
            "cost_usd": float(g["cost_usd"].fill_null(0).sum()),
        }
    return dict(sorted(out.items()))


def routes_markdown(routes: dict) -> str:
    cols = [
        Column("route", "route", align="l"),
        Column("model", "model", align="l"),
        Column("n", "questions", integer),
        Column("accuracy", "accuracy (%)", pct),
        Column("refusal_rate", "refusal rate (%)", pct),
        Column("reader_errors", "reader errors", integer),
        Column("input_tokens", "input tokens", integer),
        Column("output_tokens", "output tokens", integer),
        Column("cost_usd", "cost (USD)", lambda x: number(x, 6)),
    ]
    rows = [{**r, "route": name, "model": ", ".join(r["model"])} for name, r in routes.items()]
    return "\n" + Table("routes", "Per route (reader=router)", cols, rows).to_markdown()
