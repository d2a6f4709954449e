"""`memrecall errata`: make an errata overlay (each benchmark's makers) or report a run's raw and
corrected scores with the ceiling (see the package's docstring)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .overlay import apply_errata, errata_markdown, errata_scores, load_errata


def makers() -> dict:
    """subcommand -> errata maker (a function taking argv), from every registered benchmark."""
    from .. import benchmarks

    out = {}
    for name in benchmarks.names():
        out.update(benchmarks.get(name).errata_makers())
    return out


def main(argv: list[str] | None = None, prog: str = "memrecall errata") -> None:
    argv = list(argv or [])
    MAKERS = makers()
    if argv[:1] and argv[0] in MAKERS:
        MAKERS[argv[0]](argv[1:])
        return
    p = argparse.ArgumentParser(
        prog=prog,
        description="Errata overlays for a dataset's gold; "
        f"making them: {', '.join(MAKERS)} (see each's --help).",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in MAKERS:
        sub.add_parser(name, add_help=False)
    r = sub.add_parser("report", help="raw and corrected scores of a run, and the ceiling")
    r.add_argument("errata")
    r.add_argument("--per-question", default="reports/per_question.csv")
    r.add_argument(
        "--questions",
        default="artifacts/questions.parquet",
        help="the run's questions: every correction's old value is checked on it",
    )
    r.add_argument("--out", default="reports")
    args = p.parse_args(argv)
    import polars as pl

    from ..artifacts import atomic_write_text, read_table
    from ..experiments import parse_per_question

    e = load_errata(args.errata)
    if Path(args.questions).exists():
        apply_errata(read_table(args.questions, "questions"), e, file=args.errata)
    rows = parse_per_question(
        Path(args.per_question).read_text(encoding="utf-8"), args.per_question
    )
    scores = errata_scores(
        pl.DataFrame(
            rows,
            schema={"question_id": pl.String, "question_type": pl.String, "correct": pl.Boolean},
        ),
        e,
    )
    out = Path(args.out)
    atomic_write_text(out / "errata.json", json.dumps(scores, indent=2, sort_keys=True) + "\n")
    text = errata_markdown(scores)
    atomic_write_text(out / "errata.md", text)
    print(text)
