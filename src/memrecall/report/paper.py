"""Paper tables from DVC experiments: `memrecall export` / `python stages/export.py`.

Collection (`collect_runs`) reads `dvc.api.exp_show` and, for each finished run, its committed
reports/metrics.json, reports/per_question.csv and params.yaml at that revision. The table
builders are pure functions of plain run records, so they are tested on hand-made ones:

    {"name": "ablation-2", "group": "ablation", "params": {"reader.model": ..., ...} (flat),
     "metrics": <metrics.json>, "per_question": <rows or DataFrame: question_id, question_type,
     correct>, "label": optional display label}

Tables (each written as Markdown, LaTeX booktabs and CSV under reports/paper/):
1. model comparison: reader, provider, overall, task-averaged, the six types, cost per run;
2. ablation ladder: each step's overall accuracy, Δ vs baseline with a paired-bootstrap 95% CI,
   the exact McNemar p-value, and per-type Δ;
3. negative findings: the configurations whose Δ vs baseline is negative, with the worst type
   (largest per-type drop) and the p-value;
4. cost: reader tokens in/out/reasoning, USD per run and per question, LLM time.

Runs are grouped by experiment name, as `python stages/sweep.py +sweep=<name>` names them
(<sweep>_<variant>[_<extra overrides>]): `readers*` → Table 1, `ablation*` → Table 2,
`negative*` → Table 3. With the variant lists of conf/sweep/*.yaml, a ladder is ordered as its
file lists the variants and compared with its first variant (ablation: `baseline`; negative
findings: `reference`); the same sweep run for several readers gives one ladder per reader. Runs
that do not parse go in name order against the committed HEAD run, and an empty group falls back
to every run. Δ and p-values use only the questions both runs judged (judge/reader errors
dropped).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text
from ..config import load_yaml, load_yaml_file
from ..errors import MemrecallError
from ..eval.agreement import agreement_markdown, judge_agreement
from ..eval.qa_metrics import type_order
from ..eval.stats import compare_runs
from ..schema import QUESTION_TYPES
from .figures import by_type_bars
from .tables import (Column, Table, TYPE_SHORT, integer, number, pct, pvalue, signed_ci_pct,
                     signed_pct, text, usd)

PAPER_DIR = "reports/paper"
GROUPS = ("readers", "ablation", "negative")


# ---- records --------------------------------------------------------------------------------

def group_of(name: str | None) -> str:
    n = (name or "").lower()
    for g in GROUPS:
        if n.startswith(g):
            return g
    return "other"


def flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in (d or {}).items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def per_question_frame(record: dict) -> pl.DataFrame:
    pq = record.get("per_question")
    if pq is None:
        raise MemrecallError(f"run {record.get('name')!r} has no per-question results "
                             "(reports/per_question.csv): rerun its aggregate stage")
    df = pq if isinstance(pq, pl.DataFrame) else pl.DataFrame(
        list(pq), schema={"question_id": pl.String, "question_type": pl.String,
                          "correct": pl.Boolean}, strict=False)
    return df.select("question_id", "question_type",
                     pl.col("correct").cast(pl.Boolean, strict=False))


def run_label(record: dict, baseline: dict | None) -> str:
    """A short label: the explicit one, else the params that differ from the baseline
    (a changed config option shows as `group=option`, hiding that group's other keys)."""
    if record.get("label"):
        return record["label"]
    if baseline is None or record is baseline:
        return record.get("name") or "baseline"
    p, b = record.get("params") or {}, baseline.get("params") or {}
    changed = sorted(k for k in set(p) | set(b) if p.get(k) != b.get(k))
    if not changed:
        return record.get("name") or "(same params)"
    parts, groups = [], set()
    for k in changed:
        grp = k.split(".", 1)[0]
        if k == f"{grp}.name":
            parts.append(f"{grp}={p.get(k)}")
            groups.add(grp)
    for k in changed:
        if k.split(".", 1)[0] not in groups and not k.startswith("report."):
            parts.append(f"{k}={p.get(k)}")
    return ", ".join(parts) or record.get("name") or "?"


def _reader(record: dict) -> tuple[str, str]:
    p = record.get("params") or {}
    model = p.get("reader.model") or "?"
    provider = p.get("reader.provider") or (model.split("/", 1)[0] if "/" in str(model) else "?")
    return str(p.get("reader.name") or model), str(provider)


def _types(records: list[dict]) -> list[str]:
    seen = [t for r in records for t in ((r.get("metrics") or {}).get("qa", {})
                                          .get("by_type") or {})]
    return type_order(seen) or list(QUESTION_TYPES)


def _type_cols(types, fmt, prefix="") -> list[Column]:
    return [Column(f"{prefix}{t}", TYPE_SHORT.get(t, t), fmt) for t in types]


# ---- Table 1: model comparison --------------------------------------------------------------

def model_table(records: list[dict]) -> Table:
    types = _types(records)
    rows = []
    for r in records:
        qa = (r.get("metrics") or {}).get("qa") or {}
        reader, provider = _reader(r)
        row = {"run": r.get("name"), "reader": reader, "provider": provider,
               "overall": qa.get("overall"), "task_averaged": qa.get("task_averaged"),
               "cost_usd": (r.get("metrics") or {}).get("cost_usd"),
               "n": (r.get("metrics") or {}).get("n_questions")}
        for t in types:
            row[t] = (qa.get("by_type") or {}).get(t)
        rows.append(row)
    cols = [Column("run", "run", align="l"), Column("reader", "reader", align="l"),
            Column("provider", "provider", align="l"), Column("n", "n", integer),
            Column("overall", "overall", pct), Column("task_averaged", "task-avg", pct),
            *_type_cols(types, pct), Column("cost_usd", "cost (USD)", usd)]
    return Table("table1_models", "Model comparison: QA accuracy (%) by reader", cols, rows,
                 notes=_judge_notes(records))


# ---- Table 2: ablation ladder ---------------------------------------------------------------

Ladder = tuple  # (ladder name, reference run, runs compared with it)


def _step_name(record: dict, i: int) -> str:
    return record.get("variant") or str(i)


def ablation_table(baseline: dict, steps: list[dict], *, n_resamples: int = 2000,
                   seed: int = 0) -> Table:
    """One ladder: each step against `baseline` (see ablation_ladders_table)."""
    return ablation_ladders_table([("", baseline, steps)], n_resamples=n_resamples, seed=seed)


def ablation_ladders_table(ladders: list[Ladder], *, n_resamples: int = 2000,
                           seed: int = 0) -> Table:
    """Each ladder's reference run, then each step: accuracy, Δ vs the reference with a paired
    bootstrap CI, the exact McNemar p-value and per-type Δ. Several ladders (the same sweep run
    for several readers) share the table, with a `ladder` column."""
    everyone = [r for _, b, steps in ladders for r in (b, *steps)]
    types = _types(everyone)
    rows = []
    for name, baseline, steps in ladders:
        base_pq = per_question_frame(baseline)
        rows.append({"ladder": name, "step": baseline.get("variant") or "baseline",
                     "config": run_label(baseline, None),
                     "overall": (baseline.get("metrics") or {}).get("qa", {}).get("overall"),
                     "n": base_pq.filter(pl.col("correct").is_not_null()).height})
        for i, s in enumerate(steps, start=1):
            c = compare_runs(base_pq, per_question_frame(s), n_resamples=n_resamples, seed=seed)
            row = {"ladder": name, "step": _step_name(s, i), "config": run_label(s, baseline),
                   "overall": (s.get("metrics") or {}).get("qa", {}).get("overall"),
                   "delta": c["delta"], "ci": (c["ci_low"], c["ci_high"]),
                   "p_value": c["p_value"], "n": c["n"]}
            for t in types:
                row[f"d_{t}"] = c["by_type_delta"].get(t)
            rows.append(row)
    cols = [Column("step", "step", align="l"), Column("config", "configuration", align="l"),
            Column("n", "n", integer), Column("overall", "overall", pct),
            Column("delta", "Δ", signed_pct), Column("ci", "Δ 95% CI", signed_ci_pct),
            Column("p_value", "p", pvalue), *_type_cols(types, signed_pct, "d_")]
    if any(name for name, _, _ in ladders):
        cols.insert(0, Column("ladder", "ladder", align="l"))
    notes = [f"Δ in percentage points vs the ladder's first row, on the questions both runs "
             f"judged (n); 95% CI: paired percentile bootstrap ({n_resamples} resamples, seed "
             f"{seed}); p: exact McNemar test. Per-type columns are Δ."]
    return Table("table2_ablation", "Ablation ladder: accuracy (%) and Δ vs baseline", cols,
                 rows, notes=notes + _judge_notes(everyone))


# ---- Table 3: negative findings -------------------------------------------------------------

def negative_table(baseline: dict, candidates: list[dict], *, n_resamples: int = 2000,
                   seed: int = 0) -> Table:
    return negative_ladders_table([("", baseline, candidates)], n_resamples=n_resamples,
                                  seed=seed)


def negative_ladders_table(ladders: list[Ladder], *, n_resamples: int = 2000,
                           seed: int = 0) -> Table:
    """The runs whose accuracy fell below their reference's (Δ < 0), most harmful first, with
    the type that lost most and the exact McNemar p-value."""
    rows = []
    for name, baseline, candidates in ladders:
        base_pq = per_question_frame(baseline)
        for r in candidates:
            c = compare_runs(base_pq, per_question_frame(r), n_resamples=n_resamples, seed=seed)
            if c["delta"] is None or c["delta"] >= 0:
                continue
            worst = min(c["by_type_delta"].items(), key=lambda kv: (kv[1], kv[0]),
                        default=(None, None))
            rows.append({"ladder": name, "variant": r.get("variant"),
                         "config": run_label(r, baseline), "n": c["n"],
                         "overall": (r.get("metrics") or {}).get("qa", {}).get("overall"),
                         "delta": c["delta"], "ci": (c["ci_low"], c["ci_high"]),
                         "worst_type": TYPE_SHORT.get(worst[0], worst[0]),
                         "worst_delta": worst[1], "p_value": c["p_value"]})
    rows.sort(key=lambda r: (r["delta"], r["ladder"], r["config"]))
    cols = [Column("config", "configuration", align="l"), Column("n", "n", integer),
            Column("overall", "overall", pct), Column("delta", "Δ", signed_pct),
            Column("ci", "Δ 95% CI", signed_ci_pct),
            Column("worst_type", "worst type", text, align="l"),
            Column("worst_delta", "Δ worst", signed_pct), Column("p_value", "p", pvalue)]
    if any(r.get("variant") for r in rows):
        cols.insert(0, Column("variant", "variant", align="l"))
    if any(name for name, _, _ in ladders):
        cols.insert(0, Column("ladder", "ladder", align="l"))
    notes = ["Configurations whose accuracy fell below their reference's (Δ < 0), most harmful "
             "first. A p above 0.05 means the drop is within noise for this sample size."]
    return Table("table3_negative", "Negative findings: configurations that hurt", cols, rows,
                 notes=notes)


# ---- Table 4: cost --------------------------------------------------------------------------

def cost_table(records: list[dict]) -> Table:
    rows = []
    for r in records:
        m = r.get("metrics") or {}
        tok = m.get("tokens") or {}
        n = m.get("n_questions")
        cost = m.get("cost_usd")
        rows.append({"run": r.get("name"), "reader": _reader(r)[0],
                     "input_tokens": tok.get("input"), "output_tokens": tok.get("output"),
                     "reasoning_tokens": tok.get("reasoning"), "cost_usd": cost,
                     "cost_per_question": (cost / n) if (cost is not None and n) else None,
                     "llm_time_s": (m.get("latency_s") or {}).get("sum"), "n": n})
    cols = [Column("run", "run", align="l"), Column("reader", "reader", align="l"),
            Column("n", "n", integer), Column("input_tokens", "tokens in", integer),
            Column("output_tokens", "tokens out", integer),
            Column("reasoning_tokens", "reasoning tokens", integer),
            Column("cost_usd", "USD / run", usd), Column("cost_per_question", "USD / question",
                                                          lambda x: number(x, 5)),
            Column("llm_time_s", "LLM time (s)", lambda x: number(x, 1))]
    notes = ["Reader tokens; USD includes judge calls. LLM time is the sum of the reader's call "
             "latencies as first paid (with concurrency, wall time is shorter)."]
    return Table("table4_cost", "Cost per run", cols, rows, notes=notes)


def _judge_notes(records: list[dict]) -> list[str]:
    judges = {((r.get("metrics") or {}).get("judge") or {}).get("kind") for r in records}
    if "rule" in judges:
        return ["Scored (at least in part) by the rule judge: not comparable with LLM-judged "
                "published LongMemEval numbers."]
    return []


# ---- the whole export -----------------------------------------------------------------------

def build_tables(records: list[dict], *, n_resamples: int = 2000, seed: int = 0,
                 sweeps: dict | None = None) -> list[Table]:
    """The four tables from run records. The baseline is the first record of group "baseline"
    (else the first record). `sweeps` ({group: (sweep name, [variant, ...])}, from conf/sweep/)
    orders each ladder by its variants and takes a ladder's first variant as its reference;
    without it runs go in name order against the baseline."""
    baseline, others = split_baseline(records)
    others = [annotate_variant(r, (sweeps or {}).get(r.get("group"))) for r in others]

    def grouped(g):
        return [r for r in others if r.get("group") == g]

    readers = grouped("readers")
    return [model_table(readers or [baseline, *others]),
            ablation_ladders_table(_ladders(grouped("ablation"), baseline, others),
                                   n_resamples=n_resamples, seed=seed),
            negative_ladders_table(_ladders(grouped("negative"), baseline, others),
                                   n_resamples=n_resamples, seed=seed),
            cost_table([baseline, *others])]


def _slug(text_: str) -> str:
    """As memrecall.sweep names experiments: a git-ref-safe piece."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text_))
    s = re.sub(r"[-.]*-[-.]*", "-", s)
    return s.strip("-._")


def annotate_variant(record: dict, sweep: tuple | None) -> dict:
    """A copy of the record with `variant`, `variant_index` and `ladder` when its name is
    <sweep>_<variant>[_<more overrides>] of the given sweep (name, [variants])."""
    if not sweep:
        return record
    sweep_name, variants = sweep
    name = record.get("name") or ""
    head = _slug(sweep_name) + "_"
    if not name.startswith(head):
        return record
    rest = name[len(head):]
    for i, v in sorted(enumerate(variants), key=lambda iv: -len(_slug(iv[1]))):
        sv = _slug(v)
        if rest == sv or rest.startswith(sv + "_"):
            return {**record, "variant": v, "variant_index": i, "ladder": rest[len(sv) + 1:]}
    return record


def _ladders(runs: list[dict], baseline: dict, others: list[dict]) -> list[Ladder]:
    """Runs of one group → ladders (one per set of extra overrides), each with its reference:
    the sweep's first variant when that run exists, else the HEAD baseline."""
    if not runs:
        return [("", baseline, others)]
    by_ladder: dict[str, list[dict]] = {}
    for r in runs:
        by_ladder.setdefault(r.get("ladder") or "", []).append(r)
    out = []
    for name in sorted(by_ladder):
        rs = sorted(by_ladder[name], key=lambda r: (r.get("variant_index", 1 << 30),
                                                    _natural(r.get("name") or "")))
        if rs[0].get("variant_index") == 0:
            out.append((name, rs[0], rs[1:]))
        else:
            out.append((name, baseline, rs))
    return out


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
            out[group_of(name)] = (name, list(variants))
    return out


def split_baseline(records: list[dict]) -> tuple[dict, list[dict]]:
    """(baseline, the other runs in name order): the first record of group "baseline", else
    the first record."""
    if not records:
        raise MemrecallError("no runs to export: run the pipeline (dvc repro / dvc exp run)")
    baseline = next((r for r in records if r.get("group") == "baseline"), records[0])
    others = sorted((r for r in records if r is not baseline),
                    key=lambda r: _natural(r.get("name") or ""))
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
    """Pairs of runs that differ only in the judge group: same answers, two judges."""
    pairs = []
    for i, a in enumerate(records):
        for b in records[i + 1:]:
            pa = {k: v for k, v in (a.get("params") or {}).items() if not k.startswith("judge.")}
            pb = {k: v for k, v in (b.get("params") or {}).items() if not k.startswith("judge.")}
            ja = {k: v for k, v in (a.get("params") or {}).items() if k.startswith("judge.")}
            jb = {k: v for k, v in (b.get("params") or {}).items() if k.startswith("judge.")}
            if pa == pb and ja != jb:
                pairs.append((a, b))
    return pairs


def _as_verdicts(record: dict) -> pl.DataFrame:
    return per_question_frame(record).rename({"correct": "label"})


def export_paper_tables(repo: str | None = None, out_dir: str | Path = PAPER_DIR, *,
                        records: list[dict] | None = None, n_resamples: int | None = None,
                        seed: int | None = None, sweeps: dict | None = None) -> list[Path]:
    """Collect the runs (unless given), write the four tables, a per-type figure of the compared
    runs and, when two runs differ only in their judge, reports/judge_agreement.md."""
    if records is None:
        records = collect_runs(repo)
    if not Path(out_dir).is_absolute() and repo is None:
        from ..paths import project_root
        out_dir = project_root() / out_dir  # reports/paper of this project, from any cwd
    if n_resamples is None or seed is None:
        base = next((r for r in records if r.get("group") == "baseline"), records[0] if records
                    else {})
        p = base.get("params") or {}
        n_resamples = n_resamples or int(p.get("report.bootstrap_samples") or 2000)
        seed = seed if seed is not None else int(p.get("report.seed") or 0)
    tables = build_tables(records, n_resamples=n_resamples, seed=seed,
                          sweeps=sweep_specs(repo) if sweeps is None else sweeps)
    paths = write_tables(tables, out_dir)
    baseline, others = split_baseline(records)
    runs = []
    for r in [baseline, *others]:
        qa = (r.get("metrics") or {}).get("qa") or {}
        ci = (qa.get("ci") or {}).get("by_type") or {}
        by_type = qa.get("by_type") or {}
        runs.append({"name": r.get("name"),
                     "by_type": {t: by_type[t] for t in type_order(by_type)},
                     "ci": {t: (c["low"], c["high"]) for t, c in ci.items()
                            if c and c.get("low") is not None}})
    if runs and runs[0]["by_type"]:
        paths.append(by_type_bars(runs, Path(out_dir) / "by_type.png",
                                  title="QA accuracy by type, 95% CI"))
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

def _read_at(path: str, repo: str | None, rev: str | None) -> str | None:
    import dvc.api

    try:
        return dvc.api.read(path, repo=repo, rev=rev, mode="r", encoding="utf-8")
    except Exception:  # not committed in that run, or not produced (failed stage)
        return None


def _parse_per_question(text_: str | None) -> list[dict] | None:
    if not text_:
        return None
    rows = []
    for r in csv.DictReader(io.StringIO(text_)):
        c = r.get("correct")
        rows.append({"question_id": r["question_id"], "question_type": r["question_type"],
                     "correct": None if c in ("", None) else c.lower() == "true"})
    return rows


def collect_runs(repo: str | None = None, *, num: int = 1) -> list[dict]:
    """Run records of the HEAD baseline and its finished experiments (dvc.api.exp_show)."""
    import json

    import dvc.api

    try:
        rows = dvc.api.exp_show(repo=repo, num=num)
    except Exception as e:  # not a DVC repo, no commits, ...
        raise MemrecallError(f"cannot list DVC experiments: {e}") from None
    records = []
    for row in rows:
        rev, name = row.get("rev"), row.get("Experiment")
        if rev == "workspace" or row.get("State") not in (None, "Success"):
            continue  # uncommitted workspace; queued, running or failed experiments
        metrics_text = _read_at("reports/metrics.json", repo, rev)
        if metrics_text is None:
            continue
        params_text = _read_at("params.yaml", repo, rev)
        records.append({
            "name": name or f"baseline ({rev})", "rev": rev,
            "group": "baseline" if row.get("typ") == "baseline" else group_of(name),
            "params": (flatten(load_yaml(params_text, f"params.yaml@{rev}") or {})
                       if params_text else {}),
            "metrics": json.loads(metrics_text),
            "per_question": _parse_per_question(_read_at("reports/per_question.csv", repo, rev)),
        })
    return records
