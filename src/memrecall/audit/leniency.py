"""The judge leniency audit (`memrecall audit-judge`): each judge labels the planted answers of
audit/planting.py, and the report gives, per class, how often it accepted a wrong answer (false
accept) or rejected a right one (false reject), with Wilson 95% intervals.

    report = audit_judges(bench, questions, {"rule": rule_cfg, "gpt4o": gpt4o_cfg})
    write_report(report, "reports/judge_audit")

Judges run through the judge stage's own code (judge.stage.judge_answers), so an LLM judge's
calls go through the cached LLMClient: a rerun, or a panel that already judged the same planted
answer, pays nothing. A verdict that failed (judge error) is counted apart, never as a reject.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text
from ..eval.stats import wilson_interval
from ..llm import usage
from ..schema import polars_schema
from .planting import CLASSES, RIGHT, Planted, plant_all


def planted_tables(
    questions: pl.DataFrame, planted: list[Planted]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(questions, answers) frames the judge stage takes: one row per planted answer, its
    question row copied under the planted id (all the benchmark's columns kept)."""
    by_id = {r["question_id"]: r for r in questions.iter_rows(named=True)}
    q_rows = [{**by_id[p.question_id], "question_id": p.planted_id} for p in planted]
    qs = pl.DataFrame(q_rows, schema=questions.schema) if q_rows else questions.clear()
    schema = polars_schema("answers")
    a_rows = []
    for p in planted:
        row = {k: None for k in schema}
        row.update(
            {
                "question_id": p.planted_id,
                "hypothesis": p.answer,
                "model": "planted",
                "prompt_id": f"planted:{p.klass}",
                **usage(),
                "refused": False,
            }
        )
        a_rows.append(row)
    return qs, pl.DataFrame(a_rows, schema=schema)


def rates(planted: list[Planted], labels: dict[str, bool | None]) -> dict:
    """Per class: n planted, n labelled, errors, the error count (accepted wrong / rejected
    right), its rate and Wilson interval."""
    out = {}
    for klass in CLASSES:
        ps = [p for p in planted if p.klass == klass]
        if not ps:
            continue
        lab = [labels.get(p.planted_id) for p in ps]
        judged = [x for x in lab if x is not None]
        right = klass in RIGHT
        bad = sum(1 for x in judged if x is not right)
        ci = wilson_interval(bad, len(judged))
        out[klass] = {
            "kind": "false_reject" if right else "false_accept",
            "n": len(ps),
            "judged": len(judged),
            "judge_errors": len(lab) - len(judged),
            "errors": bad,
            "rate": bad / len(judged) if judged else None,
            "ci": ci,
        }
    return out


def audit_judges(bench, questions: pl.DataFrame, judges: dict[str, dict]) -> dict:
    """Plant answers for `questions` (a questions table as the download stage writes it, of
    the benchmark `bench`) and have every judge of `judges` ({label: judge config}) label
    them."""
    from ..judge.stage import judge_answers

    rows = questions.to_dicts()
    planted, left_out = plant_all(rows, {r["question_id"]: bench.tempting_answer(r) for r in rows})
    qs, answers = planted_tables(questions, planted)
    report = {
        "planted": {k: sum(1 for p in planted if p.klass == k) for k in CLASSES},
        "left_out": left_out,
        "judges": {},
    }
    for label, cfg in judges.items():
        verdicts = judge_answers(bench, qs, answers, cfg)
        labels = dict(zip(verdicts["question_id"].to_list(), verdicts["label"].to_list()))
        report["judges"][label] = {
            "model": cfg.get("model"),
            "kind": cfg.get("kind"),
            "classes": rates(planted, labels),
        }
    return report


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def report_markdown(report: dict, title: str = "Judge leniency audit") -> str:
    lines = [
        f"# {title}",
        "",
        "Planted answers made from the gold answers by rule (memrecall.audit.planting). "
        "False accept: a planted wrong answer labelled correct; false reject: a planted "
        "right answer labelled wrong. 95% Wilson intervals; judge errors are left out of "
        "the rate and counted.",
        "",
        f"Of {report['left_out']['questions']} questions, "
        f"{report['left_out']['unanswerable_questions']} cannot be answered from their history: "
        "they get only a committed answer (answers_unanswerable) and an abstention "
        "(abstains_unanswerable). Left out: "
        f"{report['left_out']['gold_too_long']} golds longer than a short answer.",
        "",
    ]
    judges = list(report["judges"])
    head = "| class | kind | n | " + " | ".join(f"{j} rate [95% CI]" for j in judges) + " |"
    lines += [head, "|---|---|---:|" + "---:|" * len(judges)]
    for klass in CLASSES:
        cells, kind, n = [], None, report["planted"].get(klass, 0)
        if not n:
            continue
        for j in judges:
            c = report["judges"][j]["classes"].get(klass)
            kind = c["kind"] if c else kind
            if not c or c["rate"] is None:
                cells.append("–")
                continue
            lo, hi = c["ci"]
            err = f", {c['judge_errors']} err" if c["judge_errors"] else ""
            cells.append(f"{_pct(c['rate'])} [{_pct(lo)}, {_pct(hi)}]{err}")
        lines.append(
            f"| {klass} | {(kind or '').replace('_', ' ')} | {n} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def write_report(report: dict, out_dir: str | Path, name: str = "judge_audit") -> list[Path]:
    out = Path(out_dir)

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (tuple, list)):
            return [clean(v) for v in x]
        return round(x, 6) if isinstance(x, float) else x

    return [
        atomic_write_text(
            out / f"{name}.json", json.dumps(clean(report), indent=2, sort_keys=True) + "\n"
        ),
        atomic_write_text(out / f"{name}.md", report_markdown(report)),
    ]


def main(argv: list[str] | None = None, prog: str = "memrecall audit-judge") -> None:
    import argparse

    from .. import benchmarks
    from ..artifacts import read_table
    from ..judge.panel import member_configs

    p = argparse.ArgumentParser(
        prog=prog,
        description="How lenient or strict each judge is, "
        "on answers planted from the gold answers by rule.",
    )
    p.add_argument(
        "--questions",
        default="artifacts/questions.parquet",
        help="a questions table as the download stage writes it (any benchmark)",
    )
    p.add_argument(
        "--judge",
        action="append",
        dest="judges",
        metavar="OPTION",
        help='a judge option ("gpt4o") or Hydra overrides ("official '
        'judge.official_script=PATH"); repeat for several (default: rule)',
    )
    p.add_argument("--out", default="reports", help="folder for judge_audit.{md,json}")
    p.add_argument("--name", default="judge_audit", help="file stem of the report")
    args = p.parse_args(argv)
    questions = read_table(args.questions, "questions")
    report = audit_judges(
        benchmarks.of_artifact(args.questions), questions, member_configs(args.judges or ["rule"])
    )
    for path in write_report(report, args.out, args.name):
        print(f"wrote {path}")
    print(report_markdown(report))
