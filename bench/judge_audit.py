"""The judge leniency audit on raw benchmark files (memrecall.audit), without a pipeline run:

    python bench/judge_audit.py --longmemeval ../shared/data/longmemeval/longmemeval_oracle.json \
        --locomo ../shared/data/locomo/locomo_dev2.json --judge rule --out OUT

Each file's questions are normalised as the download stage would, answers are planted from their
golds, and every `--judge` (Hydra overrides; LLM judges through the cached client) labels them.
Writes OUT/judge_audit_<benchmark>.{md,json} and prints the tables.

`--restyle` also re-judges every planted answer with the rule judge in each house style of
memrecall.audit.restyle and prints, per benchmark, how many verdicts change: a planted answer's
truth does not depend on its style, so every change is a misreading. `--reword` does the same
with each question asked in other words (memrecall.audit.reword), and `--restate` with each
gold answer written in other words (memrecall.audit.restate), `--renotate` with each planted
answer's quantities written another way (memrecall.audit.notation).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from memrecall import benchmarks  # noqa: E402
from memrecall.audit.leniency import audit_judges, report_markdown, write_report  # noqa: E402
from memrecall.audit.notation import RENOTATED  # noqa: E402
from memrecall.audit.planting import plant_all  # noqa: E402
from memrecall.audit.restate import RESTATED  # noqa: E402
from memrecall.audit.restyle import RESTYLED  # noqa: E402
from memrecall.audit.reword import REWORDED  # noqa: E402
from memrecall.audit.variants import Labelled, verdict_changes  # noqa: E402
from memrecall.judge.panel import member_configs  # noqa: E402


def questions_of(kind: str, path: str):
    if kind == "locomo":
        from memrecall.benchmarks.locomo import data as locomo

        recs = json.loads(Path(path).read_text())
        locomo.validate(recs, path)
        return locomo.normalise(recs, locomo.flatten(recs)).questions
    from memrecall.benchmarks.longmemeval.data import normalise
    from memrecall.data.jsonfile import load_records

    return normalise(load_records(path), path).questions


def varied(bench, questions, variants: dict) -> dict:
    """Per variant (a restyling, a rewording, a restatement or a notation), the rule verdicts on
    the planted answers that change (see the docstring)."""
    rows = {r["question_id"]: r for r in questions.iter_rows(named=True)}
    planted, _ = plant_all(
        list(rows.values()), {k: bench.tempting_answer(r) for k, r in rows.items()}
    )
    items = [
        Labelled(rows[p.question_id]["question"], p.answer, p.should_accept, rows[p.question_id])
        for p in planted
    ]
    changes = verdict_changes(
        items,
        lambda item: (
            bench.rule_verdict(
                {**item.record, "question": item.question, "hypothesis": item.response}
            ).label
        ),
        variants,
        progress=True,
    )
    return {name: vars(c) for name, c in changes.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--longmemeval", help="a LongMemEval JSON file")
    p.add_argument("--locomo", help="a LoCoMo JSON file")
    p.add_argument("--judge", action="append", dest="judges", metavar="OPTION")
    p.add_argument("--out", default="reports")
    p.add_argument("--restyle", action="store_true", help="rule verdicts in other house styles")
    p.add_argument("--reword", action="store_true", help="rule verdicts, questions reworded")
    p.add_argument("--restate", action="store_true", help="rule verdicts, golds restated")
    p.add_argument("--renotate", action="store_true", help="rule verdicts, quantities renotated")
    args = p.parse_args()
    judges = member_configs(args.judges or ["rule"])
    for kind in ("longmemeval", "locomo"):
        path = getattr(args, kind)
        if not path:
            continue
        report = audit_judges(benchmarks.get(kind), questions_of(kind, path), judges)
        report["source"] = Path(path).name
        write_report(report, args.out, f"judge_audit_{kind}")
        print(report_markdown(report, f"Judge leniency audit: {Path(path).name}"))
        for wanted, variants, kind_of in (
            (args.restyle, RESTYLED, "restyling"),
            (args.reword, REWORDED, "rewording"),
            (args.restate, RESTATED, "restatement"),
            (args.renotate, RENOTATED, "notation"),
        ):
            if not wanted:
                continue
            print(f"\n## {Path(path).name}: rule verdicts on the planted answers, {kind_of}s\n")
            print(f"| {kind_of} | planted | verdicts changed | toward the truth | away from it |")
            print("|---|---:|---:|---:|---:|")
            for name, c in varied(benchmarks.get(kind), questions_of(kind, path), variants).items():
                print(
                    f"| {name} | {c['n']} | {c['changed']} | {c['toward_label']} | "
                    f"{c['away_from_label']} |"
                )


if __name__ == "__main__":
    main()
