"""LoCoMo's numbers in a run's reports: per-category judge accuracy and the LoCoMo paper's F1,
with category 5 (adversarial, unanswerable) reported apart from the headline, as most papers do.

metrics.json of a LoCoMo run (docs/contract.md): `qa.overall` / `qa.task_averaged` (and their
CIs) are over categories 1-4; `qa.abstention` is category 5; `qa.by_category` and
`f1.by_category` are keyed "1".."5"; `f1.overall` is the micro mean over categories 1-4
and `f1.adversarial` is category 5's. A question whose reader call failed has no F1 (left out
and counted, as for the judge accuracy): an API fault is not a wrong answer.
"""

from __future__ import annotations

import polars as pl

from ...eval.qa_metrics import metrics_from_rows
from ...eval.stats import qa_intervals
from ...report.tables import Column, Table, ci_pct, integer, pct
from .f1 import locomo_score
from .schema import ADVERSARIAL, CATEGORIES, HEADLINE_CATEGORIES

CAVEAT = (
    "Category 5 (adversarial: the answer is not in the conversation) is reported apart and "
    "is not part of the overall or category-averaged numbers, as most LoCoMo papers do."
)
LLM_NOTE = (
    'An LLM judge with LoCoMo prompts in our own wording (the "J" accuracy); papers\' '
    "J scores use other judges and prompts, so compare them with care. F1 is the "
    "LoCoMo paper's own metric."
)
RULE_CAVEAT = (
    "**This run was scored by the `rule` judge** (deterministic rules). Its accuracy "
    'is not comparable with the LLM-judge ("J") scores papers report; F1 is the '
    "LoCoMo paper's own metric and is comparable with its released evaluation."
)


def _mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def f1_rows(questions: pl.DataFrame, answers: pl.DataFrame) -> pl.DataFrame:
    """question_id, category, f1 (null when the reader failed)."""
    a = answers.select("question_id", "hypothesis", "error")
    df = questions.select("question_id", "category", "answer").join(a, on="question_id", how="left")
    f1 = [
        None if err is not None else locomo_score(int(cat), hyp, ans)
        for cat, ans, hyp, err in df.select("category", "answer", "hypothesis", "error").iter_rows()
    ]
    return (
        df.select("question_id", "category")
        .with_columns(pl.Series("f1", f1, dtype=pl.Float64))
        .sort("question_id")
    )


def f1_metrics(rows: pl.DataFrame) -> dict:
    by_cat, n_by_cat = {}, {}
    for c in CATEGORIES:
        vals = rows.filter(pl.col("category") == c)["f1"].to_list()
        by_cat[str(c)] = _mean(vals)
        n_by_cat[str(c)] = sum(v is not None for v in vals)
    head = rows.filter(pl.col("category").is_in(list(HEADLINE_CATEGORIES)))["f1"].to_list()
    return {
        "overall": _mean(head),
        "adversarial": by_cat[str(ADVERSARIAL)],
        "by_category": by_cat,
        "n_by_category": n_by_cat,
        "n": sum(v is not None for v in head),
        "reader_errors": int(rows["f1"].is_null().sum()),
    }


def headline(pq: pl.DataFrame, qa: dict, ci: dict, *, n_boot: int, seed: int) -> tuple[dict, dict]:
    """qa and ci with overall / task_averaged (and their CIs) over categories 1-4 only."""
    main = pq.filter(~pl.col("is_abstention"))
    m = metrics_from_rows(main)
    c = qa_intervals(main, n_resamples=n_boot, seed=seed)
    qa = {
        **qa,
        "overall": m["overall"],
        "task_averaged": m["task_averaged"],
        "n_types": m["n_types"],
        "n_judged": m["n_judged"],
    }
    ci = {**ci, "overall": c["overall"], "task_averaged": c["task_averaged"]}
    return qa, ci


WITH_CATEGORY_5 = (
    "with category 5: the micro means over all five categories, as some vendors "
    "publish them; not comparable with the headline (categories 1-4) nor with "
    "papers that leave category 5 apart"
)


def with_category_5(pq: pl.DataFrame, f1: pl.DataFrame) -> dict:
    """The variants that count category 5 in (metrics.json `qa.with_category_5`), labelled."""
    judged = pq["correct"].drop_nulls()
    scores = f1["f1"].drop_nulls()
    return {
        "overall": float(judged.cast(pl.Float64).mean()) if judged.len() else None,
        "n_judged": int(judged.len()),
        "f1_overall": float(scores.mean()) if scores.len() else None,
        "label": WITH_CATEGORY_5,
    }


def qa_by_category(pq: pl.DataFrame, questions: pl.DataFrame) -> dict:
    df = pq.join(questions.select("question_id", "category"), on="question_id", how="left")
    out, n = {}, {}
    for c in CATEGORIES:
        vals = df.filter(pl.col("category") == c)["correct"].to_list()
        out[str(c)] = _mean([None if v is None else float(v) for v in vals])
        n[str(c)] = sum(v is not None for v in vals)
    return {"by_category": out, "n_by_category": n}


def by_category_markdown(metrics: dict, judge_lines: list[str]) -> str:
    """reports/by_type.md of a LoCoMo run: judge accuracy and F1 per category."""
    qa, f1 = metrics["qa"], metrics["f1"]
    ci_t = qa["ci"]["by_type"]

    def ci_of(c):
        v = ci_t.get(CATEGORIES[c])
        return None if v is None else (v["low"], v["high"])

    lines = [
        "# QA by LoCoMo category",
        "",
        *judge_lines,
        "",
        "| category | name | n | judge accuracy (%) | 95% CI | F1 (%) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for c in HEADLINE_CATEGORIES:
        k = str(c)
        lines.append(
            f"| {c} | {CATEGORIES[c]} | {integer(qa['n_by_category'][k])} | "
            f"{pct(qa['by_category'][k])} | {ci_pct(ci_of(c))} | "
            f"{pct(f1['by_category'][k])} |"
        )
    ov, ta = qa["ci"]["overall"], qa["ci"]["task_averaged"]
    lines += [
        f"| 1–4 | **overall (micro)** | {integer(qa['n_judged'])} | {pct(qa['overall'])} | "
        f"{ci_pct(None if ov is None else (ov['low'], ov['high']))} | {pct(f1['overall'])} |",
        f"| 1–4 | category-averaged | {integer(qa['n_judged'])} | {pct(qa['task_averaged'])} | "
        f"{ci_pct(None if ta is None else (ta['low'], ta['high']))} | – |",
        f"| {ADVERSARIAL} | {CATEGORIES[ADVERSARIAL]} (reported apart) | "
        f"{integer(qa['n_by_category'][str(ADVERSARIAL)])} | "
        f"{pct(qa['by_category'][str(ADVERSARIAL)])} | {ci_pct(ci_of(ADVERSARIAL))} | "
        f"{pct(f1['adversarial'])} |",
        "",
        CAVEAT,
        "F1: the LoCoMo paper's metric as its released evaluation computes it (Porter-stemmed "
        "token F1; category 1 split on commas, category 3 scored on the part before ';', "
        'category 5 = the reply says "no information available" or "not mentioned").',
        f"Judge errors (no usable verdict): {metrics['judge_errors']}; reader errors (the "
        f"reader's call failed): {metrics['reader_errors']} — left out of every number, not "
        "counted as wrong.",
        f"Refusal rate: {pct(metrics['refusal_rate'])}%. Cost: ${metrics['cost_usd']:.4f}.",
    ]
    return "\n".join(lines) + "\n"


def paper_table(records: list[dict]):
    """The paper export's LoCoMo table: per run (annotated by paper.annotate), its judge, judge
    accuracy (J when LLM-judged) and F1 for categories 1-4, their overall, and category 5
    apart."""
    rows, kinds = [], set()
    for r in records:
        m = r.get("metrics") or {}
        qa, f1 = m.get("qa") or {}, m.get("f1") or {}
        p = r.get("params") or {}
        kinds.add((m.get("judge") or {}).get("kind"))
        row = {
            "run": r.get("name"),
            "reader": p.get("reader.name") or p.get("reader.model"),
            "judge": r["judge"][1],  # paper.annotate: (key, label)
            "n": m.get("n_questions"),
            "j_overall": qa.get("overall"),
            "f1_overall": f1.get("overall"),
        }
        for c in CATEGORIES:
            row[f"j_{c}"] = (qa.get("by_category") or {}).get(str(c))
            row[f"f1_{c}"] = (f1.get("by_category") or {}).get(str(c))
        rows.append(row)
    # "J" is what papers call an LLM judge's accuracy: a rule-judged column is not one.
    acc = "J" if kinds and not kinds & {"rule", None} else ("rule" if kinds == {"rule"} else "acc")
    cols = [
        Column("run", "run", align="l"),
        Column("reader", "reader", align="l"),
        Column("judge", "judge", align="l"),
        Column("n", "n", integer),
    ]
    for c in HEADLINE_CATEGORIES:
        cols += [
            Column(f"j_{c}", f"{acc} {CATEGORIES[c]}", pct),
            Column(f"f1_{c}", f"F1 {CATEGORIES[c]}", pct),
        ]
    cols += [
        Column("j_overall", f"{acc} overall", pct),
        Column("f1_overall", "F1 overall", pct),
        Column(f"j_{ADVERSARIAL}", f"{acc} {CATEGORIES[ADVERSARIAL]}*", pct),
        Column(f"f1_{ADVERSARIAL}", f"F1 {CATEGORIES[ADVERSARIAL]}*", pct),
    ]
    what = {
        "J": "LLM-judge accuracy (J, %)",
        "rule": "rule-judge accuracy (%)",
        "acc": "accuracy under each row's judge (%)",
    }[acc]
    return Table(
        "table_locomo",
        f"LoCoMo: {what} and F1 (%) by category",
        cols,
        rows,
        notes=[
            "* " + CAVEAT,
            "F1 as LoCoMo's released evaluation computes it.",
            f"`{acc}` columns: scored by the judge named in each row.",
        ],
    )
