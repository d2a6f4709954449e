"""The judge leniency audit on raw benchmark files (memrecall.audit), without a pipeline run:

    python bench/judge_audit.py --longmemeval ../shared/data/longmemeval/longmemeval_oracle.json \
        --locomo ../shared/data/locomo/locomo_dev2.json --judge rule --out OUT

Each file's questions are normalised as the download stage would, answers are planted from their
golds, and every `--judge` (Hydra overrides; LLM judges through the cached client) labels them.
Writes OUT/judge_audit_<benchmark>.{md,json} and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from memrecall import benchmarks  # noqa: E402
from memrecall.audit.leniency import audit_judges, report_markdown, write_report  # noqa: E402
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--longmemeval", help="a LongMemEval JSON file")
    p.add_argument("--locomo", help="a LoCoMo JSON file")
    p.add_argument("--judge", action="append", dest="judges", metavar="OPTION")
    p.add_argument("--out", default="reports")
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


if __name__ == "__main__":
    main()
