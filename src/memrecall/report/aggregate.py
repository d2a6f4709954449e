"""The aggregate stage: every number of one run, from the stage artifacts, into reports/.

Writes (all deterministic: same artifacts and params → same bytes):
- reports/metrics.json         the contract keys (docs/contract.md) plus CIs, counts, tokens,
                               latency,
                               retrieval_by_stage, judge info; sorted keys, floats rounded to 1e-6
- reports/by_type.md           accuracy by type with bootstrap 95% CIs, and the judge caveat
- reports/retrieval.md         retrieval metrics per stage, overall and by type
- reports/error_matrix.md      evidence retrieved × answer correct (LongMemEval Fig. 14)
- reports/cost.md              tokens, cost and latency percentiles, refusal rate
- reports/per_question.csv     one row per question (used by `memrecall export` for paired tests)
- reports/plots/by_type.json, reports/plots/retrieval_at_k.json   DVC plots data
- reports/figures/by_type.png  per-type bars with CI whiskers
- reports/judge/               what depends on the judge, replaced whole each run:
                               hypotheses.jsonl and, for LLM judges, its
                               .eval-results-<model> twin (LongMemEval's official formats);
                               panel.md for judge=panel

The retrieval numbers of the contract's "retrieval" key are the retrieve stage's top-50; every
stage's are under "retrieval_by_stage". The error matrix asks whether all gold sessions were in
the context the reader actually read (answers.context_session_ids).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl

from .. import benchmarks
from ..artifacts import atomic_dir, atomic_write_text, read_meta, read_table
from ..benchmarks.base import Benchmark
from ..config import check_int
from ..errata.overlay import errata_markdown
from ..errata.report import run_scores
from ..eval.panel import panel_labels, panel_markdown, panel_stats
from ..eval.qa_metrics import metrics_from_rows, per_question
from ..eval.retrieval_metrics import retrieval_metrics, retrieval_table
from ..eval.stats import qa_intervals
from ..interchange import MISSING, eval_results_path, write_eval_results, write_hypotheses
from ..judge.llm_judge import LENIENT_NOT_COMPARABLE
from ..llm.provenance import official_host
from ..llm.provenance import problems as provenance_problems
from ..schema import USAGE
from .figures import by_type_bars
from .routes import route_metrics, routes_markdown
from .tables import (
    Column,
    Table,
    ci_tuples,
    error_matrix,
    error_matrix_markdown,
    integer,
    number,
    pct,
    percentiles,
    usage_table,
)

DEFAULT_OUT = "reports"
HYPOTHESES_FILE = "hypotheses.jsonl"
# The files whose set depends on the judge (an eval-results twin per LLM judge model, panel.md
# for judge=panel): one folder that DVC owns as a whole (cached), so a repro, `dvc checkout` or
# `dvc exp apply` leaves exactly this run's files in it and none of an earlier configuration's.
JUDGE_DIR = "judge"


# ---- helpers --------------------------------------------------------------------------------


def _clean(x):
    """JSON-safe and stable: NaN → null, floats rounded, tuples → {"low", "high"}."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, tuple) and len(x) == 2:
        return {"low": _clean(x[0]), "high": _clean(x[1])}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    if isinstance(x, float) or hasattr(x, "__float__"):
        f = float(x)
        return None if math.isnan(f) or math.isinf(f) else round(f, 6)
    return x


def dump_json(obj) -> str:
    return json.dumps(_clean(obj), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def judge_info(verdicts_path: str | Path, verdicts: pl.DataFrame, bench: Benchmark) -> dict:
    """Which judge labelled the run (from the verdicts' params metadata), and whether its scores
    can be set beside the benchmark's published numbers (Benchmark.comparability: only its
    official judge, the official prompts read from the user's checkout, with the pinned
    model)."""
    try:
        meta = read_meta(verdicts_path)
    except Exception:  # a hand-made verdicts file without our metadata
        meta = {}
    params = meta.get("params") or {}
    models = sorted(m for m in verdicts["judge_model"].drop_nulls().unique().to_list())
    model = (
        models[0]
        if params.get("kind") == "file" and models
        else ", ".join(models)  # judge=routed: the rules' and the referee's
        if params.get("kind") == "routed" and models
        else params.get("model") or (models[0] if models else None)
    )
    kind = params.get("kind") or ("rule" if str(model or "").startswith("rule") else "llm")
    provenance = meta.get("provenance")
    comparable, why = bench.comparability(
        {"kind": kind, "model": ", ".join(models) if kind == "file" else model}
    )
    reasons = official_problems(bench, kind, model, provenance)
    if params.get("wording") == "lenient":  # whatever its model: generous by design
        comparable, why = False, LENIENT_NOT_COMPARABLE
    elif reasons:
        comparable, why = False, "official prompts, but not comparable: " + "; ".join(reasons)
    elif comparable:
        oj = bench.official_judge
        why = (
            f"official prompts, answered by {official_host(oj.provider)} as "
            f"{oj.pinned_model}: comparable"
        )
    info = {
        "name": params.get("name") or kind,
        "kind": kind,
        "model": model,
        "comparable_to_published": comparable,
        "comparability": why,
    }
    if provenance is not None:  # an LLM judge's calls: where they were answered
        info["provenance"] = provenance
    if reasons:
        info["not_comparable_because"] = reasons
    if kind == "official":
        info["official_script_sha256"] = meta.get("official_script_sha256")
        info["strict_parse_disagreements"] = _strict_disagreements(verdicts)
    if kind == "file":
        info["log_sha256"] = meta.get("log_sha256")
    if kind == "routed" and meta.get("routed"):  # who judged what (judge/routed.py)
        info["routed"] = meta["routed"]
    if kind == "rule" and meta.get("in_doubt"):  # what a routed judge would refer
        info["in_doubt"] = meta["in_doubt"]
    return info


def official_problems(bench: Benchmark, kind: str, model, provenance: dict | None) -> list[str]:
    """For the benchmark's official judge: why these verdicts are not the official judge's
    ([] when they are). The config says what was asked for; only the calls' own record
    (llm/provenance.py) says who answered: the provider's own endpoint, as the pinned snapshot,
    for every answer."""
    oj = bench.official_judge
    if kind != "official" or oj is None:
        return []
    out = (
        []
        if str(model).removeprefix(f"{oj.provider}/") == oj.pinned_model
        else [f"configured model {model}, not {oj.pinned_model}"]
    )
    return out + provenance_problems(
        provenance, host=official_host(oj.provider), model=oj.pinned_model
    )


def _meta_or_none(path, key: str):
    try:
        return read_meta(path).get(key)
    except Exception:  # a hand-made file without our metadata
        return None


def _strict_disagreements(verdicts: pl.DataFrame) -> int:
    if "strict_label" not in verdicts.columns:
        return 0
    lab = verdicts.filter(pl.col("label").is_not_null())
    return int((lab["strict_label"].is_null() | (lab["strict_label"] != lab["label"])).sum())


def export_official_files(
    answers: pl.DataFrame, verdicts: pl.DataFrame, judge: dict, out_dir: str | Path
) -> list[Path]:
    """hypotheses.jsonl and, for LLM-labelled runs, its .eval-results-<model> twin, in the
    official formats: LongMemEval's print_qa_metrics.py reproduces our table from them.
    Answers that are missing or failed are not written (the official files hold answers only);
    a verdict without a label (judge error) is left out of the eval-results, as it is left out of
    our accuracy."""
    out = Path(out_dir)
    hyp_path = out / HYPOTHESES_FILE
    answered = answers.filter(pl.col("error").is_null() & pl.col("hypothesis").is_not_null()).sort(
        "question_id"
    )
    written = [write_hypotheses(hyp_path, answered.select("question_id", "hypothesis").to_dicts())]
    # (a routed judge's labels are mostly the rules': no one judge's eval-results)
    if judge["kind"] not in ("rule", "routed"):
        lab = answered.join(
            verdicts.select("question_id", "label", "judge_model"), on="question_id"
        ).filter(pl.col("label").is_not_null())
        rows = [
            {
                "question_id": r["question_id"],
                "hypothesis": r["hypothesis"],
                "model": r["judge_model"],
                "label": r["label"],
            }
            for r in lab.to_dicts()
        ]
        models = sorted({r["model"] for r in rows}) or [judge["model"] or "judge"]
        written.append(write_eval_results(eval_results_path(hyp_path, models[0]), rows))
    return written


def reader_context(
    answers: pl.DataFrame, answers_path, candidates: pl.DataFrame | None
) -> dict[str, set[str]] | None:
    """The sessions each question's reader saw: answers.context_session_ids when the read stage
    recorded them, else the final candidates' top reader.top_k_context."""
    if "context_session_ids" in answers.columns:
        return {
            q: set(c or [])
            for q, c in answers.select("question_id", "context_session_ids").iter_rows()
        }
    if candidates is None:
        return None
    try:
        k = (read_meta(answers_path).get("params") or {}).get("top_k_context")
    except Exception:
        k = None
    if not isinstance(k, int):
        return None
    top = candidates.filter(pl.col("rank") <= k)
    out: dict[str, set[str]] = {}
    for q, s in top.select("question_id", "session_id").iter_rows():
        out.setdefault(q, set()).add(s)
    return out


def _evidence_column(pq: pl.DataFrame, gold: dict, context: dict | None) -> pl.DataFrame:
    vals = []
    for qid, is_abs in pq.select("question_id", "is_abstention").iter_rows():
        g = gold.get(qid) or set()
        if is_abs or not g or context is None:
            vals.append(None)
        else:
            vals.append(g <= context.get(qid, set()))
    return pq.with_columns(pl.Series("evidence_in_context", vals, dtype=pl.Boolean))


def _usage(answers: pl.DataFrame, verdicts: pl.DataFrame) -> tuple[dict, dict]:
    ok = answers.filter(pl.col("error").is_null())
    usage = {k: percentiles(ok[k].to_list()) for k in USAGE}
    judged = (
        verdicts.filter(~pl.col("reader_failed").fill_null(False))
        if "reader_failed" in verdicts.columns
        else verdicts
    )
    for col, key in (("cost_usd", "judge_cost_usd"), ("latency_s", "judge_latency_s")):
        if col in verdicts.columns:
            usage[key] = percentiles(judged[col].to_list())
    totals = {
        "input": int(answers["input_tokens"].fill_null(0).sum()),
        "output": int(answers["output_tokens"].fill_null(0).sum()),
        "reasoning": int(answers["reasoning_tokens"].fill_null(0).sum()),
    }
    for col, key in (("input_tokens", "judge_input"), ("output_tokens", "judge_output")):
        if col in verdicts.columns:
            totals[key] = int(verdicts[col].fill_null(0).sum())
    return usage, totals


# ---- the stage ------------------------------------------------------------------------------


def run_aggregate(
    report_cfg: dict,
    *,
    questions,
    turns,
    candidates: dict,
    answers,
    verdicts,
    rewrites=None,
    errata=None,
    verdicts_errata=None,
    out_dir: str | Path = DEFAULT_OUT,
) -> dict:
    """Compute and write every report of one run; returns the metrics.json content.
    `candidates`: {stage: path} for the stages to report (retrieve, rerank, rewrite);
    `rewrites`: the rewrite stage's rewrites.parquet, for the cost of its LLM calls;
    `errata`, `verdicts_errata`: the sources stage's artifacts/errata.json and the errata
    stage's verdicts against the corrected gold (dataset.errata: errata/stage.py)."""
    n_boot = report_cfg["bootstrap_samples"]
    seed = report_cfg["seed"]
    check_int(n_boot, "report.bootstrap_samples", minimum=100, hint="an integer >= 100")
    check_int(seed, "report.seed", hint="an integer")
    out = Path(out_dir)

    bench = benchmarks.of_artifact(questions)
    q = read_table(questions, "questions")
    t = read_table(turns, "turns")
    a = read_table(answers, "answers")
    v = read_table(verdicts, "verdicts")
    cands = {stage: read_table(p, "candidates") for stage, p in candidates.items()}

    pq = per_question(q, v, str(verdicts))
    qa = metrics_from_rows(pq, bench.report_order)
    ci = qa_intervals(pq, n_resamples=n_boot, seed=seed, known=bench.report_order)
    qa, ci = bench.headline(pq, qa, ci, n_boot=n_boot, seed=seed)
    golds = bench.gold(q, t)
    by_stage = {stage: retrieval_metrics(q, t, c, golds=golds) for stage, c in cands.items()}
    main_stage = "retrieve" if "retrieve" in by_stage else next(iter(by_stage), None)
    final = cands[list(cands)[-1]] if cands else None
    context = reader_context(a, answers, final)
    gold = {qid: set(g.sessions) for qid, g in golds.items() if g is not None}
    pq = _evidence_column(pq, gold, context)
    matrix = error_matrix(pq)
    usage, tokens = _usage(a, v)
    answered = a.filter(pl.col("error").is_null())
    refusal = float(answered["refused"].fill_null(False).mean()) if answered.height else None
    judge = judge_info(verdicts, v, bench)
    cost_read = float(a["cost_usd"].fill_null(0).sum())
    cost_judge = float(v["cost_usd"].fill_null(0).sum()) if "cost_usd" in v.columns else 0.0
    rw = read_table(rewrites) if rewrites is not None else None
    cost_rewrite = (
        float(rw["cost_usd"].fill_null(0).sum())
        if rw is not None and "cost_usd" in rw.columns
        else 0.0
    )

    metrics = {
        "n_questions": q.height,
        "qa": {
            "overall": qa["overall"],
            "task_averaged": qa["task_averaged"],
            "abstention": qa["abstention"],
            "by_type": qa["by_type"],
            "n_by_type": qa["n_by_type"],
            "n_judged": qa["n_judged"],
            "n_types": qa["n_types"],
            "n_abstention": qa["n_abstention"],
            "n_abstention_judged": qa["n_abstention_judged"],
            "ci": {
                "overall": ci["overall"],
                "task_averaged": ci["task_averaged"],
                "abstention": ci["abstention"],
                "by_type": ci["by_type"],
                "confidence": 0.95,
                "method": "percentile bootstrap",
                "samples": n_boot,
                "seed": seed,
            },
        },
        "retrieval": (
            {
                "session": by_stage[main_stage]["session"],
                "turn": by_stage[main_stage]["turn"],
                "n": by_stage[main_stage]["n"],
                "stage": main_stage,
            }
            if main_stage
            else {}
        ),
        "retrieval_by_stage": {
            s: {"session": m["session"], "turn": m["turn"], "n": m["n"]}
            for s, m in by_stage.items()
        },
        "cost_usd": cost_rewrite + cost_read + cost_judge,
        "cost_by_stage": {"rewrite": cost_rewrite, "read": cost_read, "judge": cost_judge},
        "refusal_rate": refusal,
        "judge_errors": qa["judge_errors"],
        "reader_errors": qa["reader_errors"],
        "missing_answers": int(a["error"].fill_null("").str.starts_with(MISSING).sum()),
        "judge": judge,
        # Where the reader's answers came from (the judge's: under "judge"); runtime facts,
        # recorded beside the artifacts' identity (llm/provenance.py).
        "reader_provenance": _meta_or_none(answers, "provenance"),
        "tokens": tokens,
        "latency_s": usage["latency_s"],
        "error_matrix": matrix,
    }
    routes = route_metrics(a, pq)  # reader=router: per-route figures (report/routes.py)
    if routes is not None:
        metrics["routes"] = routes
    panel = panel_labels(v, a)
    if panel is not None:  # judge=panel: every member's labels of the same answers
        metrics["panel"] = panel_stats(*panel)
    fixed = run_scores(errata, verdicts_errata, pq) if errata is not None else None
    if fixed is not None:  # dataset.errata: raw and corrected scores, and the ceiling
        metrics["errata"] = fixed
    extra, extra_columns = bench.extra_metrics(q, a, pq)
    for key, value in extra.items():  # the benchmark's own metrics, beside the contract keys
        if isinstance(value, dict) and isinstance(metrics.get(key), dict):
            metrics[key].update(value)
        else:
            metrics[key] = value
    if extra_columns is not None:
        pq = pq.join(extra_columns, on="question_id", how="left")
    metrics = json.loads(dump_json(metrics))

    atomic_write_text(out / "metrics.json", dump_json(metrics))
    by_type = bench.by_type_markdown(metrics, qa)
    if "errata" in metrics:
        by_type += "\n" + errata_markdown(metrics["errata"], heading="##")
    atomic_write_text(out / "by_type.md", by_type)
    if by_stage:
        atomic_write_text(
            out / "retrieval.md", bench.retrieval_title + "\n\n" + retrieval_table(by_stage)
        )
    note = (
        "Evidence retrieved = every gold session was in the context the reader read."
        if context is not None
        else "The reader's context is unknown: no cell is filled."
    )
    atomic_write_text(out / "error_matrix.md", error_matrix_markdown(matrix, note))
    atomic_write_text(
        out / "cost.md",
        cost_markdown(metrics, usage) + (routes_markdown(routes) if routes is not None else ""),
    )
    atomic_write_text(
        out / "per_question.csv",
        per_question_csv(pq, a, [] if extra_columns is None else extra_columns.columns[1:]),
    )
    # Filled aside and swapped in whole: no file of an earlier judge survives, and a failure
    # leaves the previous folder as it was.
    with atomic_dir(out / JUDGE_DIR, complete=lambda _: False) as judge_dir:
        export_official_files(a, v, judge, judge_dir)
        if "panel" in metrics:
            atomic_write_text(judge_dir / "panel.md", panel_markdown(metrics["panel"]))
    atomic_write_text(out / "plots" / "by_type.json", dump_json(by_type_plot(metrics, bench)))
    atomic_write_text(out / "plots" / "retrieval_at_k.json", dump_json(retrieval_plot(by_stage)))
    by_type_bars(
        [
            {
                "name": "this run",
                "by_type": _with_summary(metrics["qa"], bench),
                "ci": ci_tuples(metrics["qa"]["ci"]),
            }
        ],
        out / "figures" / "by_type.png",
        title=f"QA accuracy by type (judge: {judge['name']}), 95% CI",
        short_names=bench.short_names,
    )
    print(
        f"aggregate: {q.height} questions, overall {pct(metrics['qa']['overall'])}%, "
        f"task-averaged {pct(metrics['qa']['task_averaged'])}%; judge errors "
        f"{metrics['judge_errors']}, reader errors {metrics['reader_errors']}"
    )
    return metrics


def _with_summary(qa: dict, bench: Benchmark) -> dict:
    """Per-type accuracies in the benchmark's report order (metrics.json sorts its keys), then
    the two summaries."""
    by_type = {t: qa["by_type"][t] for t in bench.type_order(qa["by_type"])}
    return {**by_type, "overall": qa["overall"], "task-averaged": qa["task_averaged"]}


# ---- renderers ------------------------------------------------------------------------------


def cost_markdown(metrics: dict, usage: dict) -> str:
    tok = metrics["tokens"]
    totals = Table(
        "totals",
        "Totals",
        [Column("what", "", align="l"), Column("value", "value")],
        [
            {"what": "reader input tokens", "value": integer(tok["input"])},
            {"what": "reader output tokens", "value": integer(tok["output"])},
            {"what": "reader reasoning tokens", "value": integer(tok["reasoning"])},
            {"what": "judge input tokens", "value": integer(tok.get("judge_input"))},
            {"what": "judge output tokens", "value": integer(tok.get("judge_output"))},
            {
                "what": "cost, rewrite (USD)",
                "value": number(metrics["cost_by_stage"]["rewrite"], 6),
            },
            {"what": "cost, read (USD)", "value": number(metrics["cost_by_stage"]["read"], 6)},
            {"what": "cost, judge (USD)", "value": number(metrics["cost_by_stage"]["judge"], 6)},
            {"what": "refusal rate (%)", "value": pct(metrics["refusal_rate"])},
        ],
    )
    return (
        "# Tokens, cost and latency\n\n"
        + totals.to_markdown()
        + "\n"
        + usage_table(usage).to_markdown()
        + "\nPer answered question (reader errors left out). Latency is the model call's "
        "own time as first paid (cached calls keep it), not wall time of the stage.\n"
    )


def per_question_csv(pq: pl.DataFrame, answers: pl.DataFrame, extra=()) -> str:
    """reports/per_question.csv; `extra`: the benchmark's own per-question columns, last."""
    df = pq.join(answers.select("question_id", "refused"), on="question_id", how="left")
    cols = [
        "question_id",
        "question_type",
        "is_abstention",
        "correct",
        "judge_error",
        "reader_error",
        "evidence_in_context",
        "refused",
        *extra,
    ]
    return df.select(cols).sort("question_id").write_csv()


def by_type_plot(metrics: dict, bench: Benchmark) -> list[dict]:
    qa = metrics["qa"]
    rows = []
    for name, acc in _with_summary(qa, bench).items():
        ci = ci_tuples(qa["ci"]).get(name)
        rows.append(
            {
                "question_type": name,
                "accuracy": acc,
                "ci_low": ci[0] if ci else None,
                "ci_high": ci[1] if ci else None,
            }
        )
    return rows


def retrieval_plot(by_stage: dict) -> list[dict]:
    """One row per k: {stage}_recall_any, {stage}_recall_all, {stage}_ndcg_any (session level)."""
    ks = sorted({int(name.split("@")[1]) for m in by_stage.values() for name in m["session"]})
    rows = []
    for k in ks:
        row = {"k": k}
        for stage, m in by_stage.items():
            for metric in ("recall_any", "recall_all", "ndcg_any"):
                row[f"{stage}_{metric}"] = m["session"].get(f"{metric}@{k}")
        rows.append(row)
    return rows


# ---- terminal summary (make demo) -----------------------------------------------------------


def print_summary(
    metrics_path: str | Path = "reports/metrics.json",
    questions_path: str | Path = "artifacts/questions.parquet",
    file=None,
) -> None:
    """The per-type table of the last run (its benchmark from the questions it answered), for
    the terminal."""
    import sys

    from ..errors import MemrecallError

    path = Path(metrics_path)
    if not path.exists():
        raise MemrecallError(f"missing {path}: run the pipeline first (dvc repro)")
    bench = benchmarks.of_artifact(questions_path)
    m = json.loads(path.read_text(encoding="utf-8"))
    qa, ci = m["qa"], m["qa"]["ci"]
    rows = [
        (t, qa["n_by_type"].get(t), qa["by_type"][t], ci["by_type"].get(t))
        for t in bench.type_order(qa["by_type"])
    ]
    rows += [
        ("overall (micro)", qa["n_judged"], qa["overall"], ci["overall"]),
        (
            f"task-averaged ({qa['n_types']} types)",
            qa["n_judged"],
            qa["task_averaged"],
            ci["task_averaged"],
        ),
        (
            "abstention",
            qa.get("n_abstention_judged", qa["n_abstention"]),
            qa["abstention"],
            ci["abstention"],
        ),
    ]
    out = file or sys.stdout
    print(f"{'type':<28}{'n':>5}{'acc %':>8}   95% CI", file=out)
    print("-" * 56, file=out)
    for name, n, acc, c in rows:
        cis = f"[{pct(c['low'])}, {pct(c['high'])}]" if c and c.get("low") is not None else "–"
        print(f"{name:<28}{integer(n):>5}{pct(acc):>8}   {cis}", file=out)
    print("-" * 56, file=out)
    r = (m.get("retrieval") or {}).get("session") or {}
    print(
        f"retrieval (session, {m.get('retrieval', {}).get('stage', '-')}): recall_any@5 "
        f"{number(r.get('recall_any@5'), 3)}, recall_all@10 {number(r.get('recall_all@10'), 3)}"
        f", ndcg_any@10 {number(r.get('ndcg_any@10'), 3)}",
        file=out,
    )
    print(
        f"judge errors {m['judge_errors']}, reader errors {m.get('reader_errors', 0)}, "
        f"refusal rate {pct(m['refusal_rate'])}%, cost ${m['cost_usd']:.4f}",
        file=out,
    )
    for line in bench.judge_lines(m):
        print(line.replace("**", "").replace("`", ""), file=out)
