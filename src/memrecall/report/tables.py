"""Tables as data, rendered three ways (Markdown, LaTeX booktabs, CSV), and the run-level tables
of `aggregate`: accuracy by type with CIs, the R/G error matrix, tokens/cost/latency percentiles.

A `Table` holds raw values; formatting happens only when rendering, so the CSV keeps full
numbers (rounded to 6 decimals) while Markdown/LaTeX show percentages and signed deltas.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import polars as pl

# ---- cell formats ---------------------------------------------------------------------------


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x) -> str:
    """An accuracy in percent, one decimal."""
    return "–" if _missing(x) else f"{100 * x:.1f}"


def signed_pct(x) -> str:
    """A difference in percentage points, with its sign."""
    return "–" if _missing(x) else f"{100 * x:+.1f}"


def ci_pct(x) -> str:
    if _missing(x) or x[0] is None:
        return "–"
    return f"[{100 * x[0]:.1f}, {100 * x[1]:.1f}]"


def signed_ci_pct(x) -> str:
    if _missing(x) or x[0] is None:
        return "–"
    return f"[{100 * x[0]:+.1f}, {100 * x[1]:+.1f}]"


def pvalue(x) -> str:
    if _missing(x):
        return "–"
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def usd(x) -> str:
    return "–" if _missing(x) else f"{x:.4f}" if x < 1 else f"{x:.2f}"


def integer(x) -> str:
    return "–" if _missing(x) else f"{int(x):,}"


def number(x, digits=2) -> str:
    return "–" if _missing(x) else f"{x:.{digits}f}"


def text(x) -> str:
    return "–" if _missing(x) else str(x)


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    fmt: Callable[[Any], str] = text
    align: str = "r"  # "l" or "r"


@dataclass
class Table:
    name: str  # file stem, e.g. "table1_models"
    title: str
    columns: list[Column]
    rows: list[dict]
    notes: list[str] = field(default_factory=list)

    # ---- renderers ----
    def to_markdown(self) -> str:
        head = "| " + " | ".join(c.header for c in self.columns) + " |"
        rule = "|" + "|".join("---:" if c.align == "r" else "---" for c in self.columns) + "|"
        body = [
            "| " + " | ".join(c.fmt(r.get(c.key)) for c in self.columns) + " |" for r in self.rows
        ]
        out = [f"### {self.title}", "", head, rule, *body]
        if self.notes:
            out += ["", *self.notes]
        return "\n".join(out) + "\n"

    def to_latex(self) -> str:
        spec = "".join(c.align for c in self.columns)
        lines = [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            f"\\caption{{{latex_escape(self.title)}}}",
            f"\\label{{tab:{self.name}}}",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(latex_escape(c.header) for c in self.columns) + " \\\\",
            "\\midrule",
        ]
        for r in self.rows:
            lines.append(
                " & ".join(latex_escape(c.fmt(r.get(c.key))) for c in self.columns) + " \\\\"
            )
        lines += ["\\bottomrule", "\\end{tabular}"]
        for n in self.notes:
            lines.append(f"\\par\\smallskip{{\\footnotesize {latex_escape(n)}}}")
        lines.append("\\end{table}")
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([c.key for c in self.columns])
        for r in self.rows:
            w.writerow([_csv_cell(r.get(c.key)) for c in self.columns])
        return buf.getvalue()


def _csv_cell(x) -> str:
    if _missing(x):
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return repr(round(x, 6))
    if isinstance(x, (tuple, list)):
        return ";".join(_csv_cell(v) for v in x)
    return str(x)


_LATEX_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "Δ": r"$\Delta$",
    "κ": r"$\kappa$",
    "–": "--",
    "±": r"$\pm$",
    "<": r"$<$",
    ">": r"$>$",
}


def latex_escape(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(s))


# ---- run-level tables (aggregate) -----------------------------------------------------------


def by_type_table(qa: dict, ci: dict) -> Table:
    """Accuracy per type, then overall, task-averaged and abstention, each with its 95% CI."""
    rows = [
        {
            "group": t,
            "n": qa["n_by_type"].get(t),
            "accuracy": qa["by_type"].get(t),
            "ci": ci["by_type"].get(t),
        }
        for t in qa["by_type"]
    ]
    rows += [
        {
            "group": "overall (micro)",
            "n": qa["n_judged"],
            "accuracy": qa["overall"],
            "ci": ci["overall"],
        },
        {
            "group": f"task-averaged (mean of {qa['n_types']} types)",
            "n": qa["n_judged"],
            "accuracy": qa["task_averaged"],
            "ci": ci["task_averaged"],
        },
        {
            "group": "abstention",
            "n": qa.get("n_abstention_judged", qa["n_abstention"]),
            "accuracy": qa["abstention"],
            "ci": ci["abstention"],
        },
    ]
    return Table(
        "by_type",
        "QA accuracy by question type (%)",
        [
            Column("group", "type", align="l"),
            Column("n", "n", integer),
            Column("accuracy", "accuracy", pct),
            Column("ci", "95% CI", ci_pct),
        ],
        rows,
    )


def error_matrix(per_question: pl.DataFrame) -> dict:
    """LongMemEval Fig. 14: evidence retrieved (all gold sessions in the reader's context)
    × answer correct, over the non-abstention questions with gold evidence that were judged."""
    df = per_question.filter(
        ~pl.col("is_abstention")
        & pl.col("correct").is_not_null()
        & pl.col("evidence_in_context").is_not_null()
    )
    cells = {}
    for r_name, r in (("retrieved", True), ("missed", False)):
        for g_name, g in (("correct", True), ("wrong", False)):
            # correct = fully correct (a score of 1 where a benchmark scores in [0, 1])
            full = pl.col("correct").cast(pl.Float64) >= 1.0
            cells[f"{r_name}_{g_name}"] = df.filter(
                (pl.col("evidence_in_context") == r) & (full if g else ~full)
            ).height
    cells["n"] = df.height
    return cells


def error_matrix_markdown(cells: dict, context_note: str) -> str:
    n = cells["n"]

    def cell(k):
        return f"{cells[k]} ({100 * cells[k] / n:.1f}%)" if n else "0"

    rr = cells["retrieved_correct"] + cells["retrieved_wrong"]
    rm = cells["missed_correct"] + cells["missed_wrong"]
    lines = [
        "# Error analysis: retrieval × generation (LongMemEval Fig. 14)",
        "",
        f"Questions: {n} (abstention questions, questions without gold evidence and "
        "questions without a verdict are left out). " + context_note,
        "",
        "| | answer correct | answer wrong | total |",
        "|---|---:|---:|---:|",
        f"| evidence retrieved | {cell('retrieved_correct')} | {cell('retrieved_wrong')} | {rr} |",
        f"| evidence missed | {cell('missed_correct')} | {cell('missed_wrong')} | {rm} |",
        "",
        "Reading: *retrieved + wrong* are reading failures (the evidence was in the "
        "context); *missed + wrong* are retrieval failures; *missed + correct* are lucky "
        "guesses or answers from partial evidence.",
    ]
    return "\n".join(lines) + "\n"


def percentiles(values, ps=(50, 90, 95, 99)) -> dict:
    """{"mean", "p50", ..., "max", "sum"} of the non-null values (None when there are none)."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    if x.size == 0:
        return {"mean": None, **{f"p{p}": None for p in ps}, "max": None, "sum": 0.0}
    return {
        "mean": float(x.mean()),
        **{f"p{p}": float(np.percentile(x, p, method="linear")) for p in ps},
        "max": float(x.max()),
        "sum": float(x.sum()),
    }


def usage_table(usage: dict) -> Table:
    """Tokens, cost and latency per answered question (reader calls, plus judge calls)."""
    rows = []
    for key, label, fmt in (
        ("input_tokens", "reader input tokens", number),
        ("output_tokens", "reader output tokens", number),
        ("reasoning_tokens", "reader reasoning tokens", number),
        ("cost_usd", "reader cost (USD)", lambda x: number(x, 6)),
        ("latency_s", "reader latency (s)", number),
        ("judge_cost_usd", "judge cost (USD)", lambda x: number(x, 6)),
        ("judge_latency_s", "judge latency (s)", number),
    ):
        p = usage.get(key)
        if p is None:
            continue
        rows.append({"what": label, **{k: fmt(v) for k, v in p.items()}})
    cols = [Column("what", "per answered question", align="l")] + [
        Column(k, k) for k in ("mean", "p50", "p90", "p95", "p99", "max", "sum")
    ]
    return Table("usage", "Tokens, cost and latency per question", cols, rows)


def ci_tuples(ci: dict) -> dict:
    def tup(c):
        return (c["low"], c["high"]) if c and c.get("low") is not None else None

    out = {t: tup(c) for t, c in ci["by_type"].items()}
    out["overall"], out["task-averaged"] = tup(ci["overall"]), tup(ci["task_averaged"])
    return out


def by_type_markdown(metrics: dict, qa: dict, judge_lines: list[str]) -> str:
    """reports/by_type.md: accuracy per type with CIs (`qa`: types in report order), the judge
    and its caveat, counts and cost."""
    ci = {
        k: (
            None
            if metrics["qa"]["ci"][k] is None
            else (metrics["qa"]["ci"][k]["low"], metrics["qa"]["ci"][k]["high"])
        )
        for k in ("overall", "task_averaged", "abstention")
    }
    ci["by_type"] = ci_tuples(metrics["qa"]["ci"])
    table = by_type_table(qa, ci)
    c = metrics["qa"]["ci"]
    lines = [
        "# QA accuracy by question type",
        "",
        *judge_lines,
        "",
        table.to_markdown(),
        f"{metrics['qa']['n_judged']} of {metrics['n_questions']} questions judged. "
        f"Judge errors (no usable verdict): {metrics['judge_errors']}; reader errors (the "
        f"reader's call failed): {metrics['reader_errors']} — both left out of every "
        "accuracy, not counted as wrong.",
        f"95% CIs: {c['method']}, {c['samples']} resamples, seed {c['seed']}; "
        "task-averaged resamples each type separately.",
        f"Refusal rate: {pct(metrics['refusal_rate'])}%. Cost: "
        f"${metrics['cost_usd']:.4f} (rewrite ${metrics['cost_by_stage']['rewrite']:.4f}, "
        f"read ${metrics['cost_by_stage']['read']:.4f}, judge "
        f"${metrics['cost_by_stage']['judge']:.4f}).",
    ]
    return "\n".join(lines) + "\n"


def referral_line(judge: dict) -> list[str]:
    """The report line that says who judged what in a routed run, or how many of a rule judge's
    verdicts a routed judge would have referred (metrics.json["judge"], judge/routed.py); none
    for another judge."""
    r = judge.get("routed") or judge.get("in_doubt")
    if not r:
        return []
    reasons = "; ".join(f"{why}: {n}" for why, n in r["reasons"].items())
    reasons = f" ({reasons})." if reasons else "."
    if "routed" not in judge:
        share = r["referred"] / r["judged"] if r["judged"] else 0.0
        return [
            f"In doubt: {r['referred']} of the {r['judged']} rule verdicts ({share:.0%}) are on "
            "answers `judge=routed` would send to an LLM judge" + reasons
        ]
    return [
        f"Routed: the rules (`{r['rules']}`) judged {r['judged'] - r['referred']} of "
        f"{r['judged']} answers, `{r['referee']}` the {r['referred']} they referred" + reasons
    ]
