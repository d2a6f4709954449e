"""The aggregate stage's errata block (dataset.errata: errata/stage.py): the run's raw and
corrected scores side by side, and the ceiling."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from .overlay import errata_scores
from .source import read_record


def run_scores(errata: str | Path, corrected_verdicts: str | Path, pq: pl.DataFrame) -> dict | None:
    """metrics.json["errata"] for the aggregate stage (None without an overlay): raw and
    corrected scores and the ceiling (overlay.errata_scores) of the run's per-question results
    `pq`, with the verdicts the errata stage gave against the corrected gold."""
    from ..artifacts import read_meta, read_table
    from ..eval.qa_metrics import per_question

    rec, overlay = read_record(errata)
    if overlay is None:
        return None
    v = read_table(corrected_verdicts, "verdicts")
    meta = read_meta(corrected_verdicts)
    corrected = None
    if meta.get("rejudged"):
        corrected = per_question(
            v.select("question_id", "question_type", "is_abstention"), v, str(corrected_verdicts)
        )
    scores = errata_scores(pq, overlay, corrected)
    scores["errata"].update(
        {"file": rec["file"], "sha256": rec["sha256"], "outside_run": meta.get("outside_run")}
    )
    if meta.get("why"):
        scores["errata"]["why_not_rejudged"] = meta["why"]
    return scores
