"""The rule judge on the leniency audit's planted answers worded another way: does it read a
class (a reasoning that settles on another answer, an answer taken back, an abstention), or the
audit generator's own phrases?

    python bench/judge_wordings.py \
        --longmemeval ../shared/data/longmemeval/longmemeval_oracle.json \
        --wordings bench/wordings/r40-held.yaml

A wordings file maps a family of memrecall.audit.planting.Wordings (reasoning, contradicted,
taken_back, in_sentence, abstain, vague) to wordings with that family's placeholders. Each
wording is planted for every question it applies to, in place of the generator's own, and the
rule judge labels the planted answers; a table gives its errors per wording and class (a
planted wrong answer accepted, a right one rejected), how many answers judge=routed refers to
its LLM judge (Benchmark.rule_referral), and the errors it keeps (the rules' errors it does not
refer). Only answers that read differently from
the generator's count. bench/wordings/ keeps the sets of the fortieth round: two the rules were
then fixed on (r40-dev-*.yaml), and two never fixed on, the held-out checks: r40-held.yaml,
written before the second set's fixes, and r40-held-2.yaml, written after the last one; and
r41-held.yaml, written by a helper that read no code, after judge=routed's referral markers. To
compare two versions of the rules, run it in a `git worktree` of each, with the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from judge_audit import questions_of  # noqa: E402
from memrecall import benchmarks  # noqa: E402
from memrecall.audit.planting import Wordings, plant_all  # noqa: E402


def read_wordings(path: str) -> dict[str, tuple[str, ...]]:
    """{family: wordings} of a wordings file, checked (Wordings.from_mapping)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    given = Wordings.from_mapping(data, source=path)
    return {family: getattr(given, family) for family in data}


def measure(bench, questions, families: dict[str, tuple[str, ...]]) -> list[dict]:
    """One row per (family, wording, class): planted answers, the rule judge's errors, the
    answers judge=routed refers and the errors it keeps."""
    rows = {r["question_id"]: r for r in questions.iter_rows(named=True)}
    tempting = {k: bench.tempting_answer(r) for k, r in rows.items()}
    generator = {
        (p.question_id, p.klass): p.answer for p in plant_all(list(rows.values()), tempting)[0]
    }
    out = []
    for family, wordings in families.items():
        for wording in wordings:
            planted, _ = plant_all(list(rows.values()), tempting, Wordings(**{family: (wording,)}))
            n, errors, referred, kept = Counter(), Counter(), Counter(), Counter()
            for p in planted:
                if generator.get((p.question_id, p.klass)) == p.answer:
                    continue  # worded as the generator words it: not this wording's answer
                record = {**rows[p.question_id], "hypothesis": p.answer}
                label = bench.rule_verdict(record).label
                refers = bench.rule_referral(record, label) is not None
                n[p.klass] += 1
                errors[p.klass] += label != p.should_accept
                referred[p.klass] += refers
                kept[p.klass] += label != p.should_accept and not refers
            out += [
                {
                    "family": family,
                    "wording": wording,
                    "class": k,
                    "planted": n[k],
                    "errors": errors[k],
                    "referred": referred[k],
                    "kept_errors": kept[k],
                }
                for k in sorted(n)
            ]
    return out


def print_table(name: str, rows: list[dict]) -> None:
    print(f"\n## {name}: rule judge errors on planted answers in these wordings\n")
    print("(referred: judge=routed sends the answer to its LLM judge; kept: the rules' errors it")
    print("does not refer)\n")
    print(
        "| family | wording | class | planted | errors | rate | referred | kept errors |\n"
        "|---|---|---|---:|---:|---:|---:|---:|"
    )
    for r in rows:
        rate = r["errors"] / r["planted"] if r["planted"] else 0.0
        print(
            f"| {r['family']} | {r['wording']} | {r['class']} | {r['planted']} | "
            f"{r['errors']} | {rate:.1%} | {r['referred']} | {r['kept_errors']} |"
        )
    planted, errors = sum(r["planted"] for r in rows), sum(r["errors"] for r in rows)
    referred, kept = sum(r["referred"] for r in rows), sum(r["kept_errors"] for r in rows)
    print(
        f"| **all** | | | {planted} | {errors} | {errors / max(planted, 1):.1%} | "
        f"{referred} ({referred / max(planted, 1):.1%}) | {kept} ({kept / max(planted, 1):.1%}) |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--longmemeval", help="a LongMemEval JSON file")
    p.add_argument("--locomo", help="a LoCoMo JSON file")
    p.add_argument("--wordings", required=True, help="a wordings file (see the docstring)")
    p.add_argument("--json", default=None, help="write every row here")
    args = p.parse_args()
    if not (args.longmemeval or args.locomo):
        p.error("give --longmemeval and/or --locomo")
    families = read_wordings(args.wordings)
    result = {}
    for kind, path in (("longmemeval", args.longmemeval), ("locomo", args.locomo)):
        if path:
            questions = questions_of(kind, path)
            result[kind] = measure(benchmarks.get(kind), questions, families)
            print_table(Path(path).name, result[kind])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
