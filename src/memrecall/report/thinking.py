"""The thinking ladder (`+sweep=thinking`, conf/sweep/thinking.yaml): accuracy and refusal rate per
reader model and thinking budget, as a paper table (table5_thinking) and a figure of the refusal
rate by budget, one line per model (reports/paper/refusal_rate.png).

Runs come from the `thinking` group of the paper export (meta.sweep starting with "thinking");
a run's model is its `reader.model`, its budget `reader.thinking_budget` (null: the provider's
default, shown as "default" and placed last). Runs that stopped on the refusal guard have no
metrics and so no row: the guard's message says where they stopped.
"""

from __future__ import annotations

from .tables import Column, Table, ci_pct, integer, pct, text


def _budget_key(b):
    return (b is None, b if b is not None else 0)


def thinking_rows(records: list[dict]) -> list[dict]:
    rows = []
    for r in records:
        p, m = r.get("params") or {}, r.get("metrics") or {}
        qa = m.get("qa") or {}
        ci = (qa.get("ci") or {}).get("overall") or {}
        rows.append(
            {
                "model": p.get("reader.model") or p.get("reader.name") or "?",
                "budget": p.get("reader.thinking_budget"),
                "n": m.get("n_questions"),
                "overall": qa.get("overall"),
                "ci": (ci.get("low"), ci.get("high")) if ci else None,
                "refusal_rate": m.get("refusal_rate"),
                "reasoning_tokens": (m.get("tokens") or {}).get("reasoning"),
            }
        )
    return sorted(rows, key=lambda row: (str(row["model"]), _budget_key(row["budget"])))


def thinking_table(records: list[dict]) -> Table:
    rows = [
        {**row, "budget": "default" if row["budget"] is None else str(row["budget"])}
        for row in thinking_rows(records)
    ]
    cols = [
        Column("model", "reader model", text, align="l"),
        Column("budget", "thinking budget", text),
        Column("n", "n", integer),
        Column("overall", "overall", pct),
        Column("ci", "95% CI", ci_pct),
        Column("refusal_rate", "refusal rate", pct),
        Column("reasoning_tokens", "reasoning tokens", integer),
    ]
    notes = [
        "Accuracy (%) and refusal rate (%, over answered questions; llm/refusal.py) per "
        "model and thinking budget (tokens; default = the provider's own). 95% CI: "
        "percentile bootstrap over questions."
    ]
    return Table(
        "table5_thinking", "Thinking budgets: accuracy and refusal rate", cols, rows, notes=notes
    )


def refusal_series(records: list[dict]) -> dict[str, list[tuple[str, float]]]:
    """{model: [(budget label, refusal rate), ...]} in budget order, for the figure."""
    out: dict[str, list[tuple[str, float]]] = {}
    for row in thinking_rows(records):
        if row["refusal_rate"] is None:
            continue
        label = "default" if row["budget"] is None else str(row["budget"])
        out.setdefault(str(row["model"]), []).append((label, float(row["refusal_rate"])))
    return out
