"""Agreement between two judges that labelled the same answers (e.g. `rule` vs an LLM judge):
raw agreement and Cohen's kappa, overall and by question type → reports/judge_agreement.md.

Only questions both judges labelled (label not null) count; the rest are reported as skipped.
Kappa = (p_o − p_e) / (1 − p_e), with p_e from each judge's own yes-rate; it is undefined (None,
shown as "–") when both judges give one constant label (p_e = 1).

    python -m memrecall.eval.agreement A/verdicts.parquet B/verdicts.parquet \
        [--questions artifacts/questions.parquet] [--out reports/judge_agreement.md]

`memrecall export` also writes the report when two DVC experiments judged identical answers with
different judges.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text, read_table
from ..errors import InputError
from .qa_metrics import type_order

AGREEMENT_REPORT = "reports/judge_agreement.md"


def cohen_kappa(a, b) -> float | None:
    a, b = [bool(x) for x in a], [bool(x) for x in b]
    if len(a) != len(b):
        raise ValueError("cohen_kappa needs two label lists of equal length")
    n = len(a)
    if n == 0:
        return None
    p_o = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)


def _summary(a: list, b: list) -> dict:
    n = len(a)
    return {"n": n,
            "agreement": (sum(x == y for x, y in zip(a, b)) / n) if n else None,
            "kappa": cohen_kappa(a, b),
            "a_yes": (sum(a) / n) if n else None, "b_yes": (sum(b) / n) if n else None,
            "a_only_yes": sum(x and not y for x, y in zip(a, b)),
            "b_only_yes": sum(y and not x for x, y in zip(a, b))}


def judge_agreement(verdicts_a: pl.DataFrame, verdicts_b: pl.DataFrame,
                    questions: pl.DataFrame | None = None) -> dict:
    """{"overall": {...}, "by_type": {type: {...}}, "skipped": n} where each {...} holds n,
    agreement, kappa, a_yes, b_yes, a_only_yes, b_only_yes."""
    if questions is not None:
        types = questions.select("question_id", "question_type")
    elif "question_type" in verdicts_a.columns:
        types = verdicts_a.select("question_id", "question_type")
    else:
        raise InputError("verdicts lack question_type: pass the questions table",
                         field="question_type")
    j = (verdicts_a.select("question_id", pl.col("label").alias("a"))
         .join(verdicts_b.select("question_id", pl.col("label").alias("b")), on="question_id",
               how="full", coalesce=True)
         .join(types, on="question_id", how="left").sort("question_id"))
    both = j.filter(pl.col("a").is_not_null() & pl.col("b").is_not_null())
    out = {"overall": _summary(both["a"].to_list(), both["b"].to_list()), "by_type": {},
           "skipped": j.height - both.height}
    for t in type_order([t for t in both["question_type"].to_list() if t is not None]):
        sub = both.filter(pl.col("question_type") == t)
        out["by_type"][t] = _summary(sub["a"].to_list(), sub["b"].to_list())
    return out


def _f(x, digits=3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def agreement_markdown(result: dict, name_a: str, name_b: str) -> str:
    lines = [f"# Judge agreement: {name_a} vs {name_b}", "",
             f"Questions both judges labelled: {result['overall']['n']} "
             f"(skipped, a label missing on either side: {result['skipped']}).", "",
             f"| type | n | agreement | Cohen's κ | {name_a} yes | {name_b} yes | "
             f"only {name_a} yes | only {name_b} yes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    rows = [*result["by_type"].items(), ("**all**", result["overall"])]
    for t, s in rows:
        lines.append(f"| {t} | {s['n']} | {_f(s['agreement'])} | {_f(s['kappa'])} | "
                     f"{_f(s['a_yes'])} | {_f(s['b_yes'])} | {s['a_only_yes']} | "
                     f"{s['b_only_yes']} |")
    lines += ["", "κ is undefined (–) when both judges give a single constant label."]
    return "\n".join(lines) + "\n"


def _judge_name(df: pl.DataFrame, fallback: str) -> str:
    if "judge_model" in df.columns:
        names = [n for n in df["judge_model"].drop_nulls().unique().sort().to_list()]
        if names:
            return ", ".join(names)
    return fallback


def write_agreement_report(verdicts_a: str | Path, verdicts_b: str | Path, *,
                           questions: str | Path | None = None,
                           out: str | Path = AGREEMENT_REPORT) -> dict:
    a, b = read_table(verdicts_a, "verdicts"), read_table(verdicts_b, "verdicts")
    q = read_table(questions, "questions") if questions else None
    result = judge_agreement(a, b, q)
    name_a, name_b = _judge_name(a, str(verdicts_a)), _judge_name(b, str(verdicts_b))
    if name_a == name_b:
        name_a, name_b = f"A ({name_a})", f"B ({name_b})"
    atomic_write_text(out, agreement_markdown(result, name_a, name_b))
    return result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Agreement between two judges' verdicts.")
    ap.add_argument("verdicts_a")
    ap.add_argument("verdicts_b")
    ap.add_argument("--questions", default=None)
    ap.add_argument("--out", default=AGREEMENT_REPORT)
    args = ap.parse_args(argv)
    r = write_agreement_report(args.verdicts_a, args.verdicts_b, questions=args.questions,
                               out=args.out)
    print(f"wrote {args.out}: agreement {_f(r['overall']['agreement'])}, "
          f"kappa {_f(r['overall']['kappa'])} over {r['overall']['n']} questions")


if __name__ == "__main__":
    main()
