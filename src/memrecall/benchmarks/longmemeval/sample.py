"""Build the bundled sample: a small, real slice of LongMemEval-S (cleaned) with full haystacks.

Rule (deterministic, no randomness): a question's size is the number of characters in its
haystack's turns. Take `abstention` abstention questions, smallest first, at most one per type;
then fill every type up to `per_type` with its smallest non-abstention questions (ties by
question_id). Smallest haystacks keep the offline demo fast; every question keeps its whole,
unmodified haystack. Records are written round-robin over the types (so `dataset.limit=6`
gives one question of each type), as compact JSON, gzip'd with mtime 0 and no file name in
the header (same input -> byte-identical file).

    python -m memrecall.benchmarks.longmemeval.sample \
        --src ../shared/data/longmemeval/longmemeval_s_cleaned_dev100.json.gz \
        --out data/sample/longmemeval_s_cleaned_sample.json.gz
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import orjson

from ...artifacts import atomic_write_bytes
from ...errors import MemrecallError
from .categories import QUESTION_TYPES, is_abstention_id
from .data import load_records, validate_records


def haystack_chars(rec: dict) -> int:
    return sum(len(t["content"]) for s in rec["haystack_sessions"] for t in s)


def choose(records: list[dict], per_type: int = 2, abstention: int = 2) -> list[dict]:
    """The sample's records, in output order (see module doc for the rule)."""
    key = {r["question_id"]: (haystack_chars(r), r["question_id"]) for r in records}
    is_abs = {r["question_id"]: is_abstention_id(r["question_id"]) for r in records}
    picked: dict[str, list[dict]] = {t: [] for t in QUESTION_TYPES}
    for r in sorted(
        (r for r in records if is_abs[r["question_id"]]), key=lambda r: key[r["question_id"]]
    ):
        if sum(map(len, picked.values())) == abstention:
            break
        if not picked[r["question_type"]] and per_type > 0:
            picked[r["question_type"]].append(r)
    if sum(map(len, picked.values())) < abstention:
        raise MemrecallError(f"source has abstention questions in fewer than {abstention} types")
    for t in QUESTION_TYPES:
        pool = sorted(
            (r for r in records if r["question_type"] == t and not is_abs[r["question_id"]]),
            key=lambda r: key[r["question_id"]],
        )
        need = per_type - len(picked[t])
        if len(pool) < need:
            raise MemrecallError(f"source has only {len(pool)} non-abstention '{t}' questions")
        picked[t].extend(pool[:need])
        picked[t].sort(key=lambda r: (is_abs[r["question_id"]],) + key[r["question_id"]])
    return [picked[t][i] for i in range(per_type) for t in QUESTION_TYPES]


def write_gzip_json(records: list[dict], out: str | Path) -> Path:
    """Deterministic .json.gz, written atomically."""
    data = gzip.compress(orjson.dumps(records), compresslevel=9, mtime=0)
    return atomic_write_bytes(out, data)


def build_sample(
    src: str | Path, out: str | Path, per_type: int = 2, abstention: int = 2
) -> list[dict]:
    records = load_records(src)
    validate_records(records, str(src))
    chosen = choose(records, per_type, abstention)
    write_gzip_json(chosen, out)
    return chosen


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="LongMemEval-S file (.json or .json.gz)")
    ap.add_argument("--out", required=True, help="output .json.gz")
    ap.add_argument("--per-type", type=int, default=2)
    ap.add_argument("--abstention", type=int, default=2)
    a = ap.parse_args(argv)
    chosen = build_sample(a.src, a.out, a.per_type, a.abstention)
    for r in chosen:
        print(
            f"{r['question_id']:<16} {r['question_type']:<26} {len(r['haystack_sessions']):>3} "
            f"sessions {haystack_chars(r):>9,} chars"
        )
    print(f"wrote {len(chosen)} questions to {a.out} ({Path(a.out).stat().st_size:,} bytes)")


if __name__ == "__main__":
    from ...stage import run_stage

    run_stage(main)
