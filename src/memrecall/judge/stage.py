"""The judge stage: one verdict per question, from the benchmark's `rule` judge, its LLM judge
in our own words (`llm`), its official judge (`official`: the official prompts read from the
user's checkout), an imported official eval-results log (`file`, judge/imported.py), several
of these on the same answers (`panel`, judge/panel.py) or the rules with an LLM judge for the
answers they refer (`routed`, judge/routed.py).

    from memrecall.judge.stage import judge_answers, run_judge
    verdicts = judge_answers(bench, questions, answers, judge_cfg)  # sorted by question_id

Verdict columns: the contract's question_id, label (true/false/null), judge_model, raw, error;
then question_type, is_abstention, reader_failed, prompt_hash, request_hash, tokens, cost_usd,
latency_s.

Answers whose reader call failed (`answers.error` set) are not judged: their verdict has label
null, reader_failed true and the reader's error. qa_metrics reports them as `reader_errors` and
leaves them out of accuracy — a failed API call is not a wrong answer. A judge that fails or
replies unparseably also gives label null (reader_failed false): a `judge_error`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from .. import benchmarks
from ..artifacts import read_table, write_table
from ..benchmarks.base import Benchmark
from ..config import choice, identity
from ..errors import ConfigError, InputError
from ..eval.qa_metrics import check_per_question
from ..schema import polars_dtypes, polars_schema
from .routed import judge_routed, referral_counts, referrals
from .rules import RULES_VERSION

# conf/base/judge.yaml's `kind`
JUDGE_KINDS = ("rule", "llm", "official", "file", "panel", "routed")
# judge_model of the verdicts a benchmark fixes by its own rule (Benchmark.fixed_verdict)
FIXED_MODEL = "exact-match"

VERDICT_SCHEMA = polars_schema("verdicts")
# judge=official keeps the strict yes/no parse beside the official label, as a diagnostic.
STRICT_COLUMN = {"strict_label": pl.Boolean}


# The LLM keys every judge option carries (dvc.yaml declares the same params for all of them):
# a rule judge and imported labels (file) call no model, so they take none of them.
LLM_ONLY_KEYS = (
    "provider",
    "temperature",
    "max_tokens",
    "thinking_budget",
    "input_cost_per_mtok",
    "output_cost_per_mtok",
    "wording",
)


def judge_kind(judge_cfg: dict) -> str:
    kind = choice(judge_cfg, "kind", JUDGE_KINDS, group="judge")
    if kind in ("rule", "file", "panel", "routed"):
        for key in LLM_ONLY_KEYS:
            if judge_cfg[key] is not None:
                raise ConfigError(
                    f"judge.{key}",
                    judge_cfg[key],
                    hint=f"a {kind} judge calls no model: leave it null, or pick "
                    "an LLM judge (judge=gpt4o, ...)",
                )
    if kind == "official" and judge_cfg["wording"] is not None:
        raise ConfigError(
            "judge.wording",
            judge_cfg["wording"],
            hint="the official judge sends the official prompts: leave it null, or pick an "
            "own-wording judge (judge=gpt4o, judge=lenient)",
        )
    return kind


def _items(
    bench: Benchmark, questions: pl.DataFrame, answers: pl.DataFrame, answers_file: str
) -> list[dict]:
    """Questions joined with their answers (and the fields the benchmark's judges read); every
    question needs exactly one answer."""
    check_per_question(answers, questions, what="answer", file=answers_file)
    by_id = {r["question_id"]: r for r in answers.iter_rows(named=True)}
    items = []
    for q in questions.sort("question_id").iter_rows(named=True):
        a = by_id.get(q["question_id"])
        if a is None:
            raise InputError(
                "no answer for this question (rerun the read stage)",
                file=answers_file,
                question_id=q["question_id"],
                field="question_id",
            )
        items.append(
            {
                "question_id": q["question_id"],
                "question_type": q["question_type"],
                "is_abstention": bool(q["is_abstention"]),
                "question": q["question"] or "",
                "answer": "" if q["answer"] is None else str(q["answer"]),
                "hypothesis": a["hypothesis"],
                "reader_error": a.get("error"),
                **bench.judge_item(q),
            }
        )
    return items


def judge_answers(
    bench: Benchmark,
    questions: pl.DataFrame,
    answers: pl.DataFrame,
    judge_cfg: dict,
    *,
    answers_file: str = "answers.parquet",
    client=None,
) -> pl.DataFrame:
    """Verdicts for every question of `bench`'s questions table (see module docstring), sorted
    by question_id. `client`: an LLMClient for an LLM judge (default: one built from judge_cfg),
    or the plan's dry-run client."""
    df, _ = _judge(bench, questions, answers, judge_cfg, answers_file, client)
    return df


def _rule(bench: Benchmark, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
    """The rules' verdicts, and in the stats `referrals` (why, by question_id) and `in_doubt`
    (their counts): the answers among them whose reading a routed judge refers (judge/routed.py),
    so a rule-judged score says how much of it rests on readings the rules are not trusted
    with."""
    rows = []
    for it in items:
        v = bench.rule_verdict(it)
        rows.append(
            {
                "question_id": it["question_id"],
                "label": v.label,
                "raw": v.reason,
                "error": None,
                "prompt_hash": bench.rule_hash,
                **({"score": v.score} if v.score is not None else {}),
            }
        )
    why = referrals(bench, items, {r["question_id"]: r["label"] for r in rows})
    in_doubt = referral_counts(len(items), why)
    return rows, {"calls": 0, "cached": 0, "failed": 0, "referrals": why, "in_doubt": in_doubt}


def _llm(bench: Benchmark, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
    return bench.judge_llm(items, judge_cfg, client)


def _official(bench: Benchmark, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
    return bench.judge_official(items, judge_cfg, client)


def _file(bench: Benchmark, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
    from .imported import judge_from_log

    return judge_from_log(items, judge_cfg)


# judge.kind -> (benchmark, items, config, client) -> (verdict rows, stats): JUDGE_KINDS' order
JUDGES = {"rule": _rule, "llm": _llm, "official": _official, "file": _file}


def _judge(
    bench, questions, answers, judge_cfg, answers_file, client=None
) -> tuple[pl.DataFrame, dict]:
    kind = judge_kind(judge_cfg)
    if kind == "panel":  # several judges on the same answers (panel.py)
        from .panel import judge_panel, members_of

        members = members_of(judge_cfg)
        return judge_panel(bench, questions, answers, members, _judge, answers_file=answers_file)
    if kind == "routed":  # the rules, and an LLM judge for what they refer (routed.py)
        from .panel import members_of

        return judge_routed(
            bench,
            questions,
            answers,
            members_of(judge_cfg),
            _judge,
            answers_file=answers_file,
            client=client,
        )
    items = _items(bench, questions, answers, answers_file)
    model = str(judge_cfg["model"] or (RULES_VERSION if kind == "rule" else ""))
    failed = [it for it in items if it["reader_error"]]
    todo = [it for it in items if not it["reader_error"]]
    rows: dict[str, dict] = {}
    for it in failed:
        rows[it["question_id"]] = {
            "question_id": it["question_id"],
            "label": None,
            "judge_model": model,
            "raw": None,
            "error": f"reader failed: {it['reader_error']}",
            "reader_failed": True,
        }
    if kind != "file":  # the benchmark's fixed rule (e.g. multiple choice): no judge needed
        fixed = {it["question_id"]: v for it in todo if (v := bench.fixed_verdict(it)) is not None}
        for qid, v in fixed.items():
            rows[qid] = {
                "question_id": qid,
                "label": v.label,
                "judge_model": FIXED_MODEL,
                "raw": v.reason,
                "error": None,
                "prompt_hash": bench.rule_hash,
            }
        todo = [it for it in todo if it["question_id"] not in fixed]
    # Imported labels cover every answered question of the log (judge.imported checks them all).
    judged, stats = JUDGES[kind](bench, items if kind == "file" else todo, judge_cfg, client)
    for r in judged:
        rows[r["question_id"]] = {"judge_model": model, **r}
    own = bench.extra_columns.get("verdicts")  # a benchmark's own verdict columns (score)
    # the strict-parse diagnostic only where the official judge writes one (LongMemEval's)
    strict = kind == "official" and any("strict_label" in r for r in rows.values())
    schema = {
        **VERDICT_SCHEMA,
        **(STRICT_COLUMN if strict else {}),
        **(polars_dtypes(own) if own is not None else {}),
    }
    out = []
    for it in items:
        row = {k: None for k in schema}
        row.update(
            {
                "reader_failed": False,
                "input_tokens": 0,
                "output_tokens": 0,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
            }
        )
        row.update(rows[it["question_id"]])
        row["question_type"], row["is_abstention"] = it["question_type"], it["is_abstention"]
        out.append(row)
    return pl.DataFrame(out, schema=schema), stats


def strict_disagreements(verdicts: pl.DataFrame) -> int:
    """judge=official: labelled verdicts whose strict yes/no parse differs (or fails)."""
    if "strict_label" not in verdicts.columns:
        return 0
    lab = verdicts.filter(pl.col("label").is_not_null())
    return int((lab["strict_label"].is_null() | (lab["strict_label"] != lab["label"])).sum())


def run_judge(
    judge_cfg: dict, *, questions: str | Path, answers: str | Path, out: str | Path
) -> pl.DataFrame:
    """The judge stage: read questions + answers, judge, write verdicts.parquet atomically."""
    kind = judge_kind(judge_cfg)
    bench = benchmarks.of_artifact(questions)
    df, stats = _judge(
        bench,
        read_table(questions, "questions"),
        read_table(answers, "answers"),
        judge_cfg,
        str(answers),
    )
    # The prompt templates an LLM judge sent: the run's record of them (MLflow's registry).
    extra = {
        k: stats[k]
        for k in (
            "official_script_sha256",
            "official_files",
            "log_sha256",
            "prompts",
            "provenance",
            "members",
            "routed",
            "in_doubt",
        )
        if stats.get(k)
    }
    write_table(
        df,
        out,
        table="verdicts",
        stage="judge",
        params=identity(judge_cfg),
        input_files=[questions, answers],
        extra_meta=extra or None,
    )
    n_null = df.filter(pl.col("label").is_null() & ~pl.col("reader_failed")).height
    n_reader = int(df["reader_failed"].sum())
    calls = (
        f"model calls {stats.get('calls', 0)}, cached {stats.get('cached', 0)}, "
        f"failed {stats.get('failed', 0)}"
        if kind in ("llm", "official", "routed")
        else "no model calls"
    )
    if kind == "routed":
        r = stats["routed"]
        calls = (
            f"the rules ({r['rules']}) judged {r['judged'] - r['referred']}, {r['referee']} "
            f"the {r['referred']} they referred; " + calls
        )
    if kind == "rule":
        d = stats["in_doubt"]
        calls += f"; {d['referred']} of {d['judged']} in doubt (judge=routed would refer them)"
    if kind == "panel":
        calls = (
            f"panel of {', '.join(stats['members'])} (the first gives the verdicts); "
            f"model calls {stats['calls']}, cached {stats['cached']}, failed "
            f"{stats['failed']}"
        )
    if kind == "official":
        calls += (
            f"; official script sha256 {stats['official_script_sha256'][:12]}…, strict "
            f"parse disagrees on {strict_disagreements(df)}"
        )
    print(
        f"judge ({judge_cfg['name']}): {df.height} verdicts, "
        f"{int(df['label'].fill_null(False).sum())} correct, {n_null} judge errors, "
        f"{n_reader} reader errors; {calls}"
    )
    return df
