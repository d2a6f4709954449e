"""Errata overlays (overlay.py) made from the user's own files (sources.py), and the command:

    memrecall errata diff ORIGINAL.json CLEANED.json --out errata.json
    memrecall errata locomo-audit CLONE --dataset locomo10.json --out errata.json
    memrecall errata report errata.json [--per-question reports/per_question.csv]
                                        [--questions artifacts/questions.parquet] [--out DIR]

`report` writes DIR/errata.{md,json}: the run's raw and corrected scores side by side and the
ceiling (overlay.errata_scores), and checks the corrections against the run's questions (their
`old` values must be what the run read).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .overlay import (Correction, Errata, apply_errata, errata_markdown, errata_scores,
                      load_errata, write_errata)

__all__ = ["Correction", "Errata", "apply_errata", "errata_markdown", "errata_scores",
           "load_errata", "write_errata", "main"]


def main(argv: list[str] | None = None, prog: str = "memrecall errata") -> None:
    p = argparse.ArgumentParser(prog=prog, description="Errata overlays for a dataset's gold.")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("diff", help="the corrections between two releases of a LongMemEval file")
    d.add_argument("original")
    d.add_argument("cleaned")
    d.add_argument("--out", required=True)
    la = sub.add_parser("locomo-audit", help="corrections from a clone of dial481/locomo-audit")
    la.add_argument("clone")
    la.add_argument("--dataset", required=True, help="the LoCoMo file the audit was made for")
    la.add_argument("--out", required=True)
    r = sub.add_parser("report", help="raw and corrected scores of a run, and the ceiling")
    r.add_argument("errata")
    r.add_argument("--per-question", default="reports/per_question.csv")
    r.add_argument("--questions", default="artifacts/questions.parquet",
                   help="the run's questions: every correction's old value is checked on it")
    r.add_argument("--out", default="reports")
    args = p.parse_args(argv)
    if args.cmd == "diff":
        from ..data.longmemeval import load_records
        from .sources import diff_releases
        e = diff_releases(load_records(args.original), load_records(args.cleaned),
                          original_file=args.original, cleaned_file=args.cleaned)
        print(f"wrote {write_errata(e, args.out)}: {len(e.corrections)} corrections, "
              f"{len(e.gold_wrong)} changed answers")
    elif args.cmd == "locomo-audit":
        from ..data.locomo import validate
        from .sources import read_locomo_audit
        records = json.loads(Path(args.dataset).read_text(encoding="utf-8"))
        validate(records, args.dataset)
        e = read_locomo_audit(args.clone, records)
        print(f"wrote {write_errata(e, args.out)}: {len(e.corrections)} corrections, "
              f"{len(e.gold_wrong)} wrong gold answers")
    else:
        import polars as pl

        from ..artifacts import atomic_write_text, read_table
        from ..experiments import parse_per_question
        e = load_errata(args.errata)
        if Path(args.questions).exists():
            apply_errata(read_table(args.questions, "questions"), e, file=args.errata)
        rows = parse_per_question(Path(args.per_question).read_text(encoding="utf-8"),
                                  args.per_question)
        scores = errata_scores(pl.DataFrame(rows, schema={"question_id": pl.String,
                                                          "question_type": pl.String,
                                                          "correct": pl.Boolean}), e)
        out = Path(args.out)
        atomic_write_text(out / "errata.json", json.dumps(scores, indent=2, sort_keys=True) + "\n")
        text = errata_markdown(scores)
        atomic_write_text(out / "errata.md", text)
        print(text)
