"""The judge-agreement report: two labelings of the same answers read from files (a judge run's
verdicts.parquet or an official eval-results log), compared with eval/agreement.py's metrics
and written as Markdown → reports/judge_agreement.md; and the `memrecall agreement` command.

    memrecall agreement A/verdicts.parquet B/verdicts.parquet \
        [--questions artifacts/questions.parquet] [--out reports/judge_agreement.md]

`memrecall export` also writes the report when two DVC experiments judged identical answers with
different judges. Kappa is shown as "–" where it is undefined.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text, read_table
from ..errors import InputError
from ..eval.agreement import judge_agreement, response_words
from ..interchange import read_eval_results

AGREEMENT_REPORT = "reports/judge_agreement.md"


def _f(x, digits=3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def agreement_markdown(result: dict, name_a: str, name_b: str) -> str:
    lines = [
        f"# Judge agreement: {name_a} vs {name_b}",
        "",
        f"Questions both judges labelled: {result['overall']['n']} "
        f"(skipped, a label missing on either side: {result['skipped']}).",
        "",
        f"| type | n | agreement | Cohen's κ | {name_a} yes | {name_b} yes | "
        f"only {name_a} yes | only {name_b} yes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [*result["by_type"].items()]
    if result.get("abstention", {}).get("n"):
        rows.append(("abstention (also in their types)", result["abstention"]))
    rows.append(("**all**", result["overall"]))
    for t, s in rows:
        lines.append(
            f"| {t} | {s['n']} | {_f(s['agreement'])} | {_f(s['kappa'])} | "
            f"{_f(s['a_yes'])} | {_f(s['b_yes'])} | {s['a_only_yes']} | "
            f"{s['b_only_yes']} |"
        )
    o = result["overall"]
    if "both_yes" in o:
        lines += [
            "",
            f"Confusion ({name_a} rows × {name_b} columns): yes/yes {o['both_yes']}, "
            f"yes/no {o['a_only_yes']}, no/yes {o['b_only_yes']}, no/no {o['both_no']}."
            f" Accuracy under {name_a}: {_f(o['a_yes'])}; under {name_b}: "
            f"{_f(o['b_yes'])}.",
        ]
    if result.get("by_length"):
        lines += [
            "",
            "By the response's length in words:",
            "",
            f"| words | n | agreement | Cohen's κ | only {name_a} yes | only {name_b} yes |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for band, s in result["by_length"].items():
            lines.append(
                f"| {band} | {s['n']} | {_f(s['agreement'])} | {_f(s['kappa'])} | "
                f"{s['a_only_yes']} | {s['b_only_yes']} |"
            )
    lines += ["", "κ is undefined (–) when both judges give a single constant label."]
    return "\n".join(lines) + "\n"


def _judge_name(df: pl.DataFrame, fallback: str) -> str:
    if "judge_model" in df.columns:
        names = [n for n in df["judge_model"].drop_nulls().unique().sort().to_list()]
        if names:
            return ", ".join(names)
    return fallback


def load_labels(path: str | Path) -> pl.DataFrame:
    """One labeling: question_id, label, judge_model, hypothesis (null for verdicts), and
    question_type when a verdicts table has it. From a judge run's verdicts.parquet or an
    official eval-results log (JSON lines, optionally gzipped)."""
    p = Path(path)
    if p.suffix == ".parquet":
        v = read_table(p, "verdicts")
        cols = ["question_id", "label", "judge_model"] + (
            ["question_type"] if "question_type" in v.columns else []
        )
        return v.select(cols).with_columns(pl.lit(None, dtype=pl.String).alias("hypothesis"))
    rows = read_eval_results(p)
    return pl.DataFrame(
        [
            {
                "question_id": r["question_id"],
                "label": r["label"],
                "judge_model": r["model"],
                "hypothesis": r["hypothesis"],
            }
            for r in rows
        ],
        schema={
            "question_id": pl.String,
            "label": pl.Boolean,
            "judge_model": pl.String,
            "hypothesis": pl.String,
        },
    )


def dataset_types(path: str | Path) -> pl.DataFrame:
    """question_id, question_type, is_abstention of a dataset file (e.g. LongMemEval's oracle
    file), by the benchmark that recognises it."""
    from .. import benchmarks

    recs = benchmarks.recognise(path).question_records(Path(path))
    return pl.DataFrame(
        [{k: r[k] for k in ("question_id", "question_type", "is_abstention")} for r in recs],
        schema={"question_id": pl.String, "question_type": pl.String, "is_abstention": pl.Boolean},
    )


def compare_labelings(
    path_a: str | Path, path_b: str | Path, *, questions=None, dataset=None
) -> dict:
    """judge_agreement of two labelings of the same answers (see load_labels), with where they
    came from. Types come from `questions` (questions.parquet), `dataset` (a LongMemEval file) or
    a verdicts table. Two logs whose hypotheses differ are not labelings of the same answers."""
    a, b = load_labels(path_a), load_labels(path_b)
    both = a.join(b, on="question_id", suffix="_b").filter(
        pl.col("hypothesis").is_not_null()
        & pl.col("hypothesis_b").is_not_null()
        & (pl.col("hypothesis") != pl.col("hypothesis_b"))
    )
    if both.height:
        raise InputError(
            f"the two logs answer differently (not labelings of the same answers; "
            f"{both.height} such questions)",
            file=str(path_b),
            question_id=both["question_id"].sort()[0],
            field="hypothesis",
        )
    if questions is not None:
        types = read_table(questions, "questions")
    elif dataset is not None:
        types = dataset_types(dataset)
    else:
        types = None
    if types is not None:
        unknown = a.join(types, on="question_id", how="anti")
        if unknown.height:
            raise InputError(
                "question_id not in the questions given",
                file=str(path_a),
                question_id=unknown["question_id"].sort()[0],
                field="question_id",
            )
    # a log carries its answers: band them by length (either log's, as they are the same)
    answered = pl.concat([a, b]).filter(pl.col("hypothesis").is_not_null())
    words = (
        response_words(answered.unique("question_id", keep="first")) if answered.height else None
    )
    result = judge_agreement(a, b, types, words)
    result["a"] = {"source": str(path_a), "judge": _judge_name(a, str(path_a))}
    result["b"] = {"source": str(path_b), "judge": _judge_name(b, str(path_b))}
    return result


def write_agreement_report(
    verdicts_a: str | Path,
    verdicts_b: str | Path,
    *,
    questions: str | Path | None = None,
    out: str | Path = AGREEMENT_REPORT,
) -> dict:
    result = compare_labelings(verdicts_a, verdicts_b, questions=questions)
    name_a, name_b = result["a"]["judge"], result["b"]["judge"]
    if name_a == name_b:
        name_a, name_b = f"A ({name_a})", f"B ({name_b})"
    atomic_write_text(out, agreement_markdown(result, name_a, name_b))
    return result


def main(argv=None, prog: str | None = None) -> dict:
    ap = argparse.ArgumentParser(
        prog=prog,
        description="Agreement between two labelings of the same answers: a judge "
        "run's verdicts.parquet or an official eval-results log, each side.",
    )
    ap.add_argument("a", help="verdicts.parquet or an eval-results log (.jsonl[.gz])")
    ap.add_argument("b", help="verdicts.parquet or an eval-results log (.jsonl[.gz])")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--questions", default=None, help="questions.parquet (question types)")
    src.add_argument(
        "--dataset",
        "--oracle",
        default=None,
        dest="dataset",
        help="a LongMemEval file for the question types, e.g. longmemeval_oracle.json",
    )
    ap.add_argument("--out", default=None, help="also write the Markdown table here")
    ap.add_argument("--json", default=None, help="write every figure as JSON here")
    args = ap.parse_args(argv)
    r = compare_labelings(args.a, args.b, questions=args.questions, dataset=args.dataset)
    name_a, name_b = r["a"]["judge"], r["b"]["judge"]
    if name_a == name_b:
        name_a, name_b = f"A ({name_a})", f"B ({name_b})"
    md = agreement_markdown(r, name_a, name_b)
    print(md, end="")
    if args.out:
        atomic_write_text(args.out, md)
    if args.json:
        atomic_write_text(args.json, json.dumps(r, indent=2, sort_keys=True) + "\n")
    print(
        f"agreement {_f(r['overall']['agreement'])}, kappa {_f(r['overall']['kappa'])} over "
        f"{r['overall']['n']} questions"
        + "".join(f"; wrote {p}" for p in (args.out, args.json) if p)
    )
    return r


if __name__ == "__main__":
    main()
