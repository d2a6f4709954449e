"""BEAM's report sections: the released aggregation (per ability, the mean over chats of each
chat's mean; report_results.py), by tier, the overall mean over abilities (ours: the released
report has no overall column), and the ability x tier table for reports/by_type.md and the
paper export."""

from __future__ import annotations

import math
from collections import defaultdict

import polars as pl

from .formats import ABILITIES, SHORT_NAMES, TIERS


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def released_scores(scored: pl.DataFrame) -> dict:
    """{ability: mean over chats of the chat's mean score} from rows of (conversation_id,
    question_type, score), unjudged scores (null) left out as report_results.py never sees
    them."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for conv, ability, score in scored.select(
        "conversation_id", "question_type", "score"
    ).iter_rows():
        if score is not None and not math.isnan(score):
            per[ability][conv].append(float(score))
    return {a: _mean([_mean(v) for v in per[a].values()]) for a in ABILITIES if per.get(a)}


def overall(by_ability: dict) -> float | None:
    vals = [v for v in by_ability.values() if v is not None]
    return _mean(vals)


def beam_metrics(questions: pl.DataFrame, pq: pl.DataFrame) -> dict:
    """metrics.json's `beam` block from the per-question table (its `correct` is the question's
    score: tau_norm for event ordering, the rubric score otherwise)."""
    scored = pq.select(
        "question_id", "question_type", pl.col("correct").cast(pl.Float64).alias("score")
    ).join(questions.select("question_id", "conversation_id", "tier"), on="question_id", how="left")
    by_ability = released_scores(scored)
    n = dict(scored.group_by("question_type").len().iter_rows())
    judged = dict(
        scored.filter(pl.col("score").is_not_null()).group_by("question_type").len().iter_rows()
    )
    by_tier = {}
    for tier in sorted(
        set(scored["tier"].drop_nulls().to_list()),
        key=lambda t: list(TIERS).index(t) if t in TIERS else 99,
    ):
        sub = released_scores(scored.filter(pl.col("tier") == tier))
        by_tier[tier] = {
            "by_ability": sub,
            "overall": overall(sub),
            "n": scored.filter(pl.col("tier") == tier).height,
        }
    eo = pq.filter(pl.col("question_type") == "event_ordering")
    parts = {}
    if "eo_tau_norm" in pq.columns and eo.height:
        for part in ("precision", "recall", "f1", "tau_norm", "final_score"):
            vals = eo[f"eo_{part}"].drop_nulls().to_list()
            parts[part] = _mean(vals)
        parts["rubric_judge"] = _mean(eo["rubric_score"].drop_nulls().to_list())
        parts["n"] = int(eo["eo_tau_norm"].is_not_null().sum())
    return {
        "event_ordering": parts,
        "tau_undefined": (
            int(pq["tau_undefined"].fill_null(False).sum()) if "tau_undefined" in pq.columns else 0
        ),
        "by_ability": by_ability,
        "overall": overall(by_ability),
        "n_by_ability": {a: int(n.get(a, 0)) for a in ABILITIES if n.get(a)},
        "judged_by_ability": {a: int(judged.get(a, 0)) for a in ABILITIES if n.get(a)},
        "by_tier": by_tier,
        "aggregation": "per ability: mean over chats of each chat's mean question score "
        "(report_results.py); overall: mean over abilities (not in the "
        "released report)",
    }


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def ability_table(beam: dict) -> str:
    """Markdown: one row per tier (and all), one column per ability, then the overall."""
    cols = [a for a in ABILITIES if a in beam["n_by_ability"]]
    head = "| tier | " + " | ".join(SHORT_NAMES[a] for a in cols) + " | overall | n |"
    rule = "|---|" + "---:|" * (len(cols) + 2)
    rows = [head, rule]
    for tier, block in beam["by_tier"].items():
        rows.append(
            f"| {tier} | "
            + " | ".join(_pct(block["by_ability"].get(a)) for a in cols)
            + f" | {_pct(block['overall'])} | {block['n']} |"
        )
    rows.append(
        "| all | "
        + " | ".join(_pct(beam["by_ability"].get(a)) for a in cols)
        + f" | {_pct(beam['overall'])} | {sum(beam['n_by_ability'].values())} |"
    )
    return "\n".join(rows)


def by_ability_markdown(metrics: dict, judge_lines: list[str]) -> str:
    beam = metrics["beam"]
    legend = ", ".join(f"{SHORT_NAMES[a]} = {a.replace('_', ' ')}" for a in ABILITIES)
    lines = [
        "# BEAM by ability and tier",
        "",
        *judge_lines,
        "",
        "Scores in %: event ordering (EO) is the released Kendall tau-b score (tau_norm), "
        "the other abilities the rubric score (each item judged, combined as the released "
        "code does). Per ability: mean over chats of each chat's mean (report_results.py); "
        "overall: mean over the abilities (ours, not in the released report).",
        "",
        ability_table(beam),
        "",
        legend,
    ]
    judged = beam["judged_by_ability"]
    unjudged = {a: beam["n_by_ability"][a] - judged.get(a, 0) for a in beam["n_by_ability"]}
    if any(unjudged.values()):
        lines += [
            "",
            "Questions without a verdict (judge errors, reader errors, or abilities "
            "the judge cannot judge): "
            + ", ".join(f"{SHORT_NAMES[a]} {k}" for a, k in unjudged.items() if k)
            + ".",
        ]
    return "\n".join(lines) + "\n"


def paper_table(records: list[dict]):
    """The paper export's BEAM table: per run, the released score of each ability and the
    overall (mean over abilities)."""
    from ...report.tables import Column, Table, integer, pct

    rows = []
    for r in records:
        m = r.get("metrics") or {}
        beam = m.get("beam") or {}
        p = r.get("params") or {}
        rows.append(
            {
                "run": r.get("name"),
                "reader": p.get("reader.name") or p.get("reader.model"),
                "n": m.get("n_questions"),
                "overall": beam.get("overall"),
                **{a: (beam.get("by_ability") or {}).get(a) for a in ABILITIES},
            }
        )
    cols = [
        Column("run", "run", align="l"),
        Column("reader", "reader", align="l"),
        Column("n", "n", integer),
    ]
    cols += [Column(a, SHORT_NAMES[a], pct) for a in ABILITIES]
    cols.append(Column("overall", "overall*", pct))
    legend = ", ".join(f"{SHORT_NAMES[a]} = {a.replace('_', ' ')}" for a in ABILITIES)
    return Table(
        "table_beam",
        "BEAM: score by ability (%)",
        cols,
        rows,
        notes=[
            legend,
            "EO: Kendall tau-b score (tau_norm); others: rubric score, as "
            "the released evaluation computes them.",
            "* mean over the abilities (the released report has no overall).",
        ],
    )
