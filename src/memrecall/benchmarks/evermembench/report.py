"""EverMemBench's numbers in a run's reports.

metrics.json of an EverMemBench run adds, beside the shared keys (`qa.by_type` is keyed by
sub-task; `qa.overall` is the pooled accuracy the released evaluator prints; `qa.task_averaged`
is the unweighted mean of the sub-tasks present):
  evermembench.average       the paper's "Average": the unweighted mean of the nine sub-task
                             accuracies; null unless all nine are in the run (`n_subtasks` says
                             how many are), with its bootstrap CI (strata = sub-tasks)
  evermembench.recall        the three recall sub-tasks apart (the only ones the Compass runs
                             scored): their mean (null unless all three are in) and pooled
                             accuracy, with CIs
  evermembench.by_form       multiple choice and open answers apart (accuracy, n, CI)
  evermembench.by_dimension  recall / memory awareness / profile: mean of its sub-tasks
  evermembench.scored_by     which judge scored what: multiple choice always by the released
                             letter rule ("exact-match"), open answers by the run's judge
  evermembench.mc_markers_as_letters  multiple-choice replies without a letter that the
                             released rule reads as "A" (its "[INVALID]" quirk)
A question whose reader call failed is left out and counted, never scored as wrong.
"""

from __future__ import annotations

import polars as pl

from ...eval.stats import bootstrap_ci, stratified_mean_ci
from ...report.tables import Column, Table, ci_pct, integer, pct, referral_line
from .judge import EXACT_MATCH
from .schema import MULTIPLE_CHOICE, OPEN
from .scoring import official_mc, parse_letter
from .subtasks import BY_CODE, CODES, RECALL, SUBTASKS, label

DIMENSIONS = tuple(dict.fromkeys(s.dimension for s in SUBTASKS))
PUBLISHED_NOTE = (
    "The EverMemBench paper's Average is the unweighted mean of the nine sub-task "
    "accuracies (Table 4), judged by google/gemini-3-flash-preview with the "
    "released prompt for open answers and by exact letter match for multiple "
    "choice."
)
RULE_NOTE = (
    "**Open answers were scored by the `rule` judge** (deterministic rules): not "
    "comparable with the LLM-judged published numbers."
)
LLM_NOTE = (
    "Open answers were scored by an LLM judge in our own wording: compare with "
    "published numbers with care (only judge=official with the released model is "
    "comparable)."
)


def _mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def _ci(v):
    if v is None:
        return None
    if isinstance(v, dict):
        return v
    return {"low": v[0], "high": v[1]}


def per_question_columns(questions: pl.DataFrame, answers: pl.DataFrame) -> pl.DataFrame:
    """question_id, topic, form, scored_by, reply_letter (multiple choice: the released
    extraction of the reader's reply; null when the reader failed)."""
    a = answers.select("question_id", "hypothesis", "error")
    df = questions.select("question_id", "topic", "form", "answer").join(
        a, on="question_id", how="left"
    )
    letters, quirks = [], []
    for form, ans, hyp, err in df.select("form", "answer", "hypothesis", "error").iter_rows():
        if form != MULTIPLE_CHOICE or err is not None:
            letters.append(None)
            quirks.append(False)
            continue
        parsed = parse_letter(hyp)
        letters.append(parsed)
        quirks.append(official_mc(parsed, ans)[1])
    return (
        df.select(
            "question_id",
            "topic",
            "form",
            pl.when(pl.col("form") == MULTIPLE_CHOICE)
            .then(pl.lit(EXACT_MATCH))
            .otherwise(pl.lit("judge"))
            .alias("scored_by"),
        )
        .with_columns(
            pl.Series("reply_letter", letters, dtype=pl.String),
            pl.Series("marker_as_letter", quirks, dtype=pl.Boolean),
        )
        .sort("question_id")
    )


def extra_metrics(
    questions: pl.DataFrame,
    answers: pl.DataFrame,
    pq: pl.DataFrame,
    *,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[dict, pl.DataFrame]:
    cols = per_question_columns(questions, answers)
    df = pq.join(cols.select("question_id", "form"), on="question_id", how="left")
    judged = df.filter(pl.col("correct").is_not_null())
    kw = {"n_resamples": n_boot, "seed": seed}
    groups = {
        c: [float(x) for x in judged.filter(pl.col("question_type") == c)["correct"]] for c in CODES
    }
    acc = {c: _mean(v) if v else None for c, v in groups.items()}
    present = [c for c in CODES if groups[c]]
    recall_present = [c for c in RECALL if groups[c]]
    recall_vals = [x for c in RECALL for x in groups[c]]

    def form(f):
        vals = [float(x) for x in judged.filter(pl.col("form") == f)["correct"]]
        return {
            "accuracy": _mean(vals),
            "n": len(vals),
            "ci": _ci(bootstrap_ci(vals, **kw)) if vals else None,
        }

    dims = {}
    for d in DIMENSIONS:
        codes = [c for c in CODES if BY_CODE[c].dimension == d and groups[c]]
        dims[d] = {"mean": _mean(acc[c] for c in codes), "subtasks": codes}
    n_mc = int(questions.filter(pl.col("form") == MULTIPLE_CHOICE).height)
    n_open = questions.height - n_mc
    metrics = {
        "evermembench": {
            "average": _mean(acc.values()) if len(present) == len(CODES) else None,
            "average_ci": (
                _ci(stratified_mean_ci([groups[c] for c in CODES], **kw))
                if len(present) == len(CODES)
                else None
            ),
            "mean_of_present_subtasks": _mean(acc.values()),
            "n_subtasks": len(present),
            "subtasks": {c: {"accuracy": acc[c], "n": len(groups[c])} for c in CODES},
            "recall": {
                "mean": _mean(acc[c] for c in RECALL) if len(recall_present) == 3 else None,
                "mean_ci": (
                    _ci(stratified_mean_ci([groups[c] for c in RECALL], **kw))
                    if len(recall_present) == 3
                    else None
                ),
                "pooled": _mean(recall_vals),
                "n": len(recall_vals),
                "pooled_ci": _ci(bootstrap_ci(recall_vals, **kw)) if recall_vals else None,
                "subtasks": recall_present,
            },
            "by_form": {MULTIPLE_CHOICE: form(MULTIPLE_CHOICE), OPEN: form(OPEN)},
            "by_dimension": dims,
            "scored_by": {
                MULTIPLE_CHOICE: f"{EXACT_MATCH} (the released letter extraction and "
                f"exact match; no judge)"
                if n_mc
                else None,
                OPEN: "the run's judge (metrics.judge)" if n_open else None,
            },
            "n_multiple_choice": n_mc,
            "n_open": n_open,
            "mc_markers_as_letters": int(cols["marker_as_letter"].sum()),
        }
    }
    return metrics, cols


def judge_lines(metrics: dict) -> list[str]:
    j = metrics["judge"]
    lines = [
        f"Multiple choice: scored by the released rule (letter extraction, exact match), "
        f"no judge. Open answers: judge `{j['name']}` ({j['model']}).",
        *referral_line(j),
    ]
    if j["kind"] == "rule":
        lines.append(RULE_NOTE)
    elif not j["comparable_to_published"]:
        lines.append(
            f"Comparability with published EverMemBench numbers: "
            f"{j.get('comparability') or 'not comparable'}."
        )
    if j.get("official_script_sha256"):
        lines.append(
            f"Official judge prompts: eval/config/prompts.yaml, sha256 "
            f"`{j['official_script_sha256']}`."
        )
    return lines


def by_subtask_markdown(metrics: dict) -> str:
    """reports/by_type.md of an EverMemBench run."""
    qa, e = metrics["qa"], metrics["evermembench"]
    ci_t = qa["ci"]["by_type"]
    lines = [
        "# QA by EverMemBench sub-task",
        "",
        *judge_lines(metrics),
        "",
        "| dimension | sub-task | form | n | accuracy (%) | 95% CI |",
        "|---|---|---|---:|---:|---:|",
    ]
    forms = {MULTIPLE_CHOICE: "multiple choice", OPEN: "open"}
    for s in SUBTASKS:
        sub = e["subtasks"][s.code]
        form = "open" if s.code in RECALL else "multiple choice"
        lines.append(
            f"| {s.dimension} | {label(s.code)} | {form} | {integer(sub['n'])} | "
            f"{pct(sub['accuracy'])} | {ci_pct(_tuple(ci_t.get(s.code)))} |"
        )
    rec = e["recall"]
    lines += [
        "",
        "| summary | n | accuracy (%) | 95% CI |",
        "|---|---:|---:|---:|",
        f"| **Average** (unweighted mean of the nine sub-tasks, the paper's) | "
        f"{integer(qa['n_judged'])} | {pct(e['average'])} | {ci_pct(_tuple(e['average_ci']))} |",
        f"| mean of the {e['n_subtasks']} sub-tasks in this run | {integer(qa['n_judged'])} | "
        f"{pct(e['mean_of_present_subtasks'])} | – |",
        f"| pooled accuracy (all questions, as the released evaluator prints) | "
        f"{integer(qa['n_judged'])} | {pct(qa['overall'])} | "
        f"{ci_pct(_tuple(qa['ci']['overall']))} |",
        f"| recall sub-tasks, mean of F_SH, F_MH, F_TP | {integer(rec['n'])} | "
        f"{pct(rec['mean'])} | {ci_pct(_tuple(rec['mean_ci']))} |",
        f"| recall sub-tasks, pooled | {integer(rec['n'])} | {pct(rec['pooled'])} | "
        f"{ci_pct(_tuple(rec['pooled_ci']))} |",
    ]
    for f, name in forms.items():
        b = e["by_form"][f]
        lines.append(
            f"| {name} | {integer(b['n'])} | {pct(b['accuracy'])} | {ci_pct(_tuple(b['ci']))} |"
        )
    lines += [
        "",
        "The Average is shown only when all nine sub-tasks are in the run. " + PUBLISHED_NOTE,
        "The recall rows are the subset the Compass runs scored (open answers only; their 44.4% "
        "and 47.3% are pooled accuracies of about 100 recall questions per topic, judged by "
        "deepseek-v4-flash with a prompt of their own), so they stand beside neither the "
        "paper's Average nor its judge.",
        f'Multiple-choice replies without a letter read as "A" by the released rule: '
        f"{e['mc_markers_as_letters']}.",
        f"Judge errors (no usable verdict): {metrics['judge_errors']}; reader errors (the "
        f"reader's call failed): {metrics['reader_errors']} — left out of every number, not "
        "counted as wrong.",
        f"Refusal rate: {pct(metrics['refusal_rate'])}%. Cost: ${metrics['cost_usd']:.4f}.",
    ]
    return "\n".join(lines) + "\n"


def _tuple(v):
    if v is None:
        return None
    return (v["low"], v["high"]) if isinstance(v, dict) else tuple(v)


def paper_table(records: list[dict]) -> Table:
    """The paper export's EverMemBench table: per run, the nine sub-tasks, the Average and the
    recall mean."""
    rows = []
    for r in records:
        m = r.get("metrics") or {}
        e = m.get("evermembench") or {}
        p = r.get("params") or {}
        row = {
            "run": r.get("name"),
            "reader": p.get("reader.name") or p.get("reader.model"),
            "n": m.get("n_questions"),
            "average": e.get("average"),
            "recall": (e.get("recall") or {}).get("mean"),
        }
        for c in CODES:
            row[c] = ((e.get("subtasks") or {}).get(c) or {}).get("accuracy")
        rows.append(row)
    cols = [
        Column("run", "run", align="l"),
        Column("reader", "reader", align="l"),
        Column("n", "n", integer),
    ]
    cols += [Column(c, c, pct) for c in CODES]
    cols += [Column("average", "Average", pct), Column("recall", "recall mean", pct)]
    return Table(
        "table_evermembench",
        "EverMemBench: accuracy (%) by sub-task",
        cols,
        rows,
        notes=[
            PUBLISHED_NOTE,
            "Multiple choice by exact letter match; open answers "
            "by each run's judge (see its metrics).",
        ],
    )
