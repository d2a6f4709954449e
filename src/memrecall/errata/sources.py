"""Errata made from the user's own files at run time, never copied into this repository:

- `diff_releases(original, cleaned)`: what changed between two releases of a LongMemEval-format
  file (e.g. longmemeval_s.json and longmemeval_s_cleaned.json): per question, its answer,
  question, type and evidence sessions, and questions present in only one. A changed answer is
  a gold that was wrong in the original (gold_wrong); the source names both files by sha256.
- `read_locomo_audit(checkout, records)`: the public LoCoMo audit (github.com/dial481/
  locomo-audit, CC BY-NC 4.0, so read from your clone, never redistributed): its
  audit/errors_conv_<i>.json entries mapped to our question ids by the conversation's place in
  the LoCoMo file and the question's index, checked against the question text. An entry whose
  error type is not a citation-only one is a wrong gold (the audit's "score-corrupting" set);
  the source names the audit file and the clone's commit.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from ..errors import InputError
from ..hashing import sha256_file
from .overlay import Correction, Errata

AUDIT_REPO = "https://github.com/dial481/locomo-audit"
CITATION_ONLY = {"WRONG_CITATION"}  # the audit's evidence-only errors: the gold answer stands
_AUDIT_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def diff_releases(original: list[dict], cleaned: list[dict], *, original_file: str,
                  cleaned_file: str, name: str | None = None) -> Errata:
    a = {r["question_id"]: r for r in original}
    b = {r["question_id"]: r for r in cleaned}
    src = (f"{Path(original_file).name} sha256 {sha256_file(original_file)[:16]} -> "
           f"{Path(cleaned_file).name} sha256 {sha256_file(cleaned_file)[:16]}")
    out = []
    for qid in sorted(set(a) | set(b)):
        if qid not in b:
            out.append(Correction(qid, "present", True, False, False, src,
                                  "removed in the cleaned release"))
            continue
        if qid not in a:
            out.append(Correction(qid, "present", False, True, False, src,
                                  "added in the cleaned release"))
            continue
        for fld in ("answer", "question", "question_type", "answer_session_ids"):
            old, new = a[qid].get(fld), b[qid].get(fld)
            if fld == "answer":
                old, new = str(old), str(new)
            if old != new:
                out.append(Correction(qid, fld, old, new, fld == "answer", src))
        if a[qid].get("haystack_session_ids") != b[qid].get("haystack_session_ids"):
            out.append(Correction(qid, "present", True, True, False, src,
                                  "haystack changed (sessions added, removed or reordered)"))
    return Errata(name or f"{Path(original_file).stem}_to_{Path(cleaned_file).stem}", "1",
                  Path(original_file).name, out)


def _commit(checkout: Path) -> str:
    out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown commit (not a git clone)"


def read_locomo_audit(checkout: str | Path, records: list[dict], *,
                      name: str = "locomo_audit") -> Errata:
    """Corrections from a clone of the LoCoMo audit, for `records` (the LoCoMo file's
    conversations, in file order, as the audit numbers them)."""
    from ..data.locomo import _answer_text as answer_text
    from ..data.locomo import evidence_ids, question_id

    checkout = Path(checkout)
    files = sorted((checkout / "audit").glob("errors_conv_*.json"),
                   key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if not files:
        raise InputError(f"no audit/errors_conv_*.json: clone {AUDIT_REPO} and give its folder",
                         file=str(checkout))
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
                raise InputError("an audit entry's question_id is not locomo_<conv>_qa<n>",
                                 file=str(f), field=f"[{i}].question_id")
            conv, qi = int(m.group(1)), int(m.group(2))
            if conv >= len(records) or qi >= len(records[conv]["qa"]):
                raise InputError("the audit names a question this LoCoMo file lacks",
                                 file=str(f), question_id=e["question_id"],
                                 field=f"[{i}].question_id")
            q = records[conv]["qa"][qi]
            qid = question_id(records[conv]["sample_id"], qi)
            if " ".join(str(e.get("question", "")).split()) != " ".join(q["question"].split()):
                raise InputError("the audit's question text differs from this file's: it was "
                                 "made for another version", file=str(f), question_id=qid,
                                 field=f"[{i}].question")
            src = f"{AUDIT_REPO} {f.relative_to(checkout)} @ {commit}"
            kind = str(e.get("error_type") or "")
            wrong = kind not in CITATION_ONLY
            if wrong:  # old: the answer as the download stage writes it
                out.append(Correction(qid, "answer", answer_text(q.get("answer")),
                                      e.get("correct_answer"), True, src, kind))
            cited, correct = e.get("cited_evidence"), e.get("correct_evidence")
            if isinstance(correct, list) and correct != cited:
                out.append(Correction(qid, "answer_turn_ids", evidence_ids(q["evidence"]),
                                      correct, False, src, f"{kind}: evidence"))
    return Errata(name, commit[:12], "locomo", out)
