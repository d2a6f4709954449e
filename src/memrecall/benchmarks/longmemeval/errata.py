"""Errata for LongMemEval files (memrecall.errata): what changed between two releases of a
file in LongMemEval's format (e.g. longmemeval_s.json and longmemeval_s_cleaned.json), per
question: its answer, question, type and evidence sessions, its haystack, and questions present
in only one release. A changed answer is a gold that was wrong in the original (gold_wrong);
the source names both files by sha256. Made from the user's own files at run time.

    memrecall errata diff longmemeval_s.json longmemeval_s_cleaned.json --out errata.json
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ...errata.overlay import Correction, Errata, write_errata
from ...hashing import sha256_file


def diff_releases(
    original: list[dict],
    cleaned: list[dict],
    *,
    original_file: str,
    cleaned_file: str,
    name: str | None = None,
) -> Errata:
    a = {r["question_id"]: r for r in original}
    b = {r["question_id"]: r for r in cleaned}
    src = (
        f"{Path(original_file).name} sha256 {sha256_file(original_file)[:16]} -> "
        f"{Path(cleaned_file).name} sha256 {sha256_file(cleaned_file)[:16]}"
    )
    out = []
    for qid in sorted(set(a) | set(b)):
        if qid not in b:
            out.append(
                Correction(
                    qid, "present", True, False, False, src, "removed in the cleaned release"
                )
            )
            continue
        if qid not in a:
            out.append(
                Correction(qid, "present", False, True, False, src, "added in the cleaned release")
            )
            continue
        for fld in ("answer", "question", "question_type", "answer_session_ids"):
            old, new = a[qid].get(fld), b[qid].get(fld)
            if fld == "answer":
                old, new = str(old), str(new)
            if old != new:
                out.append(Correction(qid, fld, old, new, fld == "answer", src))
        if a[qid].get("haystack_session_ids") != b[qid].get("haystack_session_ids"):
            out.append(
                Correction(
                    qid,
                    "present",
                    True,
                    True,
                    False,
                    src,
                    "haystack changed (sessions added, removed or reordered)",
                )
            )
    return Errata(
        name or f"{Path(original_file).stem}_to_{Path(cleaned_file).stem}",
        "1",
        Path(original_file).name,
        out,
    )


def main_diff(argv: list[str]) -> None:
    from ...data.jsonfile import load_records

    p = argparse.ArgumentParser(
        prog="memrecall errata diff", description="the corrections between two releases"
    )
    p.add_argument("original")
    p.add_argument("cleaned")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    e = diff_releases(
        load_records(args.original),
        load_records(args.cleaned),
        original_file=args.original,
        cleaned_file=args.cleaned,
    )
    print(
        f"wrote {write_errata(e, args.out)}: {len(e.corrections)} corrections, "
        f"{len(e.gold_wrong)} changed answers"
    )
