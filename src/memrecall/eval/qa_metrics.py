"""QA metrics by the official LongMemEval reporting (print_qa_metrics.py):

- overall: micro average over the judged questions;
- by_type: accuracy per question type, abstention questions included in their type;
- task_averaged: the unweighted mean of the per-type accuracies (LongMemEval's six types; when a
  run holds fewer types, the mean of those present, and `n_types` says how many);
- abstention: accuracy over the abstention questions (the questions table's is_abstention).

Two kinds of question are left out of every accuracy, and counted instead:
- `judge_errors`: the judge failed or replied unparseably (label null);
- `reader_errors`: the reader's call failed (answers.error set), so there is no answer to judge.
  Counting them as wrong would mix API outages into model quality; leaving them out silently
  would hide them — so they are excluded and reported, and `n_judged` says what the accuracy
  is over. A run with many of either is not comparable; reports print both counts.
A metric with no judged question is None (null in JSON), never 0.
"""

from __future__ import annotations

from typing import Sequence

import polars as pl

from ..errors import InputError
from ..schema import polars_schema


def check_per_question(table: pl.DataFrame, questions: pl.DataFrame, *, what: str, file: str):
    """A stage's per-question table (answers, verdicts) holds at most one `what` per question,
    and none for a question not in questions.parquet; else an error naming the first such id."""
    dup = table.group_by("question_id").len().filter(pl.col("len") > 1)
    if dup.height:
        raise InputError(
            f"more than one {what} for a question",
            file=file,
            question_id=sorted(dup["question_id"].to_list())[0],
            field="question_id",
        )
    extra = table.join(questions.select("question_id"), on="question_id", how="anti")
    if extra.height:
        raise InputError(
            f"{what} for a question not in questions.parquet",
            file=file,
            question_id=sorted(extra["question_id"].to_list())[0],
            field="question_id",
        )


def per_question(
    questions: pl.DataFrame, verdicts: pl.DataFrame, verdicts_file: str = "verdicts.parquet"
) -> pl.DataFrame:
    """One row per question: question_id, question_type, is_abstention, correct (bool|null, or
    the score where the verdicts carry one), judge_error, reader_error, then the benchmark's own
    verdict columns. Every question needs exactly one verdict."""
    check_per_question(verdicts, questions, what="verdict", file=verdicts_file)
    q = questions.select("question_id", "question_type", "is_abstention")
    # A benchmark that scores answers in [0, 1] writes `score`: `correct` is that score
    # (means, intervals and per-type figures then average scores); else the yes/no label.
    label = (
        pl.coalesce(pl.col("score"), pl.col("label").cast(pl.Float64))
        if "score" in verdicts.columns
        else pl.col("label")
    )
    # a benchmark's own verdict columns (beyond the shared ones) ride along, for its metrics
    shared = set(polars_schema("verdicts")) | {"strict_label", "score"}
    own = [c for c in verdicts.columns if c not in shared]
    v = verdicts.select(
        "question_id",
        label.alias("label"),
        (
            pl.col("reader_failed").fill_null(False)
            if "reader_failed" in verdicts.columns
            else pl.lit(False)
        ).alias("reader_error"),
        *own,
    )
    df = q.join(v, on="question_id", how="left")
    missing = df.filter(pl.col("reader_error").is_null())
    if missing.height:
        raise InputError(
            "no verdict for this question (rerun the judge stage)",
            file=verdicts_file,
            question_id=missing["question_id"][0],
            field="question_id",
        )
    return df.select(
        "question_id",
        "question_type",
        pl.col("is_abstention").fill_null(False),
        pl.when(pl.col("reader_error")).then(None).otherwise(pl.col("label")).alias("correct"),
        (pl.col("label").is_null() & ~pl.col("reader_error")).alias("judge_error"),
        "reader_error",
        *own,
    ).sort("question_id")


def _acc(correct: list) -> float | None:
    judged = [c for c in correct if c is not None]
    return sum(judged) / len(judged) if judged else None


def type_order(types, known: Sequence[str] = ()) -> list[str]:
    """`types` in the `known` order (a benchmark's report order), then any others
    alphabetically."""
    present = set(types)
    return [t for t in known if t in present] + sorted(present - set(known))


def metrics_from_rows(pq: pl.DataFrame, known: Sequence[str] = ()) -> dict:
    """The QA metrics of a per_question() table (also used on bootstrap resamples); per-type
    figures in type_order(types, known)."""
    correct = pq["correct"].to_list()
    types = pq["question_type"].to_list()
    abs_flags = pq["is_abstention"].to_list()
    by_type, n_by_type = {}, {}
    for t in type_order(types, known):
        vals = [c for c, ty in zip(correct, types) if ty == t]
        by_type[t] = _acc(vals)
        n_by_type[t] = sum(c is not None for c in vals)
    present = [a for a in by_type.values() if a is not None]
    return {
        "overall": _acc(correct),
        "task_averaged": sum(present) / len(present) if present else None,
        "abstention": _acc([c for c, a in zip(correct, abs_flags) if a]),
        "by_type": by_type,
        "n_by_type": n_by_type,
        "n_types": len(present),
        "n_questions": len(correct),
        "n_judged": sum(c is not None for c in correct),
        "n_correct": sum(bool(c) for c in correct if c is not None),
        "n_abstention": sum(bool(a) for a in abs_flags),
        "n_abstention_judged": sum(c is not None for c, a in zip(correct, abs_flags) if a),
        "judge_errors": int(pq["judge_error"].sum()),
        "reader_errors": int(pq["reader_error"].sum()),
    }


def qa_metrics(
    questions: pl.DataFrame,
    verdicts: pl.DataFrame,
    *,
    verdicts_file: str = "verdicts.parquet",
    known: Sequence[str] = (),
) -> dict:
    """{"overall", "task_averaged", "abstention", "by_type", "n_by_type", "n_types",
    "n_questions", "n_judged", "n_correct", "n_abstention", "n_abstention_judged",
    "judge_errors", "reader_errors"}."""
    return metrics_from_rows(per_question(questions, verdicts, verdicts_file), known)
