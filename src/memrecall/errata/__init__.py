"""Errata overlays (overlay.py): versioned corrections to a dataset's gold, each with its source,
made from the user's own files by the benchmark that knows their format, and a run's scores
with them; the commands (cli.py):

    memrecall errata MAKER ...        (each benchmark's makers: Benchmark.errata_makers;
                                       `memrecall errata --help` lists them)
    memrecall errata report errata.json [--per-question reports/per_question.csv]
                                        [--questions artifacts/questions.parquet] [--out DIR]

`report` writes DIR/errata.{md,json}: the run's raw and corrected scores side by side and the
ceiling (overlay.errata_scores), after checking the corrections against the run's questions
(their `old` values must be what the run read).
"""

from __future__ import annotations

from .overlay import (
    Correction,
    Errata,
    apply_errata,
    errata_markdown,
    errata_scores,
    load_errata,
    write_errata,
)

__all__ = [
    "Correction",
    "Errata",
    "apply_errata",
    "errata_markdown",
    "errata_scores",
    "load_errata",
    "write_errata",
]
