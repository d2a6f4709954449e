"""LongMemEval's print_qa_metrics.py rules on an eval-results file: a cross-check of our table
from our own exported files (memrecall.interchange writes them)."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ...interchange import read_eval_results
from .categories import is_abstention_id


def official_metrics(eval_results: str | Path, question_types: dict[str, str]) -> dict:
    """LongMemEval's print_qa_metrics.py rules on an eval-results file: accuracy per type over its
    lines (abstention lines in their type), task-averaged = the mean of the per-type
    accuracies, overall = all lines, abstention = the `_abs` lines. A cross-check of our table
    from our own exported files."""
    rows = read_eval_results(eval_results)
    by_type: dict[str, list[int]] = {}
    for r in rows:
        if r["question_id"] not in question_types:
            raise InputError(
                "question_id not in the reference",
                file=str(eval_results),
                line=r["line"],
                question_id=r["question_id"],
                field="question_id",
            )
        by_type.setdefault(question_types[r["question_id"]], []).append(int(r["label"]))
    means = {t: sum(v) / len(v) for t, v in by_type.items()}
    abstention = [int(r["label"]) for r in rows if is_abstention_id(r["question_id"])]
    return {
        "by_type": means,
        "task_averaged": sum(means.values()) / len(means),
        "overall": sum(int(r["label"]) for r in rows) / len(rows),
        "abstention": sum(abstention) / len(abstention) if abstention else None,
        "n": len(rows),
        "models": sorted({r["model"] for r in rows}),
    }
