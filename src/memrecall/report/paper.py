"""Paper tables from DVC experiments: `memrecall export` / `python stages/export.py`.

Collection (`collect_runs`) reads the HEAD run and its finished experiments through
memrecall.experiments (the reader the MLflow sync uses too). The table builders are pure
functions of plain run records, so they are tested on hand-made ones:

    {"name": "...", "baseline": True for the HEAD run, "params": {"reader.model": ..., ...}
     (flat, as recorded in the run's params.yaml), "metrics": <metrics.json>, "per_question":
     <rows or DataFrame: question_id, question_type, correct>, "dataset_sha256": optional,
     "label": optional display label}

Tables (each written as Markdown, LaTeX booktabs and CSV under reports/paper/):
1. model comparison: reader, provider, overall, task-averaged, the six types, cost per run;
2. ablation ladder: each step's overall accuracy, Δ vs its reference with a paired-bootstrap
   95% CI, the exact McNemar p-value, and per-type Δ;
3. negative findings: the configurations whose Δ vs their reference is negative, with the worst
   type (largest per-type drop) and the p-value;
4. cost: reader tokens in/out/reasoning, USD per run and per question, LLM time;
5. thinking budgets (`thinking*` sweeps, report/thinking.py): accuracy and refusal rate per
   model and budget, with the refusal-rate figure reports/paper/refusal_rate.png.

Runs are grouped by what they recorded, never by their names: `python stages/sweep.py
+sweep=<name>` writes `meta.sweep`, `meta.variant` and `meta.ladder` (the command-line
overrides the ladder was run with, e.g. reader-deepseek) into each experiment's params. A sweep
named `readers*` feeds Table 1, `ablation*` Table 2, `negative*` Table 3. A ladder is ordered as
conf/sweep/<name>.yaml lists its variants and compared with its first variant (ablation:
`baseline`; negative findings: `reference`), else with the HEAD run; with no such sweep every
run is a step against the HEAD run.

Only runs on the same questions, scored by the same judge, are compared: a run's question set is
its dataset file and the ids of the questions it answered (`memrecall.experiments.question_set`),
its judge the judge params it recorded plus what metrics.json says scored it (`judge_of`). A judge
change is never a ladder step: such a run is left out of Tables 2 and 3 with a note (two judges on
the same answers are what reports/judge_agreement.md compares). Every table names the judge of
each row. A run on other
questions than its reference is left out of Tables 2 and 3 (a note names it); Tables 1 and 4
show a `questions` column when they hold more than one set, and every table says which
dataset(s) it covers. Δ and p-values use only the questions both runs judged (judge/reader
errors dropped); a pair with none in common is left out, never shown as n = 0.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from .. import benchmarks
from ..artifacts import atomic_write_text
from ..config import load_yaml_file
from ..errors import MemrecallError
from ..eval.agreement import judge_agreement
from ..eval.qa_metrics import type_order
from ..eval.stats import compare_runs
from ..experiments import question_set
from ..hashing import sha256_json
from .agreement import agreement_markdown
from .figures import by_type_bars, refusal_rate_lines
from .tables import (
    Column,
    Table,
    integer,
    number,
    pct,
    pvalue,
    signed_ci_pct,
    signed_pct,
    text,
    usd,
)
from .thinking import refusal_series, thinking_table

PAPER_DIR = "reports/paper"
GROUPS = ("readers", "ablation", "negative", "thinking")


# ---- records --------------------------------------------------------------------------------


def group_of(sweep: str | None) -> str:
    """The table a named sweep feeds, from its recorded name (`meta.sweep`)."""
    n = (sweep or "").lower()
    for g in GROUPS:
        if n.startswith(g):
            return g
    return "other"


# Keys that say where a run belongs or how it was run, never what it computed: not a "change".
def _is_bookkeeping(key: str) -> bool:
    return key.startswith(("meta.", "report.")) or ".runtime." in f".{key}"


class QuestionSets:
    """The question sets of a set of runs, labelled `<dataset> (<n> q)` (plus a short id when
    two sets would share that label); the HEAD run's set comes first."""

    def __init__(self, records: list[dict]):
        self.order: list[str] = []
        self.info: dict[str, tuple[str, int]] = {}
        for r in records:
            key, dataset, n = r["qset"]
            if key not in self.info:
                self.order.append(key)
                self.info[key] = (dataset, n)
        plain = {k: (d, n) for k, (d, n) in self.info.items()}
        clash = {v for v in plain.values() if list(plain.values()).count(v) > 1}
        self.labels = {
            k: f"{d} ({n} q, {k[:6]})" if (d, n) in clash else f"{d} ({n} q)"
            for k, (d, n) in plain.items()
        }

    def label(self, record: dict) -> str:
        return self.labels[record["qset"][0]]

    def notes(self, records: list[dict]) -> list[str]:
        keys = [k for k in self.order if any(r["qset"][0] == k for r in records)]
        if not keys:
            return []
        sets = "; ".join(f"{self.labels[k]} = set {k}" for k in keys)
        return [
            f"Questions: {sets}."
            + (" Runs on different sets are not compared with each other." if len(keys) > 1 else "")
        ]


# Judge params that name a file (which differs between checkouts) rather than what it holds:
# the judge is identified by the file's recorded sha256 instead.
_JUDGE_FILE_KEYS = ("judge.code", "judge.official_script", "judge.path")


def judge_of(record: dict) -> tuple[str, str]:
    """(key, label) of the judge that scored a run. Same key = same judge: its recorded judge
    params (runtime left out), the kind, name and model metrics.json names, and the sha256 of
    the official script or imported log it used."""
    p = record.get("params") or {}
    j = (record.get("metrics") or {}).get("judge") or {}
    params = {
        k: v
        for k, v in p.items()
        if k.startswith("judge.") and not _is_bookkeeping(k) and k not in _JUDGE_FILE_KEYS
    }
    name = j.get("name") or p.get("judge.name") or j.get("kind") or "?"
    model = j.get("model") or p.get("judge.model")
    key = sha256_json(
        {
            "params": params,
            "kind": j.get("kind"),
            "name": name,
            "model": model,
            "files": [j.get("official_script_sha256"), j.get("log_sha256")],
        }
    )[:12]
    label = f"{name} ({model})" if model and str(model) != str(name) else str(name)
    return key, label


def annotate(record: dict, sweeps: dict | None = None) -> dict:
    """A copy of the record with the fields the tables group by, all from recorded params:
    `group`, `variant`, `variant_index` (its place in conf/sweep/<sweep>.yaml), `ladder`,
    `qset` (its question set) and `judge` ((key, label), judge_of)."""
    p = record.get("params") or {}
    sweep = p.get("meta.sweep")
    group = "baseline" if record.get("baseline") else group_of(sweep)
    # by the sweep's own name first: a group can hold several sweeps (negative_findings and
    # negative_retrieval), each ordered by its own variants
    spec = (sweeps or {}).get(str(sweep)) or (sweeps or {}).get(group)
    variant = p.get("meta.variant")
    index = None
    if spec and variant is not None and str(sweep) == spec[0] and variant in spec[1]:
        index = spec[1].index(variant)
    return {
        **record,
        "group": group,
        "variant": variant,
        "variant_index": index,
        "ladder": str(p.get("meta.ladder") or ""),
        "qset": question_set(record),
        "judge": judge_of(record),
    }


def per_question_frame(record: dict) -> pl.DataFrame:
    pq = record.get("per_question")
    if pq is None:
        raise MemrecallError(
            f"run {record.get('name')!r} has no per-question results "
            "(reports/per_question.csv): rerun its aggregate stage"
        )
    df = (
        pq
        if isinstance(pq, pl.DataFrame)
        else pl.DataFrame(
            list(pq),
            schema={"question_id": pl.String, "question_type": pl.String, "correct": pl.Boolean},
            strict=False,
        )
    )
    return df.select(
        "question_id", "question_type", pl.col("correct").cast(pl.Boolean, strict=False)
    )


def run_label(record: dict, baseline: dict | None) -> str:
    """A short label: the explicit one, else the params that differ from the baseline
    (a changed config option shows as `group=option`, hiding that group's other keys)."""
    if record.get("label"):
        return record["label"]
    if baseline is None or record is baseline:
        return record.get("name") or "baseline"
    p, b = record.get("params") or {}, baseline.get("params") or {}
    changed = sorted(k for k in set(p) | set(b) if p.get(k) != b.get(k) and not _is_bookkeeping(k))
    if not changed:
        return record.get("name") or "(same params)"
    parts, groups = [], set()
    for k in changed:
        grp = k.split(".", 1)[0]
        if k == f"{grp}.name":
            parts.append(f"{grp}={p.get(k)}")
            groups.add(grp)
    for k in changed:
        if k.split(".", 1)[0] not in groups:
            parts.append(f"{k}={p.get(k)}")
    return ", ".join(parts) or record.get("name") or "?"


def _reader(record: dict) -> tuple[str, str]:
    p = record.get("params") or {}
    if p.get("reader.callable"):  # reader=plugin: the plug-in and the model it reported
        return str(p["reader.callable"]), "plugin"
    model = p.get("reader.model") or "?"
    provider = p.get("reader.provider") or (model.split("/", 1)[0] if "/" in str(model) else "?")
    return str(p.get("reader.name") or model), str(provider)


def _benchmark(records: list[dict]):
    """The benchmark the runs were on (the first that records one; None: not known)."""
    name = next((r["benchmark"] for r in records if r.get("benchmark")), None)
    return benchmarks.get(name) if name else None


def _known(records: list[dict]) -> tuple[str, ...]:
    bench = _benchmark(records)
    return bench.report_order if bench is not None else ()


def _short(records: list[dict], t):
    bench = _benchmark(records)
    return bench.short_name(t) if bench is not None and t is not None else t


def _types(records: list[dict]) -> list[str]:
    seen = [
        t for r in records for t in ((r.get("metrics") or {}).get("qa", {}).get("by_type") or {})
    ]
    bench = _benchmark(records)
    return type_order(seen, _known(records)) or list(bench.categories if bench else ())


def _type_cols(records, types, fmt, prefix="") -> list[Column]:
    return [Column(f"{prefix}{t}", _short(records, t), fmt) for t in types]


def _annotated(records: list[dict]) -> list[dict]:
    return [r if "qset" in r else annotate(r) for r in records]


def _by_question_set(records: list[dict], sets: QuestionSets) -> list[dict]:
    """Stable order: the HEAD run's question set first, then the others."""
    return sorted(records, key=lambda r: sets.order.index(r["qset"][0]))


def _questions_column(records: list[dict], sets: QuestionSets) -> list[Column]:
    if len({r["qset"][0] for r in records}) > 1:
        return [Column("questions", "questions", text, align="l")]
    return []


# ---- Table 1: model comparison --------------------------------------------------------------


def model_table(records: list[dict], sets: QuestionSets | None = None) -> Table:
    records = _annotated(records)
    sets = sets or QuestionSets(records)
    records = sorted(
        _by_question_set(records, sets),  # one judge's runs together
        key=lambda r: (sets.order.index(r["qset"][0]), r["judge"][1]),
    )
    types = _types(records)
    rows = []
    for r in records:
        qa = (r.get("metrics") or {}).get("qa") or {}
        reader, provider = _reader(r)
        row = {
            "run": r.get("name"),
            "questions": sets.label(r),
            "reader": reader,
            "provider": provider,
            "judge": r["judge"][1],
            "overall": qa.get("overall"),
            "task_averaged": qa.get("task_averaged"),
            "cost_usd": (r.get("metrics") or {}).get("cost_usd"),
            "n": (r.get("metrics") or {}).get("n_questions"),
        }
        for t in types:
            row[t] = (qa.get("by_type") or {}).get(t)
        rows.append(row)
    cols = [
        Column("run", "run", align="l"),
        *_questions_column(records, sets),
        Column("reader", "reader", align="l"),
        Column("provider", "provider", align="l"),
        Column("judge", "judge", align="l"),
        Column("n", "n", integer),
        Column("overall", "overall", pct),
        Column("task_averaged", "task-avg", pct),
        *_type_cols(records, types, pct),
        Column("cost_usd", "cost (USD)", usd),
    ]
    return Table(
        "table1_models",
        "Model comparison: QA accuracy (%) by reader",
        cols,
        rows,
        notes=sets.notes(records) + _judge_notes(records),
    )


# ---- Table 2: ablation ladder ---------------------------------------------------------------

Ladder = tuple  # (ladder name, reference run, runs compared with it)


class Level(float):
    """An absolute accuracy in a column of Δs (a ladder's reference row)."""


def level_or_delta(x) -> str:
    return pct(x) if isinstance(x, Level) else signed_pct(x)


def _step_name(record: dict, i: int) -> str:
    return record.get("variant") or str(i)


def _left_out_notes(left_out: list[tuple[dict, str]], sets: QuestionSets) -> list[str]:
    if not left_out:
        return []
    items = ", ".join(f"{r.get('name')} [{sets.label(r)}]: {why}" for r, why in left_out)
    return [f"Not compared: {items}."]


def ablation_table(
    baseline: dict, steps: list[dict], *, n_resamples: int = 2000, seed: int = 0
) -> Table:
    """One ladder: each step against `baseline` (see ablation_ladders_table)."""
    return ablation_ladders_table([("", baseline, steps)], n_resamples=n_resamples, seed=seed)


def _compare(
    baseline: dict, run: dict, n_resamples: int, seed: int, left_out: list[tuple[dict, str]]
) -> dict | None:
    """compare_runs on the questions both judged; None (and a note) when they share none or
    did not answer the same questions."""
    if run["qset"][0] != baseline["qset"][0]:
        left_out.append((run, f"other questions than {baseline.get('name')}"))
        return None
    if run["judge"][0] != baseline["judge"][0]:
        left_out.append(
            (
                run,
                f"scored by {run['judge'][1]}, {baseline.get('name')} by "
                f"{baseline['judge'][1]}: a judge change is not a ladder step "
                "(reports/judge_agreement.md compares judges)",
            )
        )
        return None
    c = compare_runs(
        per_question_frame(baseline),
        per_question_frame(run),
        n_resamples=n_resamples,
        seed=seed,
        known=_known([baseline, run]),
    )
    if c["n"] == 0:
        left_out.append((run, f"no question judged in both it and {baseline.get('name')}"))
        return None
    return c


def ablation_ladders_table(
    ladders: list[Ladder],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    left_out: list[tuple[dict, str]] = (),
) -> Table:
    """Each ladder's reference run, then each step: accuracy, Δ vs the reference with a paired
    bootstrap CI, the exact McNemar p-value and per-type Δ. Several ladders (the same sweep run
    for several readers) share the table, with a `ladder` column."""
    ladders = [(name, _annotated([b])[0], _annotated(steps)) for name, b, steps in ladders]
    left_out = list(left_out)
    everyone = [r for _, b, steps in ladders for r in (b, *steps)]
    sets = QuestionSets(everyone + [r for r, _ in left_out])
    types = _types(everyone)
    rows = []
    for name, baseline, steps in ladders:
        base_pq = per_question_frame(baseline)
        base_qa = (baseline.get("metrics") or {}).get("qa") or {}
        row = {
            "ladder": name,
            "step": baseline.get("variant") or "baseline",
            "questions": sets.label(baseline),
            "config": run_label(baseline, None),
            "judge": baseline["judge"][1],
            "overall": base_qa.get("overall"),
            "n": base_pq.filter(pl.col("correct").is_not_null()).height,
        }
        for t in types:  # the reference's own level, so each Δ below has its base
            level = (base_qa.get("by_type") or {}).get(t)
            row[f"d_{t}"] = None if level is None else Level(level)
        rows.append(row)
        for i, s in enumerate(steps, start=1):
            c = _compare(baseline, s, n_resamples, seed, left_out)
            if c is None:
                continue
            row = {
                "ladder": name,
                "step": _step_name(s, i),
                "questions": sets.label(s),
                "config": run_label(s, baseline),
                "judge": s["judge"][1],
                "overall": (s.get("metrics") or {}).get("qa", {}).get("overall"),
                "delta": c["delta"],
                "ci": (c["ci_low"], c["ci_high"]),
                "p_value": c["p_value"],
                "n": c["n"],
            }
            for t in types:
                row[f"d_{t}"] = c["by_type_delta"].get(t)
            rows.append(row)
    dropped = {id(r) for r, _ in left_out}
    shown = [r for _, b, steps in ladders for r in (b, *steps) if id(r) not in dropped]
    cols = [
        Column("step", "step", align="l"),
        Column("config", "configuration", align="l"),
        Column("judge", "judge", align="l"),
        Column("n", "n", integer),
        Column("overall", "overall", pct),
        Column("delta", "Δ", signed_pct),
        Column("ci", "Δ 95% CI", signed_ci_pct),
        Column("p_value", "p", pvalue),
        *_type_cols(everyone, types, level_or_delta, "d_"),
    ]
    cols[1:1] = _questions_column(shown, sets)
    if any(name for name, _, _ in ladders):
        cols.insert(0, Column("ladder", "ladder", align="l"))
    notes = [
        f"Δ in percentage points vs the ladder's first row, on the questions both runs "
        f"judged (n); 95% CI: paired percentile bootstrap ({n_resamples} resamples, seed "
        f"{seed}); p: exact McNemar test. Per-type columns: the first row of a ladder its "
        f"accuracy, "
        f"the rows below their Δ from it. Each step is scored by its reference's judge."
    ]
    return Table(
        "table2_ablation",
        "Ablation ladder: accuracy (%) and Δ vs baseline",
        cols,
        rows,
        notes=notes + sets.notes(shown) + _left_out_notes(left_out, sets) + _judge_notes(shown),
    )


# ---- Table 3: negative findings -------------------------------------------------------------


def negative_table(
    baseline: dict, candidates: list[dict], *, n_resamples: int = 2000, seed: int = 0
) -> Table:
    return negative_ladders_table([("", baseline, candidates)], n_resamples=n_resamples, seed=seed)


def negative_ladders_table(
    ladders: list[Ladder],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    left_out: list[tuple[dict, str]] = (),
) -> Table:
    """The runs whose accuracy fell below their reference's (Δ < 0), most harmful first, with
    the type that lost most and the exact McNemar p-value."""
    ladders = [(name, _annotated([b])[0], _annotated(c)) for name, b, c in ladders]
    left_out = list(left_out)
    everyone = [r for _, b, cands in ladders for r in (b, *cands)]
    sets = QuestionSets(everyone + [r for r, _ in left_out])
    rows, compared, harmless = [], [], []
    for name, baseline, candidates in ladders:
        for r in candidates:
            c = _compare(baseline, r, n_resamples, seed, left_out)
            if c is None:
                continue
            compared += [baseline, r]
            if c["delta"] is None or c["delta"] >= 0:
                harmless.append(
                    f"{r.get('variant') or run_label(r, baseline)} "
                    f"({signed_pct(c['delta'])}, 95% CI "
                    f"{signed_ci_pct((c['ci_low'], c['ci_high']))})"
                )
                continue
            worst = min(
                c["by_type_delta"].items(), key=lambda kv: (kv[1], kv[0]), default=(None, None)
            )
            rows.append(
                {
                    "ladder": name,
                    "variant": r.get("variant"),
                    "questions": sets.label(r),
                    "judge": r["judge"][1],
                    "config": run_label(r, baseline),
                    "n": c["n"],
                    "overall": (r.get("metrics") or {}).get("qa", {}).get("overall"),
                    "delta": c["delta"],
                    "ci": (c["ci_low"], c["ci_high"]),
                    "worst_type": _short(everyone, worst[0]),
                    "worst_delta": worst[1],
                    "p_value": c["p_value"],
                }
            )
    rows.sort(key=lambda r: (r["delta"], r["ladder"], r["config"]))
    cols = [
        Column("config", "configuration", align="l"),
        Column("judge", "judge", align="l"),
        Column("n", "n", integer),
        Column("overall", "overall", pct),
        Column("delta", "Δ", signed_pct),
        Column("ci", "Δ 95% CI", signed_ci_pct),
        Column("worst_type", "worst type", text, align="l"),
        Column("worst_delta", "Δ worst", signed_pct),
        Column("p_value", "p", pvalue),
    ]
    cols[1:1] = _questions_column(compared, sets)
    if any(r.get("variant") for r in rows):
        cols.insert(0, Column("variant", "variant", align="l"))
    if any(name for name, _, _ in ladders):
        cols.insert(0, Column("ladder", "ladder", align="l"))
    notes = [
        "Configurations whose accuracy fell below their reference's (Δ < 0), most harmful "
        "first. A p above 0.05 means the drop is within noise for this sample size."
    ]
    if harmless:
        notes.append("Compared, not below the reference: " + "; ".join(harmless) + ".")
    return Table(
        "table3_negative",
        "Negative findings: configurations that hurt",
        cols,
        rows,
        notes=notes + sets.notes(compared) + _left_out_notes(left_out, sets),
    )


# ---- Table 4: cost --------------------------------------------------------------------------


def cost_table(records: list[dict], sets: QuestionSets | None = None) -> Table:
    records = _annotated(records)
    sets = sets or QuestionSets(records)
    records = _by_question_set(records, sets)
    rows = []
    for r in records:
        m = r.get("metrics") or {}
        tok = m.get("tokens") or {}
        n = m.get("n_questions")
        cost = m.get("cost_usd")
        rows.append(
            {
                "run": r.get("name"),
                "questions": sets.label(r),
                "reader": _reader(r)[0],
                "judge": r["judge"][1],
                "input_tokens": tok.get("input"),
                "output_tokens": tok.get("output"),
                "reasoning_tokens": tok.get("reasoning"),
                "cost_usd": cost,
                "cost_per_question": (cost / n) if (cost is not None and n) else None,
                "llm_time_s": (m.get("latency_s") or {}).get("sum"),
                "n": n,
            }
        )
    cols = [
        Column("run", "run", align="l"),
        *_questions_column(records, sets),
        Column("reader", "reader", align="l"),
        Column("judge", "judge", align="l"),
        Column("n", "n", integer),
        Column("input_tokens", "tokens in", integer),
        Column("output_tokens", "tokens out", integer),
        Column("reasoning_tokens", "reasoning tokens", integer),
        Column("cost_usd", "USD / run", usd),
        Column("cost_per_question", "USD / question", lambda x: number(x, 5)),
        Column("llm_time_s", "LLM time (s)", lambda x: number(x, 1)),
    ]
    notes = [
        "Reader tokens; USD includes judge calls. LLM time is the sum of the reader's call "
        "latencies as first paid (with concurrency, wall time is shorter)."
    ]
    return Table("table4_cost", "Cost per run", cols, rows, notes=notes + sets.notes(records))


def _judge_notes(records: list[dict]) -> list[str]:
    judges = {((r.get("metrics") or {}).get("judge") or {}).get("kind") for r in records}
    if "rule" in judges:
        return [
            "Scored (at least in part) by the rule judge: not comparable with LLM-judged "
            "published LongMemEval numbers."
        ]
    return []


# ---- the whole export -----------------------------------------------------------------------


def build_tables(
    records: list[dict], *, n_resamples: int = 2000, seed: int = 0, sweeps: dict | None = None
) -> list[Table]:
    """The four tables from run records. `sweeps` ({group: (sweep name, [variant, ...])},
    from conf/sweep/) orders each ladder by its variants and takes a ladder's first variant as
    its reference; without it a ladder's runs go in name order against the HEAD run."""
    records = [annotate(r, sweeps) for r in records]
    baseline, others = split_baseline(records)
    sets = QuestionSets([baseline, *others])

    def grouped(g):
        return [r for r in others if r["group"] == g]

    readers = grouped("readers")
    ablation, abl_out = _ladders(grouped("ablation"), baseline, others)
    negative, neg_out = _ladders(grouped("negative"), baseline, others)
    tables = [
        model_table(readers or [baseline, *others], sets),
        ablation_ladders_table(ablation, n_resamples=n_resamples, seed=seed, left_out=abl_out),
        negative_ladders_table(negative, n_resamples=n_resamples, seed=seed, left_out=neg_out),
        cost_table([baseline, *others], sets),
    ]
    thinking = grouped("thinking")
    if thinking:  # the thinking ladder: accuracy and refusal rate per model and budget
        tables.append(thinking_table(thinking))
    by_benchmark: dict[str, list[dict]] = {}
    for r in [baseline, *others]:
        if r.get("benchmark"):
            by_benchmark.setdefault(r["benchmark"], []).append(r)
    for name, runs in by_benchmark.items():  # each benchmark's own tables for its runs
        tables.extend(benchmarks.get(name).paper_tables(runs))
    return tables


def _ladders(
    runs: list[dict], baseline: dict, others: list[dict]
) -> tuple[list[Ladder], list[tuple[dict, str]]]:
    """Runs of one group → ladders, one per (`meta.sweep`, `meta.ladder`, question set), each
    with its reference: the sweep's first variant on the same questions, else the HEAD run when
    it answered the same questions. Runs with no reference on their questions are left out
    (returned with the reason)."""
    if not runs:  # no such sweep: every run is a step against the HEAD run
        same = [r for r in others if r["qset"][0] == baseline["qset"][0]]
        out = [
            (r, f"other questions than {baseline.get('name')}")
            for r in others
            if r["qset"][0] != baseline["qset"][0]
        ]
        return [("", baseline, same)], out
    parts: dict[tuple[str, str, str], list[dict]] = {}
    for r in runs:  # the same sweep name, ladder and questions
        sweep = str((r.get("params") or {}).get("meta.sweep") or "")
        parts.setdefault((sweep, r["ladder"], r["qset"][0]), []).append(r)
    many_sweeps = len({s for s, _, _ in parts}) > 1
    names = {(s, ladder) for s, ladder, _ in parts}
    many_sets = len({q for _, _, q in parts}) > 1
    ladders, left_out = [], []
    for key in sorted(parts, key=lambda k: (k[0], k[1], k[2] != baseline["qset"][0], k[2])):
        sweep, ladder, qset = key
        rs = sorted(
            parts[key],
            key=lambda r: (
                r["variant_index"] if r["variant_index"] is not None else 1 << 30,
                _natural(r.get("name") or ""),
            ),
        )
        label = " ".join(
            p
            for p in (
                sweep if many_sweeps else "",
                ladder,
                QuestionSets(rs).label(rs[0]) if many_sets else "",
            )
            if p
        )
        if rs[0]["variant_index"] == 0:
            ladders.append((label, rs[0], rs[1:]))
        elif qset == baseline["qset"][0]:
            ladders.append((label, baseline, rs))
        else:
            left_out += [(r, "no reference run on the same questions") for r in rs]
    if len(names) == 1 and not many_sets and ladders:
        ladders = [("", b, steps) for _, b, steps in ladders]
    return ladders or [("", baseline, [])], left_out


def sweep_specs(root: str | Path | None = None) -> dict:
    """{group: (sweep name, [variant names in file order])} from conf/sweep/*.yaml."""
    from ..paths import project_root

    folder = Path(root or project_root()) / "conf" / "sweep"
    out = {}
    for f in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            spec = load_yaml_file(f) or {}
        except MemrecallError:
            continue
        name = spec.get("name") or f.stem
        variants = spec.get("variants")
        if isinstance(variants, dict) and group_of(name) != "other":
            out[name] = (name, list(variants))
            out.setdefault(group_of(name), (name, list(variants)))
    return out


def split_baseline(records: list[dict]) -> tuple[dict, list[dict]]:
    """(the HEAD run, the other runs in name order); without a HEAD run, the first record."""
    if not records:
        raise MemrecallError("no runs to export: run the pipeline (dvc repro / dvc exp run)")
    baseline = next((r for r in records if r.get("baseline")), records[0])
    others = sorted(
        (r for r in records if r is not baseline), key=lambda r: _natural(r.get("name") or "")
    )
    return baseline, others


def _natural(s: str):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def write_tables(tables: list[Table], out_dir: str | Path = PAPER_DIR) -> list[Path]:
    out = Path(out_dir)
    paths = []
    for t in tables:
        for ext, render in (("md", t.to_markdown), ("tex", t.to_latex), ("csv", t.to_csv)):
            paths.append(atomic_write_text(out / f"{t.name}.{ext}", render()))
    index = "# Paper tables\n\n" + "\n".join(t.to_markdown() for t in tables)
    paths.append(atomic_write_text(out / "tables.md", index))
    return paths


def agreement_pairs(records: list[dict]) -> list[tuple[dict, dict]]:
    """Pairs of runs on the same questions that differ only in the judge group: same answers,
    two judges."""

    def split(r):
        p = {k: v for k, v in (r.get("params") or {}).items() if not _is_bookkeeping(k)}
        return (
            {k: v for k, v in p.items() if not k.startswith("judge.")},
            {k: v for k, v in p.items() if k.startswith("judge.")},
        )

    records = _annotated(records)
    pairs = []
    for i, a in enumerate(records):
        for b in records[i + 1 :]:
            (pa, ja), (pb, jb) = split(a), split(b)
            if pa == pb and ja != jb and a["qset"][0] == b["qset"][0]:
                pairs.append((a, b))
    return pairs


def _as_verdicts(record: dict) -> pl.DataFrame:
    """question_id, question_type, label, is_abstention of a run's per-question results."""
    df = per_question_frame(record).rename({"correct": "label"})
    rows = record.get("per_question")
    flags = (
        {r["question_id"]: r.get("is_abstention") for r in rows} if isinstance(rows, list) else {}
    )
    return df.with_columns(
        pl.Series(
            "is_abstention",
            [bool(flags.get(q)) for q in df["question_id"].to_list()],
            dtype=pl.Boolean,
        )
    )


def export_paper_tables(
    repo: str | None = None,
    out_dir: str | Path = PAPER_DIR,
    *,
    records: list[dict] | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
    sweeps: dict | None = None,
    names=None,
    sweep: str | None = None,
    revs: str | None = None,
) -> list[Path]:
    """Collect the runs (unless given; `names`, `sweep`, `revs` select them, collect_runs),
    write the four tables, a per-type figure of the runs on the HEAD run's questions and,
    when two runs differ only in their judge, reports/judge_agreement.md."""
    if records is None:
        records = collect_runs(repo, names=names, sweep=sweep, revs=revs)
    if not Path(out_dir).is_absolute() and repo is None:
        from ..paths import project_root

        out_dir = project_root() / out_dir  # reports/paper of this project, from any cwd
    baseline, others = split_baseline(_annotated(records))
    if n_resamples is None or seed is None:
        p = baseline.get("params") or {}
        n_resamples = n_resamples or int(p.get("report.bootstrap_samples") or 2000)
        seed = seed if seed is not None else int(p.get("report.seed") or 0)
    tables = build_tables(
        records,
        n_resamples=n_resamples,
        seed=seed,
        sweeps=sweep_specs(repo) if sweeps is None else sweeps,
    )
    paths = write_tables(tables, out_dir)
    runs = []
    for r in [baseline, *others]:
        if r["qset"][0] != baseline["qset"][0]:
            continue  # accuracies on other questions are not comparable in one figure
        qa = (r.get("metrics") or {}).get("qa") or {}
        ci = (qa.get("ci") or {}).get("by_type") or {}
        by_type = qa.get("by_type") or {}
        runs.append(
            {
                "name": r.get("name"),
                "by_type": {t: by_type[t] for t in type_order(by_type, _known(records))},
                "ci": {
                    t: (c["low"], c["high"])
                    for t, c in ci.items()
                    if c and c.get("low") is not None
                },
            }
        )
    if runs and runs[0]["by_type"]:
        bench = _benchmark(records)
        paths.append(
            by_type_bars(
                runs,
                Path(out_dir) / "by_type.png",
                title="QA accuracy by type, 95% CI",
                short_names=bench.short_names if bench else None,
            )
        )
    series = refusal_series([r for r in others if r["group"] == "thinking"])
    if series:
        paths.append(refusal_rate_lines(series, Path(out_dir) / "refusal_rate.png"))
    pairs = agreement_pairs(records)
    if pairs:
        sections = []
        for a, b in pairs:
            res = judge_agreement(_as_verdicts(a), _as_verdicts(b))
            name_a = f"{a.get('name')} ({(a.get('params') or {}).get('judge.name', '?')})"
            name_b = f"{b.get('name')} ({(b.get('params') or {}).get('judge.name', '?')})"
            sections.append(agreement_markdown(res, name_a, name_b))
        agree = Path(out_dir).parent / "judge_agreement.md"
        paths.append(atomic_write_text(agree, "\n".join(sections)))
    for p in paths:
        print(f"wrote {p}")
    return paths


# ---- collection from DVC --------------------------------------------------------------------


def collect_runs(
    repo: str | Path | None = None, *, names=None, sweep: str | None = None, revs: str | None = None
) -> list[dict]:
    """Run records of the HEAD run and its finished experiments, or of a selection
    (memrecall.experiments.collect: experiment names, a sweep name, a git revision range)."""
    from ..experiments import collect

    return [
        e.record()
        for e in collect(Path(repo) if repo else None, names=names, sweep=sweep, revs=revs)
    ]
