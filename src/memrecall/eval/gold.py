"""Which questions are abstentions and which sessions and turns are a question's gold evidence:
the official LongMemEval rule (src/retrieval/run_retrieval.py, src/evaluation/evaluate_qa.py),
defined here once for the retrieval metrics, the error matrix and the data card.

- A question is an abstention question when its id contains `_abs` (the official test) or the
  questions table marks it; abstention questions have no gold (they are left out of retrieval
  metrics).
- Session-level gold: the question's evidence sessions (answer_session_ids, each once, only
  those in its haystack) with at least one *user* turn marked has_answer; the official code
  renames the others `noans_...`, so they never count.
- Turn-level gold: those sessions' user turns with has_answer, as `<session_id>_<i+1>` (i = the
  turn's index in the session, assistant turns included).

Per-question turn gold (LoCoMo): when the questions carry `answer_turn_ids` and the turns carry
`turn_id` (dia_ids such as "D3:7"), turn-level gold is each question's own evidence turns: all
questions of a conversation share its sessions, so has_answer marks every question's evidence.

`rule="answer_sessions"` takes every evidence session in the haystack as session-level gold (no
has_answer filter): the protocol behind some published figures, for comparison only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import polars as pl

ABSTENTION_MARK = "_abs"
RULES = ("has_answer", "answer_sessions")


def is_abstention_id(question_id: str) -> bool:
    return ABSTENTION_MARK in question_id


def abstention_expr() -> pl.Expr:
    """Per question row: marked in the table (if the column is there) or by its id."""
    return (pl.col("is_abstention").fill_null(False)
            | pl.col("question_id").str.contains(ABSTENTION_MARK, literal=True))


def abstention_flags(questions: pl.DataFrame) -> list[bool]:
    if "is_abstention" not in questions.columns:
        questions = questions.with_columns(pl.lit(False).alias("is_abstention"))
    return questions.select(abstention_expr()).to_series().to_list()


def turn_id(session_id: str, turn_index: int) -> str:
    return f"{session_id}_{turn_index + 1}"


def answer_turns(turns: pl.DataFrame) -> dict[str, list[int]]:
    """session_id → indices of its user turns marked has_answer, in order."""
    out: dict[str, list[int]] = defaultdict(list)
    marked = turns.filter((pl.col("role") == "user") & pl.col("has_answer").fill_null(False))
    for sid, idx in (marked.select("session_id", "turn_index").sort("session_id", "turn_index")
                     .iter_rows()):
        out[sid].append(int(idx))
    return dict(out)


@dataclass(frozen=True)
class Gold:
    evidence: tuple[str, ...]  # evidence sessions in the haystack, each once, in listed order
    sessions: tuple[str, ...]  # gold sessions (by the rule), in the same order
    turns: tuple[str, ...]     # gold turn ids (always by has_answer)


def question_gold(questions: pl.DataFrame, turns: pl.DataFrame, *,
                  rule: str = "has_answer") -> dict[str, Gold | None]:
    """question_id → its Gold, or None for an abstention question."""
    if rule not in RULES:
        raise ValueError(f"gold rule must be one of {RULES}")
    marked = answer_turns(turns)
    own = "answer_turn_ids" in questions.columns and "turn_id" in turns.columns
    turn_at: dict[str, dict[str, int]] = defaultdict(dict)  # LoCoMo: session -> dia_id -> index
    if own:
        for sid, idx, tid in turns.select("session_id", "turn_index", "turn_id").iter_rows():
            turn_at[sid][tid] = int(idx)
    own_ids = (questions.get_column("answer_turn_ids").to_list() if own
               else [None] * questions.height)
    out: dict[str, Gold | None] = {}
    rows = questions.select("question_id", "haystack_session_ids", "answer_session_ids")
    for (qid, haystack, evidence), is_abs, ids in zip(rows.iter_rows(), abstention_flags(questions),
                                                      own_ids):
        if is_abs:
            out[qid] = None
            continue
        in_haystack = set(haystack or [])
        ev = tuple(s for s in dict.fromkeys(evidence or []) if s in in_haystack)
        sessions = ev if rule == "answer_sessions" else tuple(s for s in ev if marked.get(s))
        gold_turns = (tuple(turn_id(s, turn_at[s][t]) for s in ev for t in ids or []
                            if t in turn_at[s]) if own
                      else tuple(turn_id(s, i) for s in ev for i in marked.get(s, [])))
        out[qid] = Gold(ev, sessions, gold_turns)
    return out
