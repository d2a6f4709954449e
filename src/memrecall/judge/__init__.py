"""The judge stage: one verdict per question, from the `rule` judge, an LLM judge in our own
words (`llm`), LongMemEval's own judge (`official`, judge/official.py) or an imported official
eval-results log (`file`, judge/imported.py).

    from memrecall.judge import judge_answers, run_judge
    verdicts = judge_answers(questions, answers, judge_cfg)   # pl.DataFrame, sorted by question_id

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

from ..artifacts import read_table, write_table
from ..config import choice, identity
from ..errors import ConfigError, InputError
from ..schema import polars_schema
from . import locomo
from .llm_judge import judge_with_llm
from .rules import RULES_VERSION, judge_one
from .rules.verdict import RULES_HASH

JUDGE_KINDS = ("rule", "llm", "official", "file")
_RULES_HASH = RULES_HASH

VERDICT_SCHEMA = polars_schema("verdicts")
# judge=official keeps the strict yes/no parse beside the official label, as a diagnostic.
STRICT_COLUMN = {"strict_label": pl.Boolean}


# The LLM keys every judge option carries (dvc.yaml declares the same params for all of them):
# a rule judge and imported labels (file) call no model, so they take none of them.
LLM_ONLY_KEYS = ("provider", "temperature", "max_tokens", "thinking_budget",
                 "input_cost_per_mtok", "output_cost_per_mtok")


def judge_kind(judge_cfg: dict) -> str:
    kind = choice(judge_cfg, "kind", JUDGE_KINDS, group="judge")
    if kind in ("rule", "file"):
        for key in LLM_ONLY_KEYS:
            if judge_cfg[key] is not None:
                raise ConfigError(f"judge.{key}", judge_cfg[key],
                                  hint=f"a {kind} judge calls no model: leave it null, or pick "
                                       "an LLM judge (judge=gpt4o, ...)")
    return kind


def _items(questions: pl.DataFrame, answers: pl.DataFrame, answers_file: str) -> list[dict]:
    """Questions joined with their answers; every question needs exactly one answer."""
    dup = answers.group_by("question_id").len().filter(pl.col("len") > 1)
    if dup.height:
        raise InputError("more than one answer for a question", file=answers_file,
                         question_id=sorted(dup["question_id"].to_list())[0], field="question_id")
    known = set(questions["question_id"].to_list())
    extra = sorted(set(answers["question_id"].to_list()) - known)
    if extra:
        raise InputError("answer for a question not in questions.parquet", file=answers_file,
                         question_id=extra[0], field="question_id")
    by_id = {r["question_id"]: r for r in answers.iter_rows(named=True)}
    is_locomo = "category" in questions.columns  # LoCoMo: judged by category (judge/locomo.py)
    items = []
    for q in questions.sort("question_id").iter_rows(named=True):
        a = by_id.get(q["question_id"])
        if a is None:
            raise InputError("no answer for this question (rerun the read stage)",
                             file=answers_file, question_id=q["question_id"], field="question_id")
        items.append({
            "question_id": q["question_id"], "question_type": q["question_type"],
            "is_abstention": bool(q["is_abstention"]), "question": q["question"] or "",
            "answer": "" if q["answer"] is None else str(q["answer"]),
            "hypothesis": a["hypothesis"], "reader_error": a.get("error"),
            "category": q["category"] if is_locomo else None,
            "adversarial_answer": q.get("adversarial_answer") if is_locomo else None,
        })
    return items


def judge_answers(questions: pl.DataFrame, answers: pl.DataFrame, judge_cfg: dict, *,
                  answers_file: str = "answers.parquet", client=None) -> pl.DataFrame:
    """Verdicts for every question (see module docstring), sorted by question_id. `client`:
    an LLMClient for an LLM judge (default: one built from judge_cfg), or the plan's dry-run
    client."""
    df, _ = _judge(questions, answers, judge_cfg, answers_file, client)
    return df


def _judge(questions, answers, judge_cfg, answers_file, client=None) -> tuple[pl.DataFrame, dict]:
    kind = judge_kind(judge_cfg)
    items = _items(questions, answers, answers_file)
    model = str(judge_cfg["model"] or (RULES_VERSION if kind == "rule" else ""))
    failed = [it for it in items if it["reader_error"]]
    todo = [it for it in items if not it["reader_error"]]
    rows: dict[str, dict] = {}
    for it in failed:
        rows[it["question_id"]] = {"question_id": it["question_id"], "label": None,
                                   "judge_model": model, "raw": None,
                                   "error": f"reader failed: {it['reader_error']}",
                                   "reader_failed": True}
    stats = {"calls": 0, "cached": 0, "failed": 0}
    if kind == "rule":
        for it in todo:
            if it["category"] is not None:
                v = locomo.rule_verdict(it["category"], it["question_type"], it["question"],
                                        it["answer"], it["hypothesis"])
            else:
                v = judge_one(it["question_type"], it["question"], it["answer"],
                              it["hypothesis"], is_abstention=it["is_abstention"])
            rows[it["question_id"]] = {"question_id": it["question_id"], "label": v.label,
                                       "judge_model": model, "raw": v.reason, "error": None,
                                       "prompt_hash": (locomo.RULE_HASH if it["category"]
                                                       is not None else _RULES_HASH)}
    else:
        if kind == "official":
            from .official import judge_official
            llm_rows, stats = judge_official(todo, judge_cfg, client)
        elif kind == "file":
            from .imported import judge_from_log
            llm_rows, stats = judge_from_log(items, judge_cfg)
        else:
            llm_rows, stats = judge_with_llm(todo, judge_cfg, client)
        for r in llm_rows:
            rows[r["question_id"]] = r
    schema = {**VERDICT_SCHEMA, **(STRICT_COLUMN if kind == "official" else {})}
    out = []
    for it in items:
        row = {k: None for k in schema}
        row.update({"reader_failed": False, "input_tokens": 0, "output_tokens": 0,
                    "reasoning_tokens": 0, "cost_usd": 0.0, "latency_s": 0.0})
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


def run_judge(judge_cfg: dict, *, questions: str | Path, answers: str | Path,
              out: str | Path) -> pl.DataFrame:
    """The judge stage: read questions + answers, judge, write verdicts.parquet atomically."""
    kind = judge_kind(judge_cfg)
    df, stats = _judge(read_table(questions, "questions"), read_table(answers, "answers"),
                       judge_cfg, str(answers))
    # The prompt templates an LLM judge sent: the run's record of them (MLflow's registry).
    extra = {k: stats[k] for k in ("official_script_sha256", "log_sha256", "prompts")
             if stats.get(k)}
    write_table(df, out, table="verdicts", stage="judge", params=identity(judge_cfg),
                input_files=[questions, answers], extra_meta=extra or None)
    n_null = df.filter(pl.col("label").is_null() & ~pl.col("reader_failed")).height
    n_reader = int(df["reader_failed"].sum())
    calls = (f"model calls {stats.get('calls', 0)}, cached {stats.get('cached', 0)}, "
             f"failed {stats.get('failed', 0)}" if kind in ("llm", "official")
             else "no model calls")
    if kind == "official":
        calls += (f"; official script sha256 {stats['official_script_sha256'][:12]}…, strict "
                  f"parse disagrees on {strict_disagreements(df)}")
    print(f"judge ({judge_cfg['name']}): {df.height} verdicts, "
          f"{int(df['label'].fill_null(False).sum())} correct, {n_null} judge errors, "
          f"{n_reader} reader errors; {calls}")
    return df
