"""Errata for LoCoMo from the public audit (github.com/dial481/locomo-audit, CC BY-NC 4.0: read
from the user's clone at run time, never redistributed): its audit/errors_conv_<i>.json entries
mapped to our question ids by the conversation's place in the LoCoMo file and the question's
index, checked against the question text. An entry whose error type is not a citation-only one
is a wrong gold (the audit's "score-corrupting" set); the source names the audit file and the
clone's commit.

    memrecall errata locomo-audit CLONE --dataset locomo10.json --out errata.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

from ...errata.overlay import Correction, Errata, write_errata
from ...errors import InputError
from .data import _answer_text as answer_text
from .data import evidence_ids, question_id

AUDIT_REPO = "https://github.com/dial481/locomo-audit"
CITATION_ONLY = {"WRONG_CITATION"}  # the audit's evidence-only errors: the gold answer stands
_AUDIT_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def _commit(checkout: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip() if out.returncode == 0 else "unknown commit (not a git clone)"


def read_locomo_audit(
    checkout: str | Path, records: list[dict], *, name: str = "locomo_audit"
) -> Errata:
    """Corrections from a clone of the LoCoMo audit, for `records` (the LoCoMo file's
    conversations, in file order, as the audit numbers them)."""
    checkout = Path(checkout)
    files = sorted(
        (checkout / "audit").glob("errors_conv_*.json"),
        key=lambda p: int(re.sub(r"\D", "", p.stem) or 0),
    )
    if not files:
        raise InputError(
            f"no audit/errors_conv_*.json: clone {AUDIT_REPO} and give its folder",
            file=str(checkout),
        )
    commit = _commit(checkout)
    out = []
    for f in files:
        try:
            entries = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise InputError(f"not JSON: {e}", file=str(f)) from None
        for i, e in enumerate(entries):
            m = _AUDIT_ID.match(str(e.get("question_id")))
            if not m:
                raise InputError(
                    "an audit entry's question_id is not locomo_<conv>_qa<n>",
                    file=str(f),
                    field=f"[{i}].question_id",
                )
            conv, qi = int(m.group(1)), int(m.group(2))
            if conv >= len(records) or qi >= len(records[conv]["qa"]):
                raise InputError(
                    "the audit names a question this LoCoMo file lacks",
                    file=str(f),
                    question_id=e["question_id"],
                    field=f"[{i}].question_id",
                )
            q = records[conv]["qa"][qi]
            qid = question_id(records[conv]["sample_id"], qi)
            if " ".join(str(e.get("question", "")).split()) != " ".join(q["question"].split()):
                raise InputError(
                    "the audit's question text differs from this file's: it was "
                    "made for another version",
                    file=str(f),
                    question_id=qid,
                    field=f"[{i}].question",
                )
            src = f"{AUDIT_REPO} {f.relative_to(checkout)} @ {commit}"
            kind = str(e.get("error_type") or "")
            wrong = kind not in CITATION_ONLY
            if wrong:  # old: the answer as the download stage writes it
                out.append(
                    Correction(
                        qid,
                        "answer",
                        answer_text(q.get("answer")),
                        e.get("correct_answer"),
                        True,
                        src,
                        kind,
                    )
                )
            cited, correct = e.get("cited_evidence"), e.get("correct_evidence")
            if isinstance(correct, list) and correct != cited:
                out.append(
                    Correction(
                        qid,
                        "answer_turn_ids",
                        evidence_ids(q["evidence"]),
                        correct,
                        False,
                        src,
                        f"{kind}: evidence",
                    )
                )
    return Errata(name, commit[:12], "locomo", out)


def main_audit(argv: list[str]) -> None:
    from .data import validate

    p = argparse.ArgumentParser(
        prog="memrecall errata locomo-audit",
        description="corrections from a clone of dial481/locomo-audit",
    )
    p.add_argument("clone")
    p.add_argument("--dataset", required=True, help="the LoCoMo file the audit was made for")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    records = json.loads(Path(args.dataset).read_text(encoding="utf-8"))
    validate(records, args.dataset)
    e = read_locomo_audit(args.clone, records)
    print(
        f"wrote {write_errata(e, args.out)}: {len(e.corrections)} corrections, "
        f"{len(e.gold_wrong)} wrong gold answers"
    )
