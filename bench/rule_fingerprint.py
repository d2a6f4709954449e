"""The rule judge's fingerprint: its verdict (label and reason) on every answer of published
LongMemEval eval-results logs, hashed. A change to the rules that should move no verdict (a
module split, a rename, a faster pattern) must leave the fingerprint as it was.

    python bench/rule_fingerprint.py --oracle ../shared/data/longmemeval/longmemeval_oracle.json \\
        --logs ../shared/data/judge/*.gz --out /tmp/before.jsonl
    # ... change the rules ...
    python bench/rule_fingerprint.py --oracle ../shared/data/longmemeval/longmemeval_oracle.json \\
        --logs ../shared/data/judge/*.gz --against /tmp/before.jsonl

Prints how many answers were judged and the sha256 of their verdict lines. --out writes the
lines (a JSON array each: the log's file name, the question id, the answer's line in the log, the
label, the reason); --against compares with lines written before, prints the answers whose
verdict moved and exits 1 when any did. The official labels are not read: this measures the
rules against themselves, not against a judge (bench/judge_agreement.py does that).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

import _env  # noqa: F401  (src/ on sys.path, offline switches)
from memrecall.artifacts import atomic_write_text
from memrecall.benchmarks.longmemeval.categories import is_abstention_id
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.hashing import sha256_text
from memrecall.interchange import read_eval_results
from memrecall.judge.rules import judge_one


def verdict_lines(logs: list[str], oracle: str) -> list[str]:
    """One JSON line per answer of every log, in log and line order."""
    questions = {str(q["question_id"]): q for q in load_records(oracle)}
    lines = []
    for log in logs:
        for e in tqdm(read_eval_results(log), desc=Path(log).name, leave=False):
            q = questions.get(str(e["question_id"]))
            if q is None:
                sys.exit(
                    f"error: {log} line {e['line']}: question_id {e['question_id']!r} is not "
                    f"in {oracle}"
                )
            v = judge_one(
                q["question_type"],
                q["question"],
                str(q["answer"]),
                e["hypothesis"],
                is_abstention=is_abstention_id(str(q["question_id"])),
            )
            lines.append(
                json.dumps([Path(log).name, e["question_id"], e["line"], v.label, v.reason])
            )
    return lines


def as_text(lines: list[str]) -> str:
    """The verdict lines as --out writes them, and as the fingerprint hashes them."""
    return "".join(line + "\n" for line in lines)


def moved(before: list[str], after: list[str]) -> list[tuple[list, list]]:
    """(before, after) of each answer whose verdict differs; an answer only on one side is
    paired with None."""
    key = lambda row: tuple(row[:3])  # noqa: E731  (log, question, line)
    old = {key(r): r for r in map(json.loads, before)}
    new = {key(r): r for r in map(json.loads, after)}
    return [(old.get(k), new.get(k)) for k in sorted({*old, *new}) if old.get(k) != new.get(k)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", required=True, help="longmemeval_oracle.json (all questions)")
    ap.add_argument("--logs", nargs="+", required=True, help="eval-results logs (.gz or not)")
    ap.add_argument("--out", default=None, help="write the verdict lines here")
    ap.add_argument("--against", default=None, help="verdict lines written before (--out)")
    args = ap.parse_args(argv)
    lines = verdict_lines(sorted(args.logs), args.oracle)
    text = as_text(lines)
    print(f"{len(lines)} answers of {len(args.logs)} logs; verdicts sha256 {sha256_text(text)}")
    if args.out:
        atomic_write_text(args.out, text)
    if args.against:
        before = Path(args.against).read_text().splitlines()
        changed = moved(before, lines)
        for old, new in changed:
            print(f"moved: {json.dumps(old)} -> {json.dumps(new)}")
        print(f"{len(changed)} of {len(lines)} verdicts moved against {args.against}")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
