"""Retrieval metrics by the official LongMemEval definitions (src/retrieval/eval_utils.py and
run_retrieval.py of xiaowu0162/LongMemEval).

Per question and k:
- recall_any@k = 1 if any gold item is in the top k, recall_all@k = 1 if all of them are.
- ndcg_any@k = DCG(top k) / DCG(ideal), with binary relevance and the official DCG,
  rel_1 + sum_{i>=2} rel_i / log2(i) (so ranks 1 and 2 both weigh 1), and the ideal ranking
  putting every gold item of the haystack first.
Averages are micro over questions.

Gold sessions and turns, and which questions are abstentions (excluded), follow the official
rule as eval/gold.py defines it.

Two choices the official code leaves open, made here and reported in the output:
- Questions whose gold is empty (e.g. single-session-assistant: the evidence is in an assistant
  turn, so no user turn has has_answer) score recall_any 0, recall_all 1, ndcg 0 in the official
  script, which measures nothing; `no_gold="exclude"` (default) leaves them out of the averages
  and counts them in `n_no_gold`; `no_gold="official"` keeps the official scoring.
- Turn level from session candidates: the ranked sessions' user turns in order (a candidates
  table may carry a `turn_indices` list column giving a session's user turns best-first, as
  round-granularity retrieval does), i.e. the turns a reader sees when given the top sessions.

`gold="answer_sessions"` instead takes every evidence session as session-level gold (no
has_answer filter): the protocol behind the published figures (MemPalace, memweave, MeMesh),
for comparison only.
"""

from __future__ import annotations

import math
from collections import defaultdict

import polars as pl

from .gold import RULES as GOLD
from .gold import question_gold, turn_id

KS = (1, 3, 5, 10, 30, 50)
METRICS = ("recall_any", "recall_all", "ndcg_any")
NO_GOLD = ("exclude", "official")


def dcg(relevances: list[float], k: int) -> float:
    rel = relevances[:k]
    if not rel:
        return 0.0
    return rel[0] + sum(r / math.log2(i + 1) for i, r in enumerate(rel[1:], start=1))


def ranking_metrics(ranked: list[str], gold: set[str], ks=KS) -> dict[str, float]:
    """Official metrics of one ranked list (ids, best first) against a gold set.
    An empty gold gives recall_any 0, recall_all 1, ndcg 0, as the official code does."""
    rel = [1.0 if x in gold else 0.0 for x in ranked]
    out = {}
    for k in ks:
        top = set(ranked[:k])
        out[f"recall_any@{k}"] = float(any(g in top for g in gold))
        out[f"recall_all@{k}"] = float(all(g in top for g in gold))
        ideal_k = dcg([1.0] * len(gold), k) if gold else 0.0
        out[f"ndcg_any@{k}"] = dcg(rel, k) / ideal_k if ideal_k else 0.0
    return out


def _mean(rows: list[dict[str, float]], ks) -> dict[str, float]:
    names = [f"{m}@{k}" for m in METRICS for k in ks]
    if not rows:
        return {n: float("nan") for n in names}
    return {n: sum(r[n] for r in rows) / len(rows) for n in names}


def question_rankings(candidates: pl.DataFrame) -> dict[str, tuple[list[str], dict]]:
    """question_id → (sessions best first, {session_id: [user turn indices best-first]})."""
    cols = ["question_id", "rank", "session_id"]
    has_turns = "turn_indices" in candidates.columns
    if has_turns:
        cols.append("turn_indices")
    out: dict[str, tuple[list[str], dict]] = {}
    for row in candidates.select(cols).sort("question_id", "rank").iter_rows():
        qid, _, sid = row[:3]
        ranked, order = out.setdefault(qid, ([], {}))
        if sid in order:
            continue
        ranked.append(sid)
        order[sid] = list(row[3]) if has_turns and row[3] is not None else None
    return out


def retrieval_metrics(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    candidates: pl.DataFrame,
    ks=KS,
    *,
    no_gold: str = "exclude",
    gold: str = "has_answer",
    golds: dict | None = None,
    per_question: bool = False,
) -> dict:
    """{"session": {...}, "turn": {...}, "by_type": {type: {"session", "turn", "n"}}, "n": int,
    "n_turn", "n_abstention", "n_no_gold", "no_gold", "gold"}; see the module docstring.
    `golds`: each question's Gold as its benchmark defines it (Benchmark.gold; default: the
    official rule named by `gold`). per_question=True adds "per_question": [(question_id, type,
    session metrics)] of the scored questions (for bootstrap intervals)."""
    if no_gold not in NO_GOLD:
        raise ValueError(f"no_gold must be one of {NO_GOLD}")
    if gold not in GOLD:
        raise ValueError(f"gold must be one of {GOLD}")
    ks = tuple(ks)

    # Per session: its user turns in order (the turn-level ranking of session candidates).
    user_turns: dict[str, list[int]] = defaultdict(list)
    for sid, idx in (
        turns.filter(pl.col("role") == "user")
        .select("session_id", "turn_index")
        .sort("session_id", "turn_index")
        .iter_rows()
    ):
        user_turns[sid].append(int(idx))

    if golds is None:
        golds = question_gold(questions, turns, rule=gold)
    rankings = question_rankings(candidates)
    sess_rows, turn_rows, scored = [], [], []
    by_type: dict[str, dict[str, list]] = defaultdict(lambda: {"session": [], "turn": []})
    n_abs = n_no_gold = 0
    for qid, qtype in questions.select("question_id", "question_type").iter_rows():
        g = golds[qid]
        if g is None:  # abstention
            n_abs += 1
            continue
        gold_sessions, gold_turns = set(g.sessions), set(g.turns)
        ranked, order = rankings.get(qid, ([], {}))

        if gold_sessions or no_gold == "official":
            m = ranking_metrics(ranked, gold_sessions, ks)
            sess_rows.append(m)
            scored.append((qid, qtype, m))
            by_type[qtype]["session"].append(m)
        else:
            n_no_gold += 1
        if gold_turns or no_gold == "official":
            turn_ranked = [
                turn_id(s, i) for s in ranked for i in (order.get(s) or user_turns.get(s, []))
            ]
            m = ranking_metrics(turn_ranked, gold_turns, ks)
            turn_rows.append(m)
            by_type[qtype]["turn"].append(m)

    out = {
        "session": _mean(sess_rows, ks),
        "turn": _mean(turn_rows, ks),
        "by_type": {
            t: {
                "session": _mean(v["session"], ks),
                "turn": _mean(v["turn"], ks),
                "n": len(v["session"]),
            }
            for t, v in sorted(by_type.items())
        },
        "n": len(sess_rows),
        "n_turn": len(turn_rows),
        "n_abstention": n_abs,
        "n_no_gold": n_no_gold,
        "no_gold": no_gold,
        "gold": gold,
    }
    if per_question:
        out["per_question"] = scored
    return out


TABLE_METRICS = (
    "recall_any@1",
    "recall_any@5",
    "recall_any@10",
    "recall_all@5",
    "recall_all@10",
    "ndcg_any@5",
    "ndcg_any@10",
)


def _fmt(x: float) -> str:
    return "–" if x != x else f"{x:.3f}"  # NaN (no scorable question) → dash


def retrieval_table(by_stage: dict[str, dict], metrics=TABLE_METRICS) -> str:
    """Markdown for reports/retrieval.md: {stage: retrieval_metrics(...)} → overall session and
    turn tables, then recall_any@5 / recall_all@10 / ndcg_any@10 by question type."""
    lines = []
    for level in ("session", "turn"):
        lines += [
            f"### {level.capitalize()} level",
            "",
            "| stage | n | " + " | ".join(metrics) + " |",
            "|---|---:|" + "---:|" * len(metrics),
        ]
        for stage, m in by_stage.items():
            n = m["n"] if level == "session" else m["n_turn"]
            lines.append(
                f"| {stage} | {n} | " + " | ".join(_fmt(m[level][x]) for x in metrics) + " |"
            )
        lines.append("")
    by_type_metrics = ("recall_any@5", "recall_all@10", "ndcg_any@10")
    lines += [
        "### Session level by question type",
        "",
        "| stage | type | n | " + " | ".join(by_type_metrics) + " |",
        "|---|---|---:|" + "---:|" * len(by_type_metrics),
    ]
    for stage, m in by_stage.items():
        for qtype, tm in m["by_type"].items():
            lines.append(
                f"| {stage} | {qtype} | {tm['n']} | "
                + " | ".join(_fmt(tm["session"][x]) for x in by_type_metrics)
                + " |"
            )
    any_stage = next(iter(by_stage.values()), None)
    if any_stage is not None:
        how = (
            "excluded"
            if any_stage["no_gold"] == "exclude"
            else "scored as the official script does"
        )
        lines += [
            "",
            f"Abstention questions excluded ({any_stage['n_abstention']}); questions "
            f"without a gold session (no user turn with has_answer in an evidence "
            f"session) {how} ({any_stage['n_no_gold']}).",
        ]
    return "\n".join(lines) + "\n"
